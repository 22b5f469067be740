/**
 * docs/summary.png, the README's picture of the Summary, shows the Summary the demo makes now:
 * the labels recorded beside it (docs/summary.txt, written with the picture by
 * `npm run docs:image`) are the labels of the demo workbook's Summary today. A new line on the
 * Summary (the Evidence and the Ledger population were missing from the picture) fails here
 * until the picture is made again.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repository's, without types
import { summaryLabels } from '../../scripts/summary-labels.mjs';
import { demoOf } from '../support/app.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-summary-image-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("shows the Summary's labels as the demo's workbook has them today (else: npm run docs:image)", async () => {
  const out = join(dir, 'reports');
  await demoOf(join(dir, 'demo', 'ledger.db'), out);
  const workbook = readdirSync(out).find((name) => name.endsWith('.xlsx'));
  const labels = (await summaryLabels(join(out, workbook ?? 'missing.xlsx'))) as string[];
  const pictured = readFileSync(new URL('../../docs/summary.txt', import.meta.url), 'utf8')
    .trimEnd()
    .split('\n');
  expect(labels, 'docs/summary.png lags the Summary: run npm run docs:image').toEqual(pictured);
}, 60_000);
