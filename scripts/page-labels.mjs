// The headings of a page ledger-recon writes (its h2 titles, its tables' captions and column
// heads), digits set aside: scripts/page-images.mjs writes them to docs/pages.txt beside the
// pictures of the demo's night page and fleet page, and test/docs/page-images.test.ts holds the
// pictures to the pages the demo makes now, so docs/control-room.md never shows a page that lags.
//   node scripts/page-labels.mjs reports/demo/ledger-recon-….html
import { readFileSync } from 'node:fs';

const plain = (html) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * A page's headings, each once, in order, each run of digits written N; a caption naming a span
 * of time (a month to date's: the night's own) left out.
 */
export function pageLabels(html) {
  const labels = [];
  for (const [, tag, body] of html.matchAll(/<(h1|h2|caption|th)[^>]*>([\s\S]*?)<\/\1>/g)) {
    const label = `${tag}: ${plain(body).replace(/\d+/g, 'N')}`;
    if (tag !== 'h1' && !label.includes(' UTC') && !labels.includes(label)) labels.push(label);
  }
  return labels;
}

if (process.argv[2]) process.stdout.write(`${pageLabels(readFileSync(process.argv[2], 'utf8')).join('\n')}\n`);
