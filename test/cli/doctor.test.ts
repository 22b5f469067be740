import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { cleanEnv, runCli, simulatorEnv } from '../support/cli.js';
import { examine } from '../../src/app/doctor.js';
import { failureOfJob, nightOf, syncOf } from '../support/app.js';
import { readSettingsFile } from '../../src/settings-file.js';
import { loadConfig } from '../../src/config.js';
import { mirrorExists, shownDb } from '../../src/db/mirror.js';
import { changeMirror, mirrorAt, ON_POSTGRES } from '../support/test-db.js';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 84, size: 'tiny' });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-doctor-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The six settings as an env file, as an operator keeps them. */
function envFile(): string {
  const file = join(dir, 'ledger-recon.env');
  const env = simulatorEnv(sim);
  writeFileSync(
    file,
    [
      'GIFTCARD_API_URL',
      'GIFTCARD_CLIENT_ID',
      'GIFTCARD_CLIENT_SECRET',
      'DP_API_URL',
      'DP_CLIENT_ID',
      'DP_CLIENT_SECRET',
    ]
      .map((key) => `${key}=${env[key]}`)
      .join('\n'),
    { mode: 0o600 },
  );
  chmodSync(file, 0o600);
  return file;
}

describe('settings like other tools', () => {
  it('reads --settings, and LEDGER_RECON_DB and LEDGER_RECON_OUT as the default --db and --out', async () => {
    const db = mirrorAt(join(dir, 'from-env'));
    const out = join(dir, 'from-env', 'reports');
    const { status, stdout, stderr } = await runCli(
      ['run', '--settings', envFile(), '--json'],
      cleanEnv({ LEDGER_RECON_DB: db, LEDGER_RECON_OUT: out }),
    );
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      // The record names the mirror it used: the path, or the URL without its user and password.
      mirror: db.replace(/^postgres:\/\/[^@/]*@/, 'postgres://'),
      verdict: 'RECONCILED',
      report: { workbook: expect.stringMatching(new RegExp(`^${out}/ledger-recon-.*-run-1\\.xlsx$`)) },
    });
    expect(await mirrorExists(db)).toBe(true);
    expect(readdirSync(out)).toHaveLength(5);
  });

  it('lets the environment win over the file, and flags over both', async () => {
    const { status, stderr } = await runCli(
      ['ping', '--settings', envFile(), '--dp-url', 'ftp://flag'],
      cleanEnv({ GIFTCARD_API_URL: 'mailto:environment' }),
    );
    expect(status).toBe(2);
    expect(stderr).toContain('GIFTCARD_API_URL (or --giftcard-url) must start with http:// or https://');
    expect(stderr).toContain('DP_API_URL (or --dp-url) must start with http:// or https://');
  });
});

