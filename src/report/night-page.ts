/**
 * The night's page (`…-run-N.html`): one self-contained file that opens from a folder or an
 * e-mail and asks nothing of the network. It writes the night's view (night-view.ts) as tables,
 * and draws its charts with Chart.js, inlined; every chart has its table beside it, for screen
 * readers and for paper (A4). The page computes no figure: the charts plot the view's decimal text.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { groupThousands } from '../money.js';
import type { NightAtAGlance } from './night-view.js';

let chartLibrary: string | undefined;

/** Chart.js's browser build, as shipped (its licence header kept), without the map a page could not fetch anyway. */
function chartJs(): string {
  if (chartLibrary === undefined) {
    const main = createRequire(import.meta.url).resolve('chart.js');
    const text = readFileSync(join(dirname(main), 'chart.umd.min.js'), 'utf8');
    chartLibrary = text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  }
  return chartLibrary;
}

/** Text as HTML shows it, never as markup: a merchant's name or a record's ID can hold anything. */
function text(value: string | number): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A decimal amount as the tables write it: thousands grouped, "none" and absent figures as they are. */
function amount(value: string | null): string {
  if (value === null) return '—';
  return /^-?\d+\.\d{2}$/.test(value) ? groupThousands(value) : text(value);
}

const day = (instant: string) => instant.slice(0, 10);
const minute = (instant: string) => `${instant.slice(0, 16).replace('T', ' ')} UTC`;

