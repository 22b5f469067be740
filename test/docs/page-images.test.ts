/**
 * docs/night-page.png and docs/fleet-page.png, docs/control-room.md's pictures, show the pages
 * the demo makes now: the headings recorded beside them (docs/pages.txt, written with the
 * pictures by `npm run docs:pages`) are the headings of the demo's night page and of the fleet
 * page over its mirror today. A new section or column fails here until the pictures are made again.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repository's, without types
import { pageLabels } from '../../scripts/page-labels.mjs';
import { fleetOf } from '../../src/app/fleet.js';
import { fleetPage } from '../../src/app/fleet-page.js';
import { demoOf, testClock } from '../support/app.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-page-images-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("shows the pages' headings as the demo's pages have them today (else: npm run docs:pages)", async () => {
  const db = join(dir, 'demo', 'ledger.db');
  const { result } = await demoOf(db, join(dir, 'reports'));
  if (!result.ok) throw new Error('the demo failed');
  const fleet = await fleetOf(testClock, { mirrors: [db], lateAfterHours: 26 });
  const labels = [
    '# night page',
    ...(pageLabels(readFileSync(result.record.report.page, 'utf8')) as string[]),
    '# fleet page',
    ...(pageLabels(fleetPage(fleet)) as string[]),
  ];
  const pictured = readFileSync(new URL('../../docs/pages.txt', import.meta.url), 'utf8')
    .trimEnd()
    .split('\n');
  expect(labels, 'docs/night-page.png or docs/fleet-page.png lags its page: run npm run docs:pages').toEqual(pictured);
}, 60_000);
