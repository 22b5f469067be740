import type { ProgressReporter, ResourceStats, SyncResource } from '../sync/context.js';

const LABEL: Record<SyncResource, string> = {
  giftCards: 'gift cards',
  giftCardTransactions: 'ledger entries',
  settle: 'settle pass',
  coupons: 'coupons',
  dpWallets: 'DP wallets',
  dpProducts: 'DP products',
  dpOrders: 'DP orders',
};

export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  /** Live lines on a terminal; one summary line per resource otherwise. */
  tty: boolean;
  /** Nothing at all (--json prints one object instead). */
  quiet: boolean;
  retries: () => number;
}

/** Progress of a sync: a live line per resource on a terminal, a summary line per resource otherwise. */
export function createProgress({ stream, tty, quiet, retries }: ProgressOptions): ProgressReporter {
  if (quiet) return { update() {}, done() {} };
  const started = new Map<SyncResource, number>();
  let lastDraw = 0;
  const line = (resource: SyncResource, stats: ResourceStats, finished = false): string => {
    const seconds = finished ? stats.durationMs / 1000 : (Date.now() - (started.get(resource) ?? Date.now())) / 1000;
    const rate = seconds > 0 ? Math.round(stats.records / seconds) : 0;
    const notes = Object.entries(stats.notes).map(([k, v]) => `${k} ${v}`);
    const parts = [`${stats.records.toLocaleString('en-US')} records`, `${stats.new} new`, `${stats.changed} changed`, `${stats.pages} pages`];
    if (stats.quarantined > 0) parts.push(`${stats.quarantined} quarantined`);
    parts.push(...notes);
    return `${LABEL[resource].padEnd(15)} ${parts.join(', ')}${tty ? ` | ${rate.toLocaleString('en-US')}/s, ${retries()} retries` : `, ${seconds.toFixed(1)} s`}`;
  };
  return {
    update(resource, stats) {
      if (!started.has(resource)) started.set(resource, Date.now());
      if (!tty || Date.now() - lastDraw < 100) return;
      lastDraw = Date.now();
      stream.write(`\r\x1b[K${line(resource, stats)}`);
    },
    done(resource, stats) {
      stream.write(`${tty ? '\r\x1b[K' : ''}${line(resource, stats, true)}\n`);
    },
  };
}
