/**
 * A night's page (src/report/night-page.ts) read back as a reader sees its tables, and held
 * against the night's JSON record: the figures each table states are the record's.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { RunSummary } from '../../src/app/night.js';
import type { NightAtAGlance } from '../../src/report/night-view.js';

/** A page's tables by caption: each row's cells as text, tags stripped and entities read. */
export interface ReadPage {
  html: string;
  heading: string;
  view: NightAtAGlance;
  tables: Map<string, string[][]>;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };
const plain = (html: string): string =>
  html
    .replace(/<br>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot);/g, (e) => ENTITIES[e] ?? e)
    .trim();

/** The page at `path`, its tables read as text. */
export function readPage(path: string): ReadPage {
  const html = readFileSync(path, 'utf8');
  const tables = new Map<string, string[][]>();
  for (const [, body = ''] of html.matchAll(/<table[^>]*>([\s\S]*?)<\/table>/g)) {
    const caption = plain(/<caption>([\s\S]*?)<\/caption>/.exec(body)?.[1] ?? '');
    const rows = [...(/<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(
      ([, row = '']) => [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell = '']) => plain(cell)),
    );
    tables.set(caption, rows);
  }
  const json = /<script type="application\/json" id="night-view">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (json === undefined) throw new Error(`${path} holds no night view`);
  return { html, heading: plain(/<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? ''), view: JSON.parse(json), tables };
}

/** A grouped decimal as the JSON states it: `1,234.50` → `1234.50`. */
const ungrouped = (text: string): string => text.replace(/,/g, '');

/** A table the page must have. */
export function tableOf(page: ReadPage, caption: string): string[][] {
  const rows = page.tables.get(caption);
  if (!rows) throw new Error(`the page has no table "${caption}"; it has ${[...page.tables.keys()].join(' | ')}`);
  return rows;
}

/**
 * The figures of the night's page equal its JSON record: the verdict, per currency the liability
 * and the money at stake ("none" where clean), the findings per severity, this night's line of
 * each trend, and what changed since the night before.
 */
export function expectPageOfRecord(path: string, record: RunSummary, nightsOnRecord: number): ReadPage {
  const page = readPage(path);
  expect(page.view.runId).toBe(record.runId);
  expect(page.view.verdict).toBe(record.verdict);
  expect(page.html).toContain(`<span class="verdict ${record.verdict}">${record.verdict}</span>`);
  const currencies = [...new Set([...Object.keys(record.liability), ...Object.keys(record.moneyAtStake)])].sort();
  expect(
    tableOf(page, 'Per currency').map(([currency = '', liability = '', atStake = '']) => [
      currency,
      ungrouped(liability),
      ungrouped(atStake),
    ]),
  ).toEqual(currencies.map((c) => [c, record.liability[c]?.cardsRemaining ?? '—', record.moneyAtStake[c] ?? 'none']));
  const severities = tableOf(page, 'Findings per severity per night');
  expect(severities).toHaveLength(Math.min(nightsOnRecord, 90));
  expect(severities.at(-1)).toEqual([
    record.asOf.slice(0, 10),
    String(record.runId),
    String(record.bySeverity.error),
    String(record.bySeverity.warning),
    String(record.bySeverity.info),
  ]);
  const liability = tableOf(page, 'Gift card liability per night');
  expect(liability).toHaveLength(Math.min(nightsOnRecord, 90));
  const trendCurrencies = [...new Set(page.view.trend.flatMap((n) => Object.keys(n.liability)))].sort();
  expect(liability.at(-1)?.slice(3).map(ungrouped)).toEqual(
    trendCurrencies.map((c) => record.liability[c]?.cardsRemaining ?? '—'),
  );
  // The overdue lead the page, the longest overdue first, as many as the record counts (at most 20 listed).
  const overdue = record.overdue ?? 0;
  expect(page.view.overdueFindings).toHaveLength(Math.min(overdue, 20));
  if (overdue > 0) {
    expect(page.html).toContain(`Overdue: ${overdue} ${overdue === 1 ? 'finding' : 'findings'} past their due time`);
    expect(page.html.indexOf('class="overdue"')).toBeLessThan(page.html.indexOf('<caption>Per currency'));
    const dues = page.view.overdueFindings.map((f) => f.dueAt);
    expect(dues).toEqual([...dues].sort());
  } else expect(page.html).not.toContain('class="overdue"');
  const breaks = tableOf(page, 'Open breaks by age at the cut-off');
  const open = breaks.reduce((n, [, count = '0']) => n + Number(count), 0);
  expect(open).toBe(record.bySeverity.error + record.bySeverity.warning - record.accepted);
  if (nightsOnRecord > 1) {
    expect(page.view.since).not.toBeNull();
    expect(page.html).toContain(`${record.new} new, ${record.resolved} resolved`);
  } else expect(page.html).toContain('This is the first night on record.');
  return page;
}

/** Text that reads as markup, a script and a request, where a service or a setting gives text. */
export const HOSTILE = `</script><script>alert(1)</script><img src=x onerror="fetch('https://evil.example')">&amp;`;

/** A night's view whose every text from outside is hostile: two nights, one overdue break, a waterfall. */
export const HOSTILE_VIEW: NightAtAGlance = {
  title: `${HOSTILE} — 2026-11-18 09:30 UTC — BREAKS, run 2`,
  merchant: HOSTILE,
  merchantId: 'm-1',
  runId: 2,
  verdict: 'BREAKS',
  exitCode: 1,
  startedAt: '2026-11-18T09:30:00.000Z',
  asOf: '2026-11-18T09:29:00.000Z',
  findings: 1,
  bySeverity: { error: 1, warning: 0, info: 0 },
  overdue: 1,
  overdueFindings: [
    {
      code: 'GC_BALANCE_MISMATCH',
      severity: 'error',
      title: 'Balance does not follow from the ledger',
      about: `card ${HOSTILE}`,
      currency: 'USD',
      atStake: '12.00',
      stakeCents: 1200,
      firstSeenAt: '2026-11-14T09:30:00.000Z',
      dueAt: '2026-11-17T09:30:00.000Z',
    },
  ],
  currencies: [
    {
      currency: 'USD',
      liability: '1234567.89',
      atStake: '12.00',
      closes: false,
      difference: '-12.00',
      month: { cardsLessFlows: '0.00', serviceLessCards: '5.00', betweenOpenings: '-17.00' },
    },
  ],
  trend: [
    {
      runId: 1,
      asOf: '2026-11-17T09:29:00.000Z',
      verdict: 'RECONCILED',
      liability: { USD: '1234000.00' },
      bySeverity: { error: 0, warning: 0, info: 0 },
    },
    {
      runId: 2,
      asOf: '2026-11-18T09:29:00.000Z',
      verdict: 'BREAKS',
      liability: { USD: '1234567.89' },
      bySeverity: { error: 1, warning: 0, info: 0 },
    },
  ],
  openBreaks: [{ bucket: '3–7 d', breaks: 1, atStake: { USD: '12.00' } }],
  oldestBreak: {
    code: 'GC_BALANCE_MISMATCH',
    title: 'Balance does not follow from the ledger',
    firstSeenAt: '2026-11-14T09:30:00.000Z',
    ageHours: 96,
  },
  waterfalls: [
    {
      currency: 'USD',
      program: HOSTILE,
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-18T09:29:00.000Z',
      steps: [{ label: 'opening', direction: 'total', amount: '1234000.00', from: '0.00', to: '1234000.00' }],
      difference: '-12.00',
      closes: false,
    },
  ],
  largest: [],
  since: null,
};
