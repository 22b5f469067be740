/**
 * The live display as a person sees it: the real CLI in tmux panes 60, 80 and 120 columns wide.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { CLI, simulatorEnv } from '../support/cli.js';
import { hasProgram } from '../support/programs.js';
import { changeMirror, mirrorAt, ON_POSTGRES } from '../support/test-db.js';
import { deadlineIn } from '../support/test-clock.js';

let sim: Simulator;
let dir: string;
const socket = `ledger-recon-test-${process.pid}`;
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

const RESOURCES = ['gift cards', 'ledger entries', 'settle pass', 'coupons', 'DP wallets', 'DP products', 'DP orders'];

describe.runIf(hasProgram('tmux', 'tmux'))('the terminal display', () => {
  beforeAll(async () => {
    sim = await startSimulator({ seed: 85, size: 'small' });
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-terminal-'));
  });
  afterAll(async () => {
    tmux('kill-server');
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let panes = 0;
  /**
   * Runs `args` in a pane `width` columns wide and returns the screen once it has finished,
   * with wrapped lines joined (so a line wider than the pane shows as one).
   */
  async function screen(width: number, args: string[], withServices = true): Promise<string[]> {
    const env = withServices ? simulatorEnv(sim) : {};
    const assignments = Object.entries(env)
      .filter(([key]) => /^(GIFTCARD|DP)_/.test(key))
      .map(([key, value]) => `${key}='${value}'`);
    const command = `env ${assignments.join(' ')} TERM=xterm-256color '${process.execPath}' '${CLI}' ${args.join(' ')}; echo "exit $?"; sleep 60`;
    panes += 1;
    const session = `pane${panes}`;
    expect(tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', '50', command).status).toBe(0);
    const late = deadlineIn(60_000);
    for (;;) {
      const captured = tmux('capture-pane', '-p', '-J', '-t', session).stdout;
      if (/^exit \d+$/m.test(captured)) return captured.split('\n').filter((line) => line.trim() !== '');
      if (late()) throw new Error(`no exit in the pane after 60 s:\n${captured}`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }

  it.each([60, 80, 120])(
    'shows one line per resource and a closing line after a sync, none wider than %i columns',
    async (width) => {
      const lines = await screen(width, ['sync', '--db', join(dir, `sync-${width}`, `sync-${width}.db`)]);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
      // Redrawn in place: each resource stands on exactly one line, nothing stale left above it.
      for (const resource of RESOURCES)
        expect(
          lines.filter((line) => line.startsWith(`${resource} `)),
          resource,
        ).toHaveLength(1);
      const closing = lines.findIndex((line) => line.startsWith('sync 1 (full) completed in '));
      expect(closing).toBeGreaterThan(RESOURCES.length - 1);
      expect(lines.at(-1)).toBe('exit 0');
    },
    90_000,
  );

  it('leaves no "^C" over a line after Ctrl-C: one line says what stopped, exit 130', async () => {
    const slow = await startSimulator({ seed: 86, size: 'small', latencyMs: 150 });
    try {
      panes += 1;
      const session = `pane${panes}`;
      const env = Object.entries(simulatorEnv(slow))
        .filter(([key]) => /^(GIFTCARD|DP)_/.test(key))
        .map(([key, value]) => `${key}='${value}'`);
      const command = `env ${env.join(' ')} TERM=xterm-256color '${process.execPath}' '${CLI}' sync --db '${mirrorAt(dir, 'ctrl-c')}'; echo "exit $?"; sleep 60`;
      expect(tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '50', command).status).toBe(0);
      const capture = (): string => tmux('capture-pane', '-p', '-J', '-t', session).stdout;
      const late = deadlineIn(30_000);
      while (!/^DP orders /m.test(capture()) && !late()) await new Promise((done) => setTimeout(done, 100));
      // Ctrl-C while the lines are being redrawn: once the screen has changed since every line was first drawn.
      const drawn = capture();
      while (capture() === drawn && !late()) await new Promise((done) => setTimeout(done, 100));
      tmux('send-keys', '-t', session, 'C-c');
      const later = deadlineIn(40_000);
      while (!/^exit \d+$/m.test(capture()) && !later()) await new Promise((done) => setTimeout(done, 100));
      const lines = capture()
        .split('\n')
        .filter((line) => line.trim() !== '');
      expect(
        lines.filter((line) => line.includes('^C')),
        lines.join('\n'),
      ).toEqual([]);
      expect(lines.filter((line) => line.startsWith('ledger-recon: interrupted (SIGINT)'))).toHaveLength(1);
      expect(lines.at(-1)).toBe('exit 130');
    } finally {
      await slow.close();
    }
  }, 90_000);

  it('shows the check, confirmation and report as steps of the nightly run', async () => {
    const lines = await screen(80, ['run', '--db', mirrorAt(dir, 'run'), '--out', join(dir, 'reports')]);
    const live = lines.slice(
      0,
      lines.findIndex((line) => line.startsWith('RECONCILED')),
    );
    for (const line of live) expect(line.length, line).toBeLessThanOrEqual(80);
    for (const step of ['check', 'report'])
      expect(
        lines.filter((line) => line.startsWith(`${step} `) && line.includes('done in ')),
        step,
      ).toHaveLength(1);
    expect(lines.some((line) => /^confirmation \(\d+ cards\) +done in /.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith('RECONCILED  check run 1'))).toBe(true);
  }, 90_000);

  // A SQLite mirror's ledger indexes are built after a first sync's bulk load; one stopped before that says so.
  it.skipIf(ON_POSTGRES)(
    'wraps the notice of a first sync stopped mid-load between words, in 80 columns',
    async () => {
      const db = join(dir, 'stopped-load', 'stopped-load.db');
      expect((await screen(120, ['sync', '--db', db])).at(-1)).toBe('exit 0');
      await changeMirror(db, 'DROP INDEX gift_card_transactions_reference');
      const lines = await screen(80, ['sync', '--db', db]);
      const notice = lines.findIndex((line) => line.startsWith('ledger-recon: a first sync stopped while loading'));
      expect(notice, lines.join('\n')).toBeGreaterThanOrEqual(0);
      const words = lines
        .slice(notice, notice + 2)
        .join(' ')
        .replace(/\s+/g, ' ');
      expect(words).toContain('building its indexes over');
      expect(words).toContain('(about 2.5 s a million)');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    },
    120_000,
  );

  it('fits the night, the check, history, a SQL table, a long message and the doctor in 80 columns, wrapping between words', async () => {
    const db = mirrorAt(dir, 'narrow');
    const out = join(dir, 'narrow-reports');
    const screens = [
      await screen(80, ['run', '--db', db, '--out', out]),
      await screen(80, ['check', '--db', db]),
      await screen(80, ['history', '--db', db]),
      await screen(80, [
        'sql',
        '--db',
        db,
        `"SELECT gift_card_id, merchant_id, status, currency, program_id, initial_balance_cents, remaining_balance_cents FROM gift_cards LIMIT 3"`,
      ]),
      // Every setting missing: the longest message the tool says.
      await screen(80, ['sync', '--db', mirrorAt(dir, 'no-settings')], false),
      // The doctor with nothing set: a line each, every fix wrapped under its line's text.
      await screen(80, ['doctor', '--db', mirrorAt(dir, 'no-settings')], false),
    ];
    // A file's path is one word that cannot break: it may run on; every other line fits.
    for (const lines of screens)
      for (const line of lines.filter((l) => l.trim().includes(' '))) expect(line.length, line).toBeLessThanOrEqual(80);
    // A wrapped figure stays whole: the liability lines break between words, never inside 1,234.56.
    const check = screens[1]!.join('\n');
    expect(check).toMatch(/^liability [A-Z]{3}: opening/m);
    for (const line of screens[1]!) expect(line, line).not.toMatch(/[\d,]+\.\d?$/);
    expect(screens[2]![0]).toMatch(/^run +started \(UTC\) .*verdict +findings/);
    expect(screens[4]!.join(' ')).toMatch(/GIFTCARD_API_URL/);
    expect(screens[5]![0]).toMatch(/^FAIL {2}GIFTCARD_API_URL: /);
    expect(screens[5]!.filter((line) => line.startsWith('      ')).length).toBeGreaterThan(0);
  }, 120_000);
});
