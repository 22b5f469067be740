/**
 * The fleet as one self-contained page (no script, no request leaves it: it opens from a folder or
 * an e-mail and prints on A4): a line saying how many merchants need a person, then a row per
 * merchant, worst first, with the figures of the fleet's JSON.
 */
import { AGE_BUCKETS } from '../findings/age.js';
import { join } from 'node:path';
import { groupThousands } from '../money.js';
import { ensureFolder, writeAtomically } from '../paths.js';
import { type Fleet, type MerchantRow, needsAttention } from './fleet.js';

/** Text as HTML shows it, never as markup: a mirror's name or a message can hold anything. */
function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Money per currency as one cell's lines: `USD 12.00`, or "none". */
function money(amounts: Record<string, string>): string {
  const lines = Object.entries(amounts).map(
    ([currency, amount]) => `${text(currency)} ${text(groupThousands(amount))}`,
  );
  return lines.length > 0 ? lines.join('<br>') : 'none';
}

const CSS = `
  body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #111; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  p.lead { margin: 0 0 12px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { border: 1px solid #bbb; padding: 3px 5px; vertical-align: top; text-align: left; }
  th { background: #eee; }
  td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  tr.attention td.standing { background: #fdd; font-weight: bold; }
  tr.breaks td.standing { background: #ffe9b3; }
  tr.reconciled td.standing { background: #dfd; }
  @page { size: A4 landscape; margin: 10mm; }
  @media print { body { margin: 0; font-size: 9px; } thead { display: table-header-group; } tr { break-inside: avoid; } }
`;

/** A merchant's row of cells. */
function row(m: MerchantRow, attention: boolean): string {
  const night = m.lastNight
    ? `run ${m.lastNight.runId}: ${text(m.lastNight.verdict)}<br>${text(m.lastNight.startedAt.replace('T', ' ').slice(0, 16))} UTC (${m.lastNight.hoursAgo} h ago)`
    : '—';
  const buckets = AGE_BUCKETS.map(({ label }) => {
    const bucket = m.openBreaks.find((b) => b.bucket === label);
    return `<td class="n">${bucket && bucket.breaks > 0 ? `${bucket.breaks}<br>${money(bucket.atStake)}` : '0'}</td>`;
  }).join('');
  const oldest = m.oldestBreak
    ? `${text(m.oldestBreak.code)}<br>${m.oldestBreak.ageHours} h, since ${text(m.oldestBreak.firstSeenAt.slice(0, 10))}`
    : '—';
  return `<tr class="${attention ? 'attention' : text(m.standing)}">
  <td>${text(m.mirror)}${m.merchantId ? `<br><small>merchant ${text(m.merchantId)}</small>` : ''}</td>
  <td class="standing">${text(m.standing.toUpperCase())}${m.problem ? `<br><small>${text(m.problem)}</small>` : ''}</td>
  <td>${night}</td><td class="n">${m.overdue}</td>${buckets}<td>${oldest}</td>
  <td class="n">${money(m.moneyAtStake)}</td><td class="n">${money(m.liability)}</td>
</tr>`;
}

/** The page of `fleet`, whose figures are its JSON's. */
export function fleetPage(fleet: Fleet): string {
  const attention = fleet.merchants.filter(needsAttention).length;
  const heads = [
    'merchant',
    'standing',
    'last night',
    'overdue',
    ...AGE_BUCKETS.map((b) => `open ${b.label}`),
    'oldest break',
    'money at stake',
    'liability',
  ];
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>ledger-recon fleet — ${text(fleet.generatedAt.slice(0, 16).replace('T', ' '))} UTC</title>
<style>${CSS}</style></head>
<body>
<h1>Every merchant — ${text(fleet.generatedAt.slice(0, 16).replace('T', ' '))} UTC</h1>
<p class="lead">${fleet.merchants.length} ${fleet.merchants.length === 1 ? 'merchant' : 'merchants'}; ${attention === 0 ? 'none needs attention' : `<strong>${attention} ${attention === 1 ? 'needs' : 'need'} attention</strong> (failed, unreadable, never ran, late past ${fleet.lateAfterHours} h, or an overdue break)`}.</p>
<table>
<thead><tr>${heads.map((h) => `<th>${text(h)}</th>`).join('')}</tr></thead>
<tbody>
${fleet.merchants.map((m) => row(m, needsAttention(m))).join('\n')}
</tbody></table>
</body></html>
`;
}

/** The fleet's page and JSON written whole into `outDir` (made if new): `ledger-recon-fleet-<date>.html` and `.json`. */
export function writeFleet(fleet: Fleet, outDir: string): { page: string; json: string } {
  ensureFolder('--out', outDir);
  const base = join(outDir, `ledger-recon-fleet-${fleet.generatedAt.slice(0, 10)}`);
  const paths = { page: `${base}.html`, json: `${base}.json` };
  writeAtomically(paths.json, `${JSON.stringify(fleet, null, 2)}\n`);
  writeAtomically(paths.page, fleetPage(fleet));
  return paths;
}
