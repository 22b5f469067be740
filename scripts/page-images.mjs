// Pictures of the demo's night page and of the fleet page for docs/control-room.md, as a finance
// lead sees them in a browser: the demo, `fleet` over its mirror, then Debian's Chromium
// (headless, through playwright-core) takes the top of each page. The pages' headings go to
// docs/pages.txt, which test/docs/page-images.test.ts holds to the pages the demo makes now.
// Needs the Debian package chromium. Run: npm run docs:pages
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { pageLabels } from './page-labels.mjs';

const work = mkdtempSync(join(tmpdir(), 'ledger-recon-page-images-'));
try {
  const cli = (...args) => spawnSync(process.execPath, ['dist/cli/main.js', ...args], { encoding: 'utf8' });
  cli('demo', '--db', join(work, 'demo.db'), '--out', join(work, 'reports'));
  cli('fleet', join(work, 'demo.db'), '--out', join(work, 'fleet'));
  const night = join(
    work,
    'reports',
    readdirSync(join(work, 'reports')).find((name) => name.endsWith('.html')),
  );
  const fleet = join(
    work,
    'fleet',
    readdirSync(join(work, 'fleet')).find((name) => name.endsWith('.html')),
  );
  const executablePath = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    for (const [file, picture, viewport] of [
      [night, 'docs/night-page.png', { width: 760, height: 1300 }],
      [fleet, 'docs/fleet-page.png', { width: 1280, height: 230 }],
    ]) {
      const page = await browser.newPage({ viewport });
      await page.goto(pathToFileURL(file).href);
      await page.screenshot({ path: picture });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  const labels = (file) => pageLabels(readFileSync(file, 'utf8'));
  writeFileSync('docs/pages.txt', ['# night page', ...labels(night), '# fleet page', ...labels(fleet), ''].join('\n'));
  console.log('docs/night-page.png docs/fleet-page.png docs/pages.txt');
} finally {
  rmSync(work, { recursive: true, force: true });
}
