import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportedFinding } from '../../src/findings/finding.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { shownDb } from '../../src/db/location.js';
import { cleanEnv, runCli, simulatorEnv } from '../support/cli.js';
import { mirrorAt, ON_POSTGRES } from '../support/test-db.js';

let sim: Simulator;
let dir: string;
let db: string;
beforeAll(async () => {
  sim = await startSimulator({ seed: 61, size: 'tiny', plant: true });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cli-check-'));
  db = mirrorAt(dir);
  const synced = await runCli(['sync', '--db', db, '--json'], simulatorEnv(sim));
  if (synced.status !== 0) throw new Error(synced.stderr);
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
    const file = join(dir, 'findings.json');
    const { status, stdout } = await runCli(['check', '--db', db, '--json', '--findings-json', file], cleanEnv());
    expect(status).toBe(1);
    const summary = JSON.parse(stdout) as {
      verdict: string;
      findings: number;
      bySeverity: Record<string, number>;
      exitCode: number;
    };
    expect(summary).toMatchObject({ verdict: 'BREAKS', exitCode: 1 });
    const findings = JSON.parse(readFileSync(file, 'utf8')) as ExportedFinding[];
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
    expect((await runCli(['check', '--db', db, '--fail-on', 'never', '--json'], cleanEnv())).status).toBe(0);
    const nowhere = mirrorAt(dir, 'empty');
    const empty = await runCli(['check', '--db', nowhere], cleanEnv());
    expect(empty.status).toBe(2);
    expect(empty.stderr).toBe(
      `ledger-recon: there is no mirror at ${shownDb(nowhere)}: run \`ledger-recon sync\` first\n`,
    );
  });

  // A file's own failure: a schema is never a file of the wrong kind.
  it.skipIf(ON_POSTGRES)(
    'exits 2 with one line naming the mirror and the cause when the file is no database',
    async () => {
      const garbage = join(dir, 'garbage.db');
      writeFileSync(garbage, 'this is not a database');
      for (const args of [['check'], ['sync'], ['report'], ['sql', 'SELECT 1']]) {
        const { status, stderr } = await runCli([...args, '--db', garbage], simulatorEnv(sim));
        expect(status, args[0]).toBe(2);
        expect(stderr, args[0]).toBe(
          `ledger-recon: --db ${garbage}: not a mirror (the file is no SQLite database): give --db the mirror's file, e.g. ${join(dir, 'ledger.db')}\n`,
        );
      }
      // A file with SQLite's header and nothing SQLite can read after it: SQLite's own word.
      writeFileSync(garbage, `SQLite format 3\0${'this is not a database'.repeat(10)}`);
      const damaged = await runCli(['check', '--db', garbage], simulatorEnv(sim));
      expect(damaged.stderr).toBe(`ledger-recon: the mirror ${garbage} cannot be opened: file is not a database\n`);
    },
  );
});

describe('ledger-recon accept', () => {
  it('accepts a finding by fingerprint: the next check shows it accepted', async () => {
    const file = join(dir, 'before.json');
    await runCli(['check', '--db', db, '--findings-json', file, '--json'], cleanEnv());
    const target = (JSON.parse(readFileSync(file, 'utf8')) as ExportedFinding[]).find(
      (f) => f.code === 'DP_STUCK_ORDER',
    );
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
    const after = join(dir, 'after.json');
    await runCli(['check', '--db', db, '--findings-json', after, '--json'], cleanEnv());
    expect(
      (JSON.parse(readFileSync(after, 'utf8')) as ExportedFinding[]).find((f) => f.fingerprint === target!.fingerprint),
    ).toMatchObject({
      state: 'accepted',
      acceptedNote: 'partner confirmed the refund',
      acceptedBy: 'A. Auditor',
      acceptedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      acceptedUntil: '2099-02-01T00:00:00.000Z',
      acceptanceEnded: null,
    });
  });

  it('refuses an unknown fingerprint and a date already past, with exit 2', async () => {
    const unknown = await runCli(['accept', '0123456789abcdef', '--db', db, '--note', 'x'], cleanEnv());
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/no finding has the fingerprint 0123456789abcdef/);
    const past = await runCli(
      ['accept', '0123456789abcdef', '--db', db, '--note', 'x', '--until', '2001-01-01'],
      cleanEnv(),
    );
    expect(past.status).toBe(2);
    expect(past.stderr).toMatch(/has already passed/);
  });
});
