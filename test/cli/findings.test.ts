/**
 * `ledger-recon findings list`: the newest complete run's findings, each with the fingerprint a
 * person accepts it by, filtered by code, severity and age, as a table or JSON; it records no
 * run; a record's ID from a service is printed escaped, never obeyed by the terminal. In-process
 * over the demo's mirror (the command's lines and exit code are the CLI's, tested in failures).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingsTable, listFindings, type FindingsListSettings } from '../../src/app/findings.js';
import { historyOf } from '../../src/app/history.js';
import { reconcile } from '../../src/findings/reconcile.js';
import { cents } from '../../src/money.js';
import { demoOf } from '../support/app.js';
import { cardLedger, FixtureMirror } from '../support/fixtures.js';
import { mirrorAt } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-findings-'));
  db = mirrorAt(dir, 'demo');
  await demoOf(db, join(dir, 'reports'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Listed {
  code: string;
  severity: string;
  fingerprint: string;
  ageDays: number;
  state: string;
}

/** What `findings list` prints (src/app/findings.ts: its JSON, or its table at full width), and what it lists. */
async function list(
  options: FindingsListSettings & { json?: boolean },
  at = db,
): Promise<{ text: string; listed: Listed[] }> {
  const found = await listFindings({ db: at, ...options });
  const text = options.json
    ? `${JSON.stringify(found.listed)}\n`
    : findingsTable(found, undefined)
        .map((line) => `${line}\n`)
        .join('');
  return { text, listed: found.listed as unknown as Listed[] };
}

const runs = () => historyOf({ db });

describe('findings list', () => {
  it('lists every finding of the newest run as JSON, worst first, and records no run', async () => {
    const before = await runs();
    const { text, listed } = await list({ json: true });
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(listed)));
    expect(listed).toHaveLength(before[0]!.findings);
    const ranks = listed.map((f) => ['error', 'warning', 'info'].indexOf(f.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(await runs()).toEqual(before);
  });

  it('filters by code, severity and age', async () => {
    const all = (await list({ json: true })).listed;
    const code = all[0]!.code;
    expect((await list({ json: true, code: code.toLowerCase() })).listed).toHaveLength(
      all.filter((f) => f.code === code).length,
    );
    expect((await list({ json: true, severity: 'warning' })).listed).toHaveLength(
      all.filter((f) => f.severity === 'warning').length,
    );
    expect((await list({ json: true, minAge: 1 })).listed).toEqual([]);
  });

  it('prints a table with the fingerprint accept takes, and a closing count', async () => {
    const { text, listed } = await list({});
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^fingerprint\s+code\s+severity\s+state\s+age\s+due\s+amount/);
    expect(lines[1]).toContain(listed[0]!.fingerprint);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^\\(${listed.length} findings of run 1; accept one with: ledger-recon accept FINGERPRINT --note "…"\\)$`,
      ),
    );
  });

  it('refuses an unknown code or severity, naming it', async () => {
    await expect(list({ code: 'NO_SUCH_CODE' })).rejects.toThrow(/^--code NO_SUCH_CODE is no check's code/);
    await expect(list({ severity: 'fatal' })).rejects.toThrow(/^--severity must be one of error, warning, info$/);
  });

  it("prints a service's record ID escaped: a clear-screen, an OSC 52 clipboard write and a bell never reach the terminal", async () => {
    const hostile = 'card-\u001b[2J\u001b]52;c;ZXZpbA==\u0007\u009b31m';
    const at = mirrorAt(dir, 'hostile');
    const fx = await FixtureMirror.open(at);
    // The service says 9,000 where its own ledger says 7,000: a finding about this card.
    fx.ledger(
      cardLedger(10_000, [{ type: 'DEBIT', amount: 3_000, ref: 'R1' }], {
        giftCardId: hostile,
        remainingCents: cents(9_000),
      }),
    );
    fx.sync();
    await reconcile({ nowMs: testNow(), mirror: fx.mirror });
    await fx.close();
    const { text } = await list({}, at);
    expect(text).toContain('card-\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u009b31m');
    expect(text).not.toMatch(/[\u001b\u0007\u009b]/);
  });
});