describe('a settings file is read as text, by ledger-recon alone', () => {
  it('refuses a NODE_OPTIONS line without running it, /dev/zero, a FIFO and a missing file, one line each, exit 2', async () => {
    const evil = join(dir, 'evil.cjs');
    const proof = join(dir, 'evil-ran');
    writeFileSync(evil, `require('node:fs').writeFileSync(${JSON.stringify(proof)}, 'x');`);
    const settings = join(dir, 'evil.settings');
    writeFileSync(settings, `# nightly\nLEDGER_RECON_TIMEOUT=30\nNODE_OPTIONS=--require ${evil}\n`);
    const fifo = join(dir, 'settings.fifo');
    execFileSync('mkfifo', [fifo]);
    const cases: Array<[string, string]> = [
      [
        settings,
        `ledger-recon: --settings ${settings}:3: NODE_OPTIONS is not a ledger-recon setting (GIFTCARD_*, DP_*, LEDGER_RECON_*)\n`,
      ],
      ['/dev/zero', 'ledger-recon: --settings /dev/zero: a device, not a regular file: give --settings a file\n'],
      [fifo, `ledger-recon: --settings ${fifo}: a FIFO, not a regular file: give --settings a file\n`],
      [
        join(dir, 'missing.env'),
        `ledger-recon: --settings ${join(dir, 'missing.env')}: no such file (ENOENT): give --settings a file you can read\n`,
      ],
    ];
    // Read as the CLI reads it before any command (src/settings-file.ts), its refusal the CLI's one line.
    for (const [file, line] of cases) {
      const refused = await failureOfJob(async () => readSettingsFile(file));
      expect(refused.exitCode).toBe(2);
      expect(`${refused.line}\n`).toBe(line);
    }
    expect(existsSync(proof)).toBe(false);
  });

  it('takes a key given twice at its last value, as systemd does', async () => {
    const file = join(dir, 'twice.env');
    writeFileSync(file, 'LEDGER_RECON_TIMEOUT=30\nLEDGER_RECON_TIMEOUT=abc\n', { mode: 0o600 });
    const { settings } = readSettingsFile(file);
    expect(settings.get('LEDGER_RECON_TIMEOUT')).toBe('abc');
    const refused = await failureOfJob(async () =>
      loadConfig({}, { ...simulatorEnv(sim), ...Object.fromEntries(settings) }),
    );
    expect(refused.line).toContain('LEDGER_RECON_TIMEOUT (or --timeout) is "abc"');
  });

  it('warns in one line when a file holding client secrets can be read by other users, and quotes a bad value short', async () => {
    const file = envFile();
    chmodSync(file, 0o644);
    expect(readSettingsFile(file).warning).toBe(
      `--settings ${file} holds GIFTCARD_CLIENT_SECRET, DP_CLIENT_SECRET and other users can read it (mode 0644): chmod 600 ${file}`,
    );
    const long = join(dir, 'long.env');
    writeFileSync(long, `LEDGER_RECON_TIMEOUT=${'9'.repeat(60_000)}\n`, { mode: 0o600 });
    const bounded = await failureOfJob(async () =>
      loadConfig({}, { ...simulatorEnv(sim), ...Object.fromEntries(readSettingsFile(long).settings) }),
    );
    expect(bounded.exitCode).toBe(2);
    expect(bounded.line.length).toBeLessThan(2_000);
    expect(bounded.line).toContain('(60,000 characters)');
  });

  it('refuses --env-file, which Node reads before the program starts, pointing at --settings', async () => {
    const file = join(dir, 'plain.env');
    writeFileSync(file, 'LEDGER_RECON_TIMEOUT=30\n');
    const result = await runCli(['history', '--env-file', file], cleanEnv());
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^ledger-recon: --env-file is read by Node itself .*use --settings FILE/);
  });
});

/** The six settings of the simulator, as the doctor reads them from the environment. */
const simulatorSettings = (): NodeJS.ProcessEnv => simulatorEnv(sim);

