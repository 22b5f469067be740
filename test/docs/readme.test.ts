/**
 * The README's worked examples hold: each `ledger-recon sql` block that shows its output (lines
 * starting `# ` under the command) prints that output over the demo's mirror, in-process.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryMirror } from '../../src/app/sql.js';
import { demoOf } from '../support/app.js';
import { mirrorAt } from '../support/test-db.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Each shown `ledger-recon sql --db data/demo/ledger.db "…"` with the table shown under it. */
const examples = [...README.matchAll(/^ledger-recon sql --db data\/demo\/ledger\.db "([^"]+)"\n((?:# .*\n)+)/gm)].map(
  (match) => ({ statement: match[1] ?? '', shown: (match[2] ?? '').replace(/^# /gm, '') }),
);

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-readme-'));
  db = mirrorAt(dir, 'demo');
  await demoOf(db, join(dir, 'reports'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's sql examples", () => {
  it('are there', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('prints what the README shows for $statement', async ({ statement, shown }) => {
    const printed = (await queryMirror(statement, { db, format: 'table' })).text;
    expect(printed.split('\n').map((line) => line.trimEnd())).toEqual(shown.split('\n').map((line) => line.trimEnd()));
  });
});