function table(caption: string, heads: string[], rows: string[][], numeric: (column: number) => boolean): string {
  const cell = (value: string, column: number) => `<td${numeric(column) ? ' class="n"' : ''}>${value}</td>`;
  return `<table><caption>${text(caption)}</caption>
<thead><tr>${heads.map((h) => `<th scope="col">${text(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('\n')}</tbody></table>`;
}

/** A chart's canvas and its table, one figure: the canvas is described, the table states every figure drawn. */
function figure(id: string, label: string, tableHtml: string, height = 220): string {
  return `<figure><canvas id="${id}" width="680" height="${height}" role="img" aria-label="${text(label)}">${text(label)}: see the table below.</canvas>
${tableHtml}</figure>`;
}

const CSS = `
  body { font: 13px/1.4 system-ui, sans-serif; margin: 16px auto; max-width: 720px; color: #111; }
  h1 { font-size: 19px; margin: 0 0 4px; }
  h2 { font-size: 15px; margin: 22px 0 6px; border-bottom: 1px solid #999; break-after: avoid; }
  h2.overdue { color: #a00; border-color: #a00; }
  p { margin: 4px 0; }
  .verdict { font-weight: bold; padding: 1px 6px; }
  .RECONCILED { background: #d7f0d7; } .BREAKS { background: #ffd9d2; } .INCOMPLETE { background: #ffe9b3; }
  table { border-collapse: collapse; margin: 6px 0 10px; width: 100%; }
  td { overflow-wrap: anywhere; }
  caption { text-align: left; font-weight: 600; padding: 2px 0; }
  th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; vertical-align: top; }
  th { background: #eee; }
  td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  figure { margin: 0 0 8px; break-inside: avoid-page; }
  canvas { display: block; width: 680px; max-width: 100%; }
  table.long { font-size: 11px; }
  footer { margin-top: 24px; font-size: 11px; color: #555; }
  @page { size: A4; margin: 12mm; }
  @media print { body { margin: 0; max-width: none; font-size: 10px; } h2 { margin-top: 12px; } thead { display: table-header-group; } tr { break-inside: avoid; } }
`;

/** Draws every chart from the view in the page; sets `data-charts` on the body to how many it drew. */
const DRAW = `
(() => {
  const view = JSON.parse(document.getElementById('night-view').textContent);
  Chart.defaults.animation = false;
  Chart.defaults.responsive = false;
  Chart.defaults.devicePixelRatio = 2;
  Chart.defaults.font.size = 11;
  const colours = ['#1f5fa8', '#c0392b', '#2e8b57', '#8e44ad', '#d68910', '#17817b'];
  const severity = { error: '#c0392b', warning: '#d68910', info: '#8a8f98' };
  let drawn = 0;
  const draw = (id, config) => { new Chart(document.getElementById(id), config); drawn += 1; };
  const nights = view.trend.map((n) => n.asOf.slice(0, 10) + ' #' + n.runId);
  const currencies = [...new Set(view.trend.flatMap((n) => Object.keys(n.liability)))].sort();
  draw('chart-liability', { type: 'line', data: { labels: nights, datasets: currencies.map((c, i) => ({
    label: c, data: view.trend.map((n) => n.liability[c] ?? null), borderColor: colours[i % colours.length],
    backgroundColor: colours[i % colours.length], pointRadius: view.trend.length > 31 ? 0 : 2, spanGaps: false })) },
    options: { plugins: { title: { display: true, text: 'Gift card liability per currency' } } } });
  draw('chart-severity', { type: 'bar', data: { labels: nights, datasets: ['error', 'warning', 'info'].map((s) => ({
    label: s, data: view.trend.map((n) => n.bySeverity[s]), backgroundColor: severity[s] })) },
    options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } },
      plugins: { title: { display: true, text: 'Findings per severity' } } } });
  draw('chart-age', { type: 'bar', data: { labels: view.openBreaks.map((b) => b.bucket),
    datasets: [{ label: 'open breaks', data: view.openBreaks.map((b) => b.breaks), backgroundColor: '#c0392b' }] },
    options: { scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      plugins: { title: { display: true, text: 'Open breaks by age' } } } });
  view.waterfalls.forEach((w, i) => draw('chart-waterfall-' + i, { type: 'bar', data: {
    labels: w.steps.map((s) => s.label),
    datasets: [{ label: w.currency, data: w.steps.map((s) => [s.from, s.to]),
      backgroundColor: w.steps.map((s) => ({ up: '#2e8b57', down: '#c0392b', total: '#1f5fa8' })[s.direction]) }] },
    options: { plugins: { legend: { display: false }, title: { display: true,
      text: 'Month to date, ' + w.currency + (w.program ? ' (' + w.program + ')' : '') } } } }));
  document.body.dataset.charts = String(drawn);
})();
`;

/** The night's page: the view's figures as tables, its charts drawn by the inlined Chart.js. */
export function nightPage(view: NightAtAGlance): string {
  const severities = ['error', 'warning', 'info'] as const;
  const nights = `${view.trend.length} ${view.trend.length === 1 ? 'night' : 'nights'}`;
  // The view as the script reads it; `<` escaped so no text in it can end the script element.
  const data = JSON.stringify(view).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(view.title)}</title>
<style>${CSS}</style></head>
<body>
<h1>${text(view.merchant)} — ${text(minute(view.asOf))}</h1>
<p><span class="verdict ${text(view.verdict)}">${text(view.verdict)}</span> Run ${view.runId}, cut-off ${text(minute(view.asOf))}, started ${text(minute(view.startedAt))}.
${view.findings} ${view.findings === 1 ? 'finding' : 'findings'}: ${severities.map((s) => `${view.bySeverity[s]} ${s}`).join(', ')}${view.overdue !== null ? `; ${view.overdue} overdue` : ''}.</p>
${overdueSection(view)}
${currencySection(view)}
<h2>Since the night before</h2>
${sinceSection(view)}
<h2>Largest findings</h2>
${largestSection(view)}
<h2>Open breaks by age</h2>
${ageSection(view)}
<h2>Liability over the last ${nights}</h2>
${liabilitySection(view)}
<h2>Findings per severity over the last ${nights}</h2>
${severitySection(view)}
<h2>The month's roll-forward</h2>
${waterfallSection(view)}
<footer>${text(view.title)} · written by ledger-recon from the mirror; the workbook beside it is the signed record.</footer>
<script type="application/json" id="night-view">${data}</script>
<script>${chartJs()}</script>
<script>${DRAW}</script>
</body></html>
`;
}

/** The longest overdue findings, leading the page when there are any. */
function overdueSection(view: NightAtAGlance): string {
  if (view.overdueFindings.length === 0) return '';
  const more = (view.overdue ?? 0) - view.overdueFindings.length;
  return `<h2 class="overdue">Overdue: ${view.overdue} ${view.overdue === 1 ? 'finding' : 'findings'} past their due time</h2>
${table(
  `The ${view.overdueFindings.length} longest overdue${more > 0 ? ` (${more} more in the workbook's Findings, marked OVERDUE)` : ''}`,
  ['finding', 'about', 'severity', 'at stake', 'due', 'first seen'],
  view.overdueFindings.map((f) => [
    `${text(f.title)} <small>(${text(f.code)})</small>`,
    text(f.about),
    text(f.severity),
    `${text(f.currency ?? '')} ${amount(f.atStake)}`,
    text(minute(f.dueAt)),
    text(day(f.firstSeenAt)),
  ]),
  (column) => column === 3,
)}`;
}

/** Per currency: the liability, the money at stake ("none" where clean), whether the roll-forward closes. */
function currencySection(view: NightAtAGlance): string {
  return table(
    'Per currency',
    ['currency', 'gift card liability', 'money at stake', 'roll-forward'],
    view.currencies.map((c) => [
      text(c.currency),
      amount(c.liability),
      amount(c.atStake),
      c.closes
        ? 'closes'
        : `does not close by ${amount(c.difference)}${c.month ? `<br><small>= ${amount(c.month.cardsLessFlows)} cards − flows this month, ${amount(c.month.serviceLessCards)} service − cards, ${amount(c.month.betweenOpenings)} between the month's opening and the night's</small>` : ''}`,
    ]),
    (column) => column === 1 || column === 2,
  );
}

/** The findings that put the most money at stake, in words. */
function largestSection(view: NightAtAGlance): string {
  return view.largest.length === 0
    ? '<p>No open finding puts money at stake.</p>'
    : table(
        `The ${view.largest.length} open findings that put the most money at stake`,
        ['finding', 'about', 'severity', 'at stake', 'first seen'],
        view.largest.map((f) => [
          `${text(f.title)} <small>(${text(f.code)})</small>`,
          text(f.about),
          text(f.severity),
          `${text(f.currency ?? '')} ${amount(f.atStake)}`,
          text(day(f.firstSeenAt)),
        ]),
        (column) => column === 3,
      );
}

/** Open breaks by age at the cut-off, and the oldest. */
function ageSection(view: NightAtAGlance): string {
  return `<p>${view.oldestBreak ? `The oldest: ${text(view.oldestBreak.title)} (${text(view.oldestBreak.code)}), open ${view.oldestBreak.ageHours} h, since ${text(day(view.oldestBreak.firstSeenAt))}.` : 'No break is open.'}</p>
${figure(
  'chart-age',
  'Open breaks by age',
  table(
    'Open breaks by age at the cut-off',
    ['age', 'open breaks', 'money at stake'],
    view.openBreaks.map((b) => [
      text(b.bucket),
      String(b.breaks),
      Object.entries(b.atStake)
        .map(([c, v]) => `${text(c)} ${amount(v)}`)
        .join('<br>') || 'none',
    ]),
    (column) => column > 0,
  ),
)}`;
}

/** The liability per currency, night by night. */
function liabilitySection(view: NightAtAGlance): string {
  const currencies = [...new Set(view.trend.flatMap((n) => Object.keys(n.liability)))].sort();
  return figure(
    'chart-liability',
    'Gift card liability per currency, night by night',
    `<div class="long">${table(
      'Gift card liability per night',
      ['night', 'run', 'verdict', ...currencies],
      view.trend.map((n) => [
        text(day(n.asOf)),
        String(n.runId),
        text(n.verdict),
        ...currencies.map((c) => amount(n.liability[c] ?? null)),
      ]),
      (column) => column === 1 || column > 2,
    ).replace('<table>', '<table class="long">')}</div>`,
  );
}

/** The findings per severity, night by night. */
function severitySection(view: NightAtAGlance): string {
  const severities = ['error', 'warning', 'info'] as const;
  return figure(
    'chart-severity',
    'Findings per severity, night by night',
    table(
      'Findings per severity per night',
      ['night', 'run', ...severities],
      view.trend.map((n) => [text(day(n.asOf)), String(n.runId), ...severities.map((s) => String(n.bySeverity[s]))]),
      (column) => column > 0,
    ).replace('<table>', '<table class="long">'),
  );
}

/** The month to date's roll-forward per currency and program, as waterfalls. */
function waterfallSection(view: NightAtAGlance): string {
  return view.waterfalls.length === 0
    ? '<p>This run kept no month to date (a run recorded before it was kept, or a cut-off on the first instant of a month).</p>'
    : view.waterfalls
        .map((w, i) =>
          figure(
            `chart-waterfall-${i}`,
            `Month to date ${w.currency}${w.program ? ` (${w.program})` : ''} as a waterfall`,
            table(
              `${w.currency}${w.program ? ` (${w.program})` : ''}: ${minute(w.from)} to ${minute(w.to)}, ${w.closes ? 'closes' : `does not close by ${w.difference}`}`,
              ['step', 'amount', 'running total'],
              w.steps.map((s) => [
                text(s.label),
                `${{ up: '+ ', down: '− ', total: '' }[s.direction]}${amount(s.amount)}`,
                amount(s.to),
              ]),
              (column) => column > 0,
            ),
          ),
        )
        .join('\n');
}
/** What changed since the night before, as both nights recorded it. */
function sinceSection(view: NightAtAGlance): string {
  const since = view.since;
  if (!since) return '<p>This is the first night on record.</p>';
  const parts = [
    `<p>Against run ${since.previousRunId} (cut-off ${text(minute(since.previousAsOf))}): verdict ${text(since.verdictBefore)} → ${text(view.verdict)}; ${since.new} new, ${since.resolved} resolved, ${since.acceptancesEnded} ${since.acceptancesEnded === 1 ? 'acceptance' : 'acceptances'} ended.</p>`,
    table(
      'Money before and now',
      ['currency', 'liability before', 'liability now', 'at stake before', 'at stake now'],
      [...new Set([...since.liability.map((l) => l.currency), ...since.atStake.map((s) => s.currency)])]
        .sort()
        .map((currency) => {
          const l = since.liability.find((x) => x.currency === currency);
          const s = since.atStake.find((x) => x.currency === currency);
          return [
            text(currency),
            amount(l?.before ?? null),
            amount(l?.now ?? null),
            amount(s?.before ?? 'none'),
            amount(s?.now ?? 'none'),
          ];
        }),
      (column) => column > 0,
    ),
  ];
  if (since.codes.length > 0)
    parts.push(
      table(
        'Findings per check, where the count moved',
        ['check', 'before', 'now'],
        since.codes.map((c) => [`${text(c.title)} <small>(${text(c.code)})</small>`, String(c.before), String(c.now)]),
        (column) => column > 0,
      ),
    );
  return parts.join('\n');
}