describe('ledger-recon doctor', () => {
  it('says ok, one line each, for the settings, both services, the mirror, the disk and --out', async () => {
    const db = mirrorAt(dir, 'healthy');
    const out = join(dir, 'healthy');
    await nightOf(sim, db, out);
    const lines = await examine({ db, out, env: simulatorSettings() });
    expect(lines.filter((line) => !line.ok)).toEqual([]);
    expect(lines.map((line) => line.subject)).toEqual([
      'GIFTCARD_API_URL',
      'GIFTCARD_CLIENT_ID',
      'GIFTCARD_CLIENT_SECRET',
      'DP_API_URL',
      'DP_CLIENT_ID',
      'DP_CLIENT_SECRET',
      'gift card service',
      'delivery partner service',
      // No 'default locations' line: --db and --out name both (doctor --db postgres://… says nothing of data/ledger.db).
      `mirror ${shownDb(db)}`,
      'schema',
      'lock',
      'last run',
      // The mirror's seals, each giving its digest and following the one before.
      'evidence',
      // A file's free space; a server's disk is its operator's.
      ...(ON_POSTGRES ? [] : ['disk']),
      '--out',
    ]);
    const text = lines.map((line) => line.text).join('\n');
    expect(text).toContain('integrity ok');
    expect(lines.find((line) => line.subject === 'last run')?.text).toMatch(/^run 1 at .*: RECONCILED/);
    expect(text).not.toContain(sim.credentials.giftcard.clientSecret);
    // On the command line: a line each, `ok` first, exit 0; the same checks as one JSON object for a monitor.
    for (const json of [false, true]) {
      const printed = await runCli(
        ['doctor', '--db', db, '--out', out, ...(json ? ['--json'] : [])],
        simulatorEnv(sim),
      );
      expect(printed.stderr).toBe('');
      expect(printed.status).toBe(0);
      expect(printed.stdout).not.toContain(sim.credentials.giftcard.clientSecret);
      // The free space beside the mirror moves while another suite writes to the same disk: its figure aside.
      const steady = (text: string) => text.replace(/[\d.,]+ GB free/g, 'N GB free');
      const expected = lines.map((line) => ({ ...line, text: steady(line.text) }));
      if (json) expect(JSON.parse(steady(printed.stdout))).toEqual({ ok: true, checks: expected });
      else
        expect(steady(printed.stdout)).toBe(expected.map((line) => `ok    ${line.subject}: ${line.text}\n`).join(''));
    }
  });

  // A file that is no database; on PostgreSQL a server that cannot be reached is test/cli/postgres.test.ts's.
  it.skipIf(ON_POSTGRES)('names every problem with its fix, never a secret', async () => {
    const env = { ...simulatorEnv(sim), GIFTCARD_CLIENT_SECRET: 'rotated-secret-value', DP_API_URL: '' };
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database');
    const lines = await examine({ db: garbage, out: garbage, env });
    const failing = lines.filter((line) => !line.ok);
    expect(failing.map((line) => line.subject)).toEqual([
      'DP_API_URL',
      'gift card service',
      'delivery partner service',
      `mirror ${garbage}`,
      '--out',
    ]);
    expect(failing[1]?.text).toMatch(/GIFTCARD_CLIENT_SECRET/);
    expect(failing[2]?.text).toBe('not tried: fix its settings above first');
    expect(failing[3]?.text).toMatch(
      /not a mirror \(the file is no SQLite database\): give --db the mirror's file, e\.g\. .*ledger\.db$/,
    );
    expect(JSON.stringify(lines)).not.toContain('rotated-secret-value');
  });

  it('fails an --out it cannot make a file in, though its permission bits say it may (/proc)', async () => {
    const lines = await examine({
      db: mirrorAt(dir, 'proc-out'),
      out: '/proc/ledger-recon-reports',
      env: simulatorSettings(),
    });
    expect(lines.find((line) => line.subject === '--out')).toEqual({
      ok: false,
      subject: '--out',
      text: expect.stringMatching(/^\/proc\/ledger-recon-reports: E[A-Z]+: give --out a folder you can write$/),
    });
  });
});

describe('a mirror changed by hand', () => {
  it('names a dropped table: doctor fails its integrity line, and a sync stops in one line saying what to do', async () => {
    const db = mirrorAt(dir, 'dropped');
    const env = simulatorEnv(sim);
    expect((await syncOf(sim, db)).ok).toBe(true);
    await changeMirror(db, 'DROP TABLE sync_checkpoints');
    const lines = await examine({ db, env });
    expect(lines.find((line) => line.subject === `mirror ${shownDb(db)}`)).toMatchObject({
      ok: false,
      text: expect.stringMatching(
        /integrity check failed \(the mirror lacks the table sync_checkpoints \(dropped or renamed by hand\?\)\)/,
      ),
    });
    const sync = await runCli(['sync', '--db', db], env);
    expect(sync.status).toBe(2);
    // The lists read before the missing table was needed say so above it; the last line names it.
    expect(sync.stderr.trimEnd().split('\n').at(-1)).toBe(
      'ledger-recon: the mirror lacks its table sync_checkpoints (dropped or renamed by hand?): ledger-recon doctor names what is missing; restore the mirror from a backup, or sync into a new one',
    );
  }, 60_000);
});
