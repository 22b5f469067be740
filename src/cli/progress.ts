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

/** The sync's notes in plain words: a count, (for an `…Ms` note) a time in seconds, or a flag. */
const NOTE: Record<string, string> = {
  resumed: 'resumed from its checkpoint',
  cursorRestarts: 'restarts after a refused cursor',
  vanished: 'vanished',
  vanishedUnchecked: 'vanished not checked',
  buildingIndexes: 'building indexes',
  indexBuildMs: 'index build',
  cardsReread: 'cards re-read',
  entriesToppedUp: 'entries topped up',
  inFlight: 'cards in flight',
  missingCards: 'missing cards',
};

const FLAGS = new Set(['resumed', 'vanishedUnchecked', 'buildingIndexes']);

export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  /** Live lines on a terminal; one summary line per resource otherwise. */
  tty: boolean;
  /** Nothing at all (--json prints one object instead). */
  quiet: boolean;
  /** Retries so far, across both services. */
  retries: () => number;
}

const number = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string, many: string): string => `${number(n)} ${n === 1 ? one : many}`;

function note(key: string, value: number): string {
  const label = NOTE[key] ?? key;
  if (FLAGS.has(key)) return label;
  return `${label} ${key.endsWith('Ms') ? `${(value / 1000).toFixed(1)} s` : number(value)}`;
}

/**
 * Progress of a sync: a live line per resource on a terminal, a summary line per resource
 * otherwise. Each line: records, new, changed, pages, quarantined, the resource's notes,
 * its rate and its retries (and, once done, its time).
 */
export function createProgress({ stream, tty, quiet, retries }: ProgressOptions): ProgressReporter {
  if (quiet) return { update() {}, done() {} };
  const started = new Map<SyncResource, { at: number; retries: number }>();
  let lastDraw = 0;
  let lastNotes = '';
  const begin = (resource: SyncResource) => {
    let start = started.get(resource);
    if (!start) started.set(resource, (start = { at: Date.now(), retries: retries() }));
    return start;
  };
  const line = (resource: SyncResource, stats: ResourceStats, finished: boolean): string => {
    const start = begin(resource);
    const seconds = finished ? stats.durationMs / 1000 : (Date.now() - start.at) / 1000;
    const rate = seconds > 0 ? Math.round(stats.records / seconds) : 0;
    const parts = [counted(stats.records, 'record', 'records'), `${number(stats.new)} new`, `${number(stats.changed)} changed`, counted(stats.pages, 'page', 'pages')];
    if (stats.quarantined > 0) parts.push(`${number(stats.quarantined)} quarantined`);
    for (const [key, value] of Object.entries(stats.notes)) parts.push(note(key, value));
    const tail = [`${number(rate)}/s`, counted(retries() - start.retries, 'retry', 'retries')];
    if (finished) tail.push(`${seconds.toFixed(1)} s`);
    return `${LABEL[resource].padEnd(15)} ${parts.join(', ')} | ${tail.join(', ')}`;
  };
  return {
    update(resource, stats) {
      begin(resource);
      // At most ten redraws a second, but a new note (such as the index builds starting) at once.
      const notes = `${resource} ${Object.keys(stats.notes).join()}`;
      if (!tty || (Date.now() - lastDraw < 100 && notes === lastNotes)) return;
      lastDraw = Date.now();
      lastNotes = notes;
      stream.write(`\r\x1b[K${line(resource, stats, false)}`);
    },
    done(resource, stats) {
      stream.write(`${tty ? '\r\x1b[K' : ''}${line(resource, stats, true)}\n`);
    },
  };
}
