import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { shownDb } from '../../src/db/location.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { mirrorAt, ON_POSTGRES } from '../support/test-db.js';
import { acceptAt, checkOf, failureOfJob, reportOf, syncOf } from '../support/app.js';
import { queryMirror } from '../../src/app/sql.js';
import { exportedFindings } from '../../src/app/check.js';
import { failureOf } from '../../src/app/failure.js';

let sim: Simulator;
let dir: string;
let db: string;
beforeAll(async () => {
  sim = await startSimulator({ seed: 61, size: 'tiny', plant: true });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cli-check-'));
  db = mirrorAt(dir);
  const synced = await syncOf(sim, db);
  if (!synced.ok) throw synced.error;
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ledger-recon check', () => {
  it('prints the verdict first, then counts by code, and exits 1 over planted breaks', async () => {
    const { status, stdout, stderr } = await runCli(['check', '--db', db], cleanEnv());
    expect(stderr).toBe('');
    expect(status).toBe(1);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^BREAKS {2}check run \d+ over sync 1 \(completed\), data as of /);
    expect(stdout).toContain('GC_CHAIN_GAP');
    expect(stdout).toMatch(/money at stake: .*USD/);
  });

  it('prints one JSON summary and writes the findings with DESIGN.md’s fields', async () => {
    const checked = await checkOf(db);
    const { summary } = checked;
    expect(summary).toMatchObject({ verdict: 'BREAKS', exitCode: 1 });
    const findings = exportedFindings(checked);
    expect(findings).toHaveLength(summary.findings);
    const gap = findings.find((f) => f.code === 'GC_CHAIN_GAP');
    expect(Object.keys(gap ?? {})).toEqual([
      'runId',
      'code',
      'severity',
      'entityType',
      'entityId',
      'giftCardId',
      'referenceId',
      'currency',
      'unit',
      'expected',
      'actual',
      'difference',
      'atStake',
      'message',
      'state',
      'firstSeenAt',
      'ageDays',
      'fingerprint',
      'records',
      'acceptedNote',
      'acceptedBy',
      'acceptedAt',
      'acceptedUntil',
      'acceptanceEnded',
      'dueAt',
      'overdue',
    ]);
    expect(gap).toMatchObject({
      severity: 'error',
      currency: 'USD',
      unit: 'USD',
      expected: '90.00',
      actual: '70.00',
      difference: '-20.00',
      atStake: '20.00',
      state: 'open',
      acceptedNote: null,
    });
    // Counts are not money: their unit says so.
    expect(findings.find((f) => f.code === 'CV_OVER_REDEEMED')).toMatchObject({ unit: 'count', atStake: null });
  });

  it('exits 0 with --fail-on never, and 2 where there is no mirror', async () => {
    expect((await checkOf(db, { failOn: 'never' })).summary.exitCode).toBe(0);
    const nowhere = mirrorAt(dir, 'empty');
    const empty = await failureOfJob(() => checkOf(nowhere));
    expect(empty.exitCode).toBe(2);
    expect(empty.line).toBe(`ledger-recon: there is no mirror at ${shownDb(nowhere)}: run \`ledger-recon sync\` first`);
  });

  // A file's own failure: a schema is never a file of the wrong kind.
  it.skipIf(ON_POSTGRES)(
    'exits 2 with one line naming the mirror and the cause when the file is no database',
    async () => {
      const garbage = join(dir, 'garbage.db');
      writeFileSync(garbage, 'this is not a database');
      const jobs = {
        check: () => checkOf(garbage),
        sync: () => syncOf(sim, garbage, { init: false }),
        report: () => reportOf(garbage, { outDir: join(dir, 'garbage-reports') }),
        sql: () => queryMirror('SELECT 1', { db: garbage }),
      };
      for (const [command, job] of Object.entries(jobs)) {
        const refused = await failureOfJob(job);
        expect(refused.exitCode, command).toBe(2);
        expect(refused.line, command).toBe(
          `ledger-recon: --db ${garbage}: not a mirror (the file is no SQLite database): give --db the mirror's file, e.g. ${join(dir, 'ledger.db')}`,
        );
      }
      // A file with SQLite's header and nothing SQLite can read after it: SQLite's own word.
      writeFileSync(garbage, `SQLite format 3\0${'this is not a database'.repeat(10)}`);
      const damaged = await failureOfJob(() => checkOf(garbage));
      expect(damaged.line).toBe(`ledger-recon: the mirror ${garbage} cannot be opened: file is not a database`);
    },
  );
});

describe('ledger-recon accept', () => {
  it('accepts a finding by fingerprint: the next check shows it accepted', async () => {
    const target = exportedFindings(await checkOf(db)).find((f) => f.code === 'DP_STUCK_ORDER');
    const accepted = await runCli(
      [
        'accept',
        target!.fingerprint,
        '--db',
        db,
        '--note',
        'partner confirmed the refund',
        '--by',
        'A. Auditor',
        '--until',
        '2099-01-31',
      ],
      cleanEnv(),
    );
    expect(accepted.stderr).toBe('');
    expect(accepted.status).toBe(0);
    expect(accepted.stdout).toMatch(
      /^accepted DP_STUCK_ORDER [0-9a-f]{16} by A\. Auditor until the end of 2099-01-31 \(UTC\)/,
    );
    expect(exportedFindings(await checkOf(db)).find((f) => f.fingerprint === target!.fingerprint)).toMatchObject({
      state: 'accepted',
      acceptedNote: 'partner confirmed the refund',
      acceptedBy: 'A. Auditor',
      acceptedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      acceptedUntil: '2099-02-01T00:00:00.000Z',
      acceptanceEnded: null,
    });
  });

  it('refuses an unknown fingerprint and a date already past, with exit 2', async () => {
    const refused = async (settings: { until?: string }) => {
      const error = await acceptAt(db, { fingerprint: '0123456789abcdef', note: 'x', by: 'me', ...settings }).catch(
        (caught: unknown) => caught,
      );
      return failureOf(error, []);
    };
    const unknown = await refused({});
    expect(unknown.exitCode).toBe(2);
    expect(unknown.line).toMatch(/no finding has the fingerprint 0123456789abcdef/);
    const past = await refused({ until: '2001-01-01' });
    expect(past.exitCode).toBe(2);
    expect(past.line).toMatch(/has already passed/);
  });
});
