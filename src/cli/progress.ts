/**
 * What a person sees while the tool works. On a terminal: one live line per resource and per
 * step (check, confirmation, report), redrawn in place by cli-progress, which cuts each line to
 * the terminal's width so nothing wraps and no stale line is left behind at any width; a bar
 * where the total is known, a rate where it is not. Without a terminal: one summary line per
 * resource, as a log wants it. Nothing at all when quiet.
 */
import cliProgress from 'cli-progress';
import { wrapLine } from '../fit-width.js';
import type { Progress } from '../app/context.js';
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

export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  /** Live lines on a terminal; one summary line per resource otherwise. */
  tty: boolean;
  /** Nothing at all (--json prints one object instead; --quiet). */
  quiet: boolean;
}

/** The sync's reporter, plus the steps that follow it and the closing line: the application layer's Progress. */
export type { Progress } from '../app/context.js';

const number = (n: number): string => n.toLocaleString('en-US');
const counted = (n: number, one: string, many: string): string => `${number(n)} ${n === 1 ? one : many}`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

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

/**
 * Progress of a sync and the steps after it. Each resource's line: records, new, changed,
 * pages, quarantined, the resource's notes, its rate and its retries (and, once done, its time).
 */
export function createProgress({ stream, tty, quiet }: ProgressOptions): Progress {
  if (quiet) return { update() {}, done() {}, step() {}, finish() {} };
  const started = new Map<SyncResource, { at: number }>();
  const begin = (resource: SyncResource) => {
    let start = started.get(resource);
    if (!start) started.set(resource, (start = { at: Date.now() }));
    return start;
  };
  const line = (resource: SyncResource, stats: ResourceStats, finished: boolean): string =>
    statsLine(resource, stats, finished, begin(resource).at);

  if (!tty) {
    return {
      update: (resource) => void begin(resource),
      done: (resource, stats) => void stream.write(`${line(resource, stats, true)}\n`),
      step() {},
      finish: (closing) => void (closing && stream.write(`${closing}\n`)),
    };
  }

  // The line is ours: cli-progress draws it, cut to the terminal's width, in place.
  const bars = new cliProgress.MultiBar({
    stream,
    format: (_options, _params, payload: { line: string }) => payload.line,
    fps: 10,
    hideCursor: true,
    linewrap: false,
    clearOnComplete: false,
    // Every frame rewrites its lines, changed or not: what the terminal echoed over one (a "^C"
    // where Ctrl-C was typed) is gone at the next frame and at the last.
    forceRedraw: true,
    // The command takes SIGINT and SIGTERM itself (cli/interrupt.ts) and stops the display when it ends.
    gracefulExit: false,
  });
  const live = new Map<SyncResource, cliProgress.SingleBar>();
  let current: { bar: cliProgress.SingleBar; label: string; at: number; timer: NodeJS.Timeout } | undefined;
  const endStep = (): void => {
    if (!current) return;
    clearInterval(current.timer);
    current.bar.update(1, { line: `${current.label.padEnd(15)} done in ${seconds(Date.now() - current.at)}` });
    current.bar.stop();
    current = undefined;
  };
  const fit = (text: string): string => fitLine(text, stream.columns || 80);
  return {
    update(resource, stats) {
      begin(resource);
      const bar = live.get(resource);
      if (bar) bar.update(stats.records, { line: fit(line(resource, stats, false)) });
      else live.set(resource, bars.create(0, stats.records, { line: fit(line(resource, stats, false)) }));
    },
    done(resource, stats) {
      const payload = { line: fit(line(resource, stats, true)) };
      const bar = live.get(resource) ?? bars.create(0, stats.records, payload);
      bar.update(stats.records, payload);
      bar.stop();
      live.set(resource, bar);
    },
    step(label) {
      endStep();
      const at = Date.now();
      const bar = bars.create(1, 0, { line: `${label.padEnd(15)} running …` });
      // Something moves every second while a step works: its elapsed time.
      const timer = setInterval(
        () => bar.update(0, { line: `${label.padEnd(15)} running … ${seconds(Date.now() - at)}` }),
        1000,
      );
      timer.unref();
      current = { bar, label, at, timer };
    },
    finish(closing) {
      endStep();
      bars.stop();
      if (closing) stream.write(`${wrap(closing, stream.columns || 80)}\n`);
    },
  };
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
function statsLine(resource: SyncResource, stats: ResourceStats, finished: boolean, startedAt: number): string {
  const ms = finished ? stats.durationMs : Date.now() - startedAt;
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
function fitLine(text: string, columns: number): string {
  // The last column stays free: a line that fills it exactly is cut by the display.
  const width = columns - 1;
  let fitted = text;
  while (fitted.length > width && fitted.includes(', ', fitted.lastIndexOf(' | ')))
    fitted = fitted.slice(0, fitted.lastIndexOf(', '));
  while (fitted.length > width && fitted.includes(' | ')) fitted = fitted.slice(0, fitted.lastIndexOf(' | '));
  return fitted;
}
