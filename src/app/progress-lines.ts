/**
 * The words of a job's progress: a resource's line (records, new, changed, pages, quarantined,
 * its notes, its rate and retries), fitted to a width by dropping its last details whole, and the
 * sync's closing line. The terminal's display (src/cli/progress.ts) draws them.
 */
import { wrapLine } from '../fit-width.js';
import type { ResourceStats, SyncResource } from '../sync/context.js';

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
  listedNotFound: 'listed but answering 404 by ID',
  comparing: 'comparing cards with their ledgers',
  lookingUp: 'looking up cards the ledger names',
};

const FLAGS = new Set(['resumed', 'vanishedUnchecked', 'buildingIndexes', 'comparing', 'lookingUp']);

/** Notes that say what a resource is doing between counts: shown first, where a narrow terminal keeps them. */
const PHASES = ['comparing', 'lookingUp'];

const number = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string, many: string): string => `${number(n)} ${n === 1 ? one : many}`;
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** `45 %, ~12 s left` from the records read, the records expected and the time so far. */
export function estimate(records: number, expected: number, ms: number): string {
  const share = Math.min(records / expected, 0.99);
  const leftMs = records >= expected ? 0 : (ms / records) * (expected - records);
  return `${Math.floor(share * 100)} %, ~${leftMs >= 60_000 ? `${Math.round(leftMs / 60_000)} min` : `${Math.ceil(leftMs / 1000)} s`} left`;
}

function note(key: string, value: number): string {
  const label = NOTE[key] ?? key;
  if (FLAGS.has(key)) return label;
  return `${label} ${key.endsWith('Ms') ? seconds(value) : number(value)}`;
}

/** The closing line of a sync: what it read and how long it took. */
export function syncClosingLine(summary: {
  syncRunId: number;
  mode: string;
  completed: boolean;
  durationMs: number;
  retries: number;
  retriesAfterLists?: number;
  quarantined: number;
  resources: Record<string, ResourceStats>;
}): string {
  const after = summary.retriesAfterLists ?? 0;
  const stats = Object.values(summary.resources);
  const sum = (key: 'records' | 'new' | 'changed'): number => stats.reduce((n, s) => n + s[key], 0);
  return (
    `sync ${summary.syncRunId} (${summary.mode}) ${summary.completed ? 'completed' : 'did not complete'} in ${seconds(summary.durationMs)}: ` +
    `${counted(sum('records'), 'record', 'records')} read, ${number(sum('new'))} new, ${number(sum('changed'))} changed, ${number(summary.quarantined)} quarantined, ${counted(summary.retries, 'retry', 'retries')}${after > 0 ? ` (${number(after)} after the lists)` : ''}`
  );
}

/** Words wrapped so that no line is wider than `width` (a closing line on a narrow terminal); a word wider than that is cut. */
export function wrap(text: string, width: number): string {
  return wrapLine(text, width)
    .map((line) => (line.length > width ? line.slice(0, width) : line))
    .join('\n');
}

/** A resource's line: records, new, changed, pages, quarantined, its notes, its rate and retries (done: its time). */
export function statsLine(resource: SyncResource, stats: ResourceStats, finished: boolean, elapsedMs: number): string {
  const ms = finished ? stats.durationMs : elapsedMs;
  const rate = ms > 0 ? Math.round((stats.records * 1000) / ms) : 0;
  // What matters first, so that a narrow terminal cuts only the details at the end.
  const head = [
    counted(stats.records, 'record', 'records'),
    `${number(stats.new)} new`,
    `${number(stats.changed)} changed`,
  ];
  // Where the mirror says how many to expect: how far along, and an estimate of what is left.
  if (!finished && stats.expected !== undefined && stats.records > 0)
    head[0] = `${number(stats.records)} of ~${number(stats.expected)} (${estimate(stats.records, stats.expected, ms)})`;
  const phase = finished ? undefined : PHASES.find((key) => stats.notes[key]);
  if (phase) head.unshift(`${NOTE[phase]} …`);
  if (stats.quarantined > 0) head.push(`${number(stats.quarantined)} quarantined`);
  const tail = [finished ? seconds(ms) : `${number(rate)}/s`, counted(stats.retries, 'retry', 'retries')];
  const details = [
    counted(stats.pages, 'page', 'pages'),
    ...Object.entries(stats.notes)
      .filter(([key, value]) => !PHASES.includes(key) && (FLAGS.has(key) || value > 0))
      .map(([key, value]) => note(key, value)),
  ];
  if (finished) details.unshift(`${number(rate)}/s`);
  return `${LABEL[resource].padEnd(15)} ${head.join(', ')} | ${tail.join(', ')} | ${details.join(', ')}`;
}

/** A line the terminal cannot hold loses its last details whole ("| 3 p" is no detail at all). */
export function fitLine(text: string, columns: number): string {
  // The last column stays free: a line that fills it exactly is cut by the display.
  const width = columns - 1;
  let fitted = text;
  while (fitted.length > width && fitted.includes(', ', fitted.lastIndexOf(' | ')))
    fitted = fitted.slice(0, fitted.lastIndexOf(', '));
  while (fitted.length > width && fitted.includes(' | ')) fitted = fitted.slice(0, fitted.lastIndexOf(' | '));
  return fitted;
}
