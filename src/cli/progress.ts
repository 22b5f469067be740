/**
 * What a person sees while the tool works. On a terminal: one live line per resource and per
 * step (check, confirmation, report), redrawn in place by cli-progress, which cuts each line to
 * the terminal's width so nothing wraps and no stale line is left behind at any width; a bar
 * where the total is known, a rate where it is not. Without a terminal: one summary line per
 * resource, as a log wants it. Nothing at all when quiet.
 */
import cliProgress from 'cli-progress';
import { type Clock, type Progress, systemClock } from '../app/context.js';
import { fitLine, seconds, statsLine, wrap } from '../app/progress-lines.js';
import type { ResourceStats, SyncResource } from '../sync/context.js';

export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  /** Live lines on a terminal; one summary line per resource otherwise. */
  tty: boolean;
  /** Nothing at all (--json prints one object instead; --quiet). */
  quiet: boolean;
  /** Where the elapsed times shown are read from. */
  clock?: Clock;
}

/** The sync's reporter, plus the steps that follow it and the closing line: the application layer's Progress. */
export type { Progress } from '../app/context.js';

/**
 * Progress of a sync and the steps after it. Each resource's line: records, new, changed,
 * pages, quarantined, the resource's notes, its rate and its retries (and, once done, its time).
 */
export function createProgress({ stream, tty, quiet, clock = systemClock }: ProgressOptions): Progress {
  if (quiet) return { update() {}, done() {}, step() {}, finish() {} };
  const started = new Map<SyncResource, { at: number }>();
  const begin = (resource: SyncResource) => {
    let start = started.get(resource);
    if (!start) started.set(resource, (start = { at: clock.now() }));
    return start;
  };
  const line = (resource: SyncResource, stats: ResourceStats, finished: boolean): string =>
    statsLine(resource, stats, finished, clock.now() - begin(resource).at);

  if (!tty) {
    return {
      update: (resource) => void begin(resource),
      done: (resource, stats) => void stream.write(`${line(resource, stats, true)}\n`),
      step() {},
      finish: (closing) => void (closing && stream.write(`${closing}\n`)),
    };
  }

  return terminalProgress(stream, clock, line, begin);
}

/** On a terminal: a live line per resource and per step, redrawn in place; the closing line wrapped at its width. */
function terminalProgress(
  stream: NodeJS.WriteStream,
  clock: Clock,
  line: (resource: SyncResource, stats: ResourceStats, finished: boolean) => string,
  begin: (resource: SyncResource) => unknown,
): Progress {
  const bars = barsOn(stream);
  const live = new Map<SyncResource, cliProgress.SingleBar>();
  const steps = stepsOn(bars, clock);
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
    step: (label) => steps.start(label),
    finish(closing) {
      steps.end();
      bars.stop();
      if (closing) stream.write(`${wrap(closing, stream.columns || 80)}\n`);
    },
  };
}

/** The steps after the sync (check, confirmation, report): each a line that counts its seconds, then says how long it took. */
function stepsOn(bars: cliProgress.MultiBar, clock: Clock): { start(label: string): void; end(): void } {
  let current: { bar: cliProgress.SingleBar; label: string; at: number; timer: NodeJS.Timeout } | undefined;
  const end = (): void => {
    if (!current) return;
    clearInterval(current.timer);
    current.bar.update(1, { line: `${current.label.padEnd(15)} done in ${seconds(clock.now() - current.at)}` });
    current.bar.stop();
    current = undefined;
  };
  const start = (label: string): void => {
    end();
    const at = clock.now();
    const bar = bars.create(1, 0, { line: `${label.padEnd(15)} running …` });
    // Something moves every second while a step works: its elapsed time.
    const timer = setInterval(
      () => bar.update(0, { line: `${label.padEnd(15)} running … ${seconds(clock.now() - at)}` }),
      1000,
    );
    timer.unref();
    current = { bar, label, at, timer };
  };
  return { start, end };
}

/** cli-progress's lines, each ours: drawn cut to the terminal's width, in place. */
function barsOn(stream: NodeJS.WriteStream): cliProgress.MultiBar {
  return new cliProgress.MultiBar({
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
}
