/**
 * The workbook's sheets, in auditors' order, as rows drawn from the mirror for one check run: one
 * file per sheet under sheets/. Every figure comes from a mirrored record or the run's stored
 * findings, so each can be traced back. Rows stream from the mirror; nothing holds a whole table in
 * memory except the run's finding codes per record (for the "findings" columns), read here once.
 */
import { slaOfRun } from '../findings/sla.js';
import type { Finding, Standing } from '../findings/finding.js';
import type { CheckRunRow, FindingsStore } from '../findings/store.js';
import { BooksStore } from '../books/store.js';
import { MirrorError } from '../errors.js';
import type { Mirror } from '../db/mirror.js';
import { ReportStore } from './store.js';
import type { SheetSpec } from './xlsx-writer.js';
import type { ReportScope } from './scope.js';
import type { FindingsOf, LedgerSheetReads } from './sheets/rows.js';
import { cardSheet } from './sheets/cards.js';
import { refundsSheet } from './sheets/refunds.js';
import { couponsSheet } from './sheets/coupons.js';
import { ordersSheet } from './sheets/orders.js';
import { walletsSheet } from './sheets/wallets.js';
import { quarantineSheet } from './sheets/quarantine.js';
import { checksSheet } from './sheets/checks.js';
import { FINDINGS_HEADER, FINDINGS_PRINTED_WIDTHS, findingRows } from './sheets/findings.js';
import type { NightView } from './night-view.js';
import { monthToDateSheet } from './sheets/month-to-date.js';
import { findingsWithStanding } from './night-findings.js';
import { matchingSheet } from './sheets/matching.js';
import { summaryRows, COMPACT_PRINT, SUMMARY_WIDTHS } from './sheets/summary.js';

/** Finding codes of this run per record ID, for the sheets' "findings" columns. */
async function codesByRecord(store: FindingsStore, checkRunId: number): Promise<Map<string, string>> {
  const codes = new Map<string, Set<string>>();
  const add = (id: string | null, code: string): void => {
    if (!id) return;
    const set = codes.get(id) ?? new Set<string>();
    set.add(code);
    codes.set(id, set);
  };
  for await (const batch of store.whole.recordsOf(checkRunId))
    for (const { code, ids } of batch) for (const id of ids) add(id, code);
  return new Map([...codes].map(([id, set]) => [id, [...set].sort().join(', ')]));
}

/**
 * The workbook's sheets, in order, each streaming its rows as the writer asks for them.
 * `onFinding`: handed each finding of the run as the Findings sheet reads it (the CSV and JSON
 * are written from that one read).
 */
export async function reportSheets(
  mirror: Mirror,
  store: FindingsStore,
  run: CheckRunRow,
  view: NightView,
  scope: ReportScope = {},
  onFinding?: (finding: Finding, standing: Standing) => Promise<void>,
): Promise<SheetSpec[]> {
  const materiality = scope.materiality ?? new Map<string, number>();
  const reads = new ReportStore(mirror);
  const books = new BooksStore(mirror);
  const codes = await codesByRecord(store, run.checkRunId);
  // Called for every row of a million (a card and its refunds): a row about nothing costs no allocation.
  const findingsOf: FindingsOf = (...ids) => {
    let found: string[] | undefined;
    for (const id of ids) {
      const listed = id ? codes.get(id) : undefined;
      if (listed) (found ??= []).push(listed);
    }
    if (found === undefined) return '';
    if (found.length === 1) return found[0]!;
    return [...new Set(found.flatMap((listed) => listed.split(', ')))].sort().join(', ');
  };
  // Every record a finding of this run is about: the detail sheets list (and print) theirs first.
  const flagged = JSON.stringify([...codes.keys()]);
  // The cards as the run's sync left them: what the run's walk kept of each, while the mirror's
  // cards are still those it walked (no sync since); else a walk of the ledger as of that sync.
  if (run.syncRunId === null)
    throw new MirrorError(`check run ${run.checkRunId} names no sync: it has no ledger to report`);
  const unchanged = (await reads.newestSyncRunId()) === run.syncRunId;
  const kept = unchanged ? await store.history.cardSumsOf(run.checkRunId) : null;
  const ledgerReads: LedgerSheetReads = { mirror, reads, syncRunId: run.syncRunId, kept, findingsOf, flagged };
  return [
    {
      name: 'Summary',
      widths: SUMMARY_WIDTHS,
      printScale: COMPACT_PRINT,
      rows: summaryRows(view, scope),
    },
    // On paper, what a reader reads (severity to age); the records, fingerprints and acceptances are on screen and in the CSV.
    // On paper, severity to age one page wide at over 70 %: the page's width goes to the message.
    {
      name: 'Findings',
      header: FINDINGS_HEADER,
      severityColumn: 0,
      printColumns: FINDINGS_HEADER.indexOf('age (days)') + 1,
      fixedWidths: FINDINGS_PRINTED_WIDTHS,
      rows: findingRows(findingsWithStanding(store, run.checkRunId, slaOfRun(view.recorded), materiality), onFinding),
    },
    await cardSheet(ledgerReads),
    monthToDateSheet(view),
    await matchingSheet(books, findingsOf),
    await refundsSheet(ledgerReads),
    await couponsSheet(reads, findingsOf, flagged),
    await ordersSheet(reads, findingsOf, flagged),
    walletsSheet(reads, run, findingsOf),
    quarantineSheet(reads),
    checksSheet(run),
  ];
}
