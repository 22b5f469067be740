/**
 * The workbook's sheets, in auditors' order, as rows drawn from the mirror for one check run.
 * Every figure comes from a mirrored record or the run's stored findings, so each can be
 * traced back. Rows stream from SQLite; nothing here holds a whole table in memory except
 * the run's finding codes per record (for the "findings" columns).
 */
import { linesOf, noteRows } from './liability-sheets.js';
import { type NightAgainstMonth, nightAgainstMonth } from '../ledger/rollforward.js';
import { dueOf, isOverdue, type RunSla, slaOfRun } from '../findings/sla.js';
import { type CheckCode, CATALOGUE, CHECKS } from '../checks/index.js';
import { SEVERITIES } from '../checks/check.js';
import { preparedOn } from './names.js';
import { walkCardSumsOf } from '../ledger/walk.js';
import { cardsWithKeptRefunds, cardsWithKeptSums, type KeptCardSums } from '../ledger/card-sums.js';
import { type ReferencedEntry, type RefundGroup, refundableLeftCents, refundGroupsOf } from '../ledger/references.js';
import { cardReconciliation, type CardReconciliation, reconciliationOf } from '../ledger/state.js';
import type { CardSnapshot } from '../ledger/types.js';
import {
  AGE_BUCKETS,
  FINDING_STATES,
  isMaterial,
  unitOf,
  type Finding,
  type Materiality,
} from '../findings/finding.js';
import { summaryOf, type CheckRunRow, type FindingStake, type FindingsStore } from '../findings/store.js';
import { cents, formatCents, groupThousands, storedCents } from '../money.js';
import { moneyAtStakeCents } from '../findings/summary.js';
import { MirrorError } from '../errors.js';
import { BooksStore } from '../books/store.js';
import type { Mirror } from '../db/mirror.js';
import { ReportStore, type CountedTable } from './store.js';
import { closePeriod, type PeriodClose, type RunInFlight } from './close.js';
import { describeInstant, periodOf } from './period.js';
import { reportBaseName } from './names.js';
import { rollForwardSheet } from './roll-forward-sheet.js';
import { type Cell, RowBatch, type SheetSpec } from './xlsx-writer.js';

export const SHEET_NAMES = [
  'Summary',
  'Findings',
  'Card reconciliation',
  'Month to date',
  'Matching',
  'Refunds by reference',
  'Coupons',
  'DP orders',
  'DP wallets',
  'Quarantine',
  'Checks',
] as const;

const money = (cents: number | null, currency: string | null): Cell => (cents === null ? null : { cents, currency });
const date = (ms: number | null): Cell => (ms === null ? null : { date: ms });
const measure = (f: Finding, value: number | null): Cell =>
  value === null ? null : f.unit === 'cents' ? money(value, f.currency) : value;

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

/** Who prepared the workpapers, and the materiality thresholds the auditor set. */
export interface ReportScope {
  preparer?: string;
  /** The merchant's name (`--merchant-name`): the title, the footer and page 1; its ID otherwise. */
  merchantName?: string;
  /** When it was prepared (epoch ms, the job's clock): the sign-off's date beside the preparer. */
  preparedAtMs?: number;
  materiality?: Materiality;
}

/** The merchant as the workbook names it: its name where one is set, else its ID. */
export function merchantOf(scope: Pick<ReportScope, 'merchantName'>, merchantId: string | null): string {
  // An ID's first eight characters name it on a footer's width; page 1 states it whole.
  return scope.merchantName ?? (merchantId === null ? 'every merchant' : `merchant ${merchantId.slice(0, 8)}`);
}

/**
 * The workbook's title, also the left of every printed page's footer: the merchant, the night's
 * date and cut-off, the verdict and the run.
 */
export function reportTitle(scope: Pick<ReportScope, 'merchantName'>, run: CheckRunRow, verdict: string): string {
  const asOf = new Date(run.asOfMs ?? run.startedAtMs).toISOString();
  return `${merchantOf(scope, run.merchantId)} — ${asOf.slice(0, 10)} ${asOf.slice(11, 16)} UTC — ${verdict}, run ${run.checkRunId}`;
}

/**
 * A detail sheet's row: the key it is listed under once, its cells, whether a finding of the
 * run is about it, and the record `only` names it by (its key, unless given).
 */
type Keyed = [key: string, cells: Cell[], exception: boolean, record?: string];
/** The cells of a row asked for its key alone. */
const NO_CELLS: Cell[] = [];
/** A detail sheet's rows: all of them (`only` null), or only those about the records named in `only` (a JSON array of IDs). */
type KeyedRows = (only: string | null, keysOnly?: boolean) => AsyncIterable<Keyed[]>;

/** The most exception rows a detail sheet lists first and prints (held in memory until the sheet is written). */
export const PRINTED_EXCEPTIONS = 1_000;

/**
 * A detail sheet for screen and paper: the rows with a finding of this run first (what prints,
 * up to PRINTED_EXCEPTIONS), then every other row in its usual order (on screen, in SQL). The
 * full population stays in the workbook, so each figure is traceable; the printed pages carry
 * the exceptions an auditor reads.
 */
async function exceptionsFirst(
  what: string,
  rowsOf: KeyedRows,
  flagged: string,
): Promise<Pick<SheetSpec, 'rows' | 'printRows' | 'printNote'>> {
  // The first pass asks for keys alone and keeps only the printed ones, never cells: cells made
  // and held in a pass before the full one taught V8 to allocate every later row's cells in the
  // old generation, collected late (a report of 1,000,000 cards peaked at 1.1 GB, not 450 MB).
  // A key's rows come together.
  const keys: string[] = [];
  const records = new Set<string>();
  let exceptions = 0;
  let last: string | null = null;
  for await (const batch of rowsOf(flagged, true))
    for (const [key, , exception, record] of batch) {
      if (!exception || key === last) continue;
      last = key;
      exceptions += 1;
      if (keys.length < PRINTED_EXCEPTIONS) {
        keys.push(key);
        records.add(record ?? key);
      }
    }
  const more = exceptions - keys.length;
  const note =
    keys.length === 0
      ? `Printed: no ${what} has a finding in this run; every ${what} is listed on screen`
      : `Printed: the ${keys.length.toLocaleString('en-US')} ${what}${keys.length === 1 ? '' : 's'} with a finding in this run${more > 0 ? ` (of ${exceptions.toLocaleString('en-US')})` : ''}; every other ${what} follows on screen`;
  return {
    printRows: Math.max(keys.length, 1),
    printNote: note,
    rows: (async function* () {
      const printed = new Set(keys);
      // The printed rows are read again alone: the records they are about, not every flagged one.
      // A batch of rows at a time (RowBatch): one await per batch, not one per row of a million.
      if (keys.length > 0)
        for await (const batch of rowsOf(JSON.stringify([...records])))
          yield new RowBatch(batch.filter(([key]) => printed.has(key)).map(([, cells]) => cells));
      for await (const batch of rowsOf(null))
        yield new RowBatch(batch.filter(([key]) => !printed.has(key)).map(([, cells]) => cells));
    })(),
  };
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
  scope: ReportScope = {},
  onFinding?: (finding: Finding) => Promise<void>,
): Promise<SheetSpec[]> {
  const materiality = scope.materiality ?? new Map<string, number>();
  const monthToDate = await monthToDateOf(mirror, run, () => store.inFlightOf(run));
  const reads = new ReportStore(mirror);
  const books = new BooksStore(mirror);
  const codes = await codesByRecord(store, run.checkRunId);
  const findingsOf: FindingsOf = (...ids) => {
    if (ids.length === 1) return (ids[0] && codes.get(ids[0])) || '';
    return [...new Set(ids.flatMap((id) => (id && codes.get(id)?.split(', ')) || []))].sort().join(', ');
  };
  // Every record a finding of this run is about: the detail sheets list (and print) theirs first.
  const flagged = JSON.stringify([...codes.keys()]);
  // What the run's walk kept of each card, while the mirror's cards are still those it walked (no
  // sync since); else, for an earlier run, the ledger as it is now is walked.
  const unchanged = run.syncRunId !== null && (await reads.newestSyncRunId()) === run.syncRunId;
  const kept = unchanged ? await store.history.cardSumsOf(run.checkRunId) : null;
  const ledgerReads: LedgerSheetReads = { mirror, reads, kept, findingsOf, flagged };
  return [
    {
      name: 'Summary',
      widths: SUMMARY_WIDTHS,
      printScale: COMPACT_PRINT,
      rows: summaryRows(reads, books, store, run, scope, materiality, monthToDate),
    },
    // On paper, what a reader reads (severity to age); the records, fingerprints and acceptances are on screen and in the CSV.
    // On paper, severity to age one page wide at over 70 %: the page's width goes to the message.
    {
      name: 'Findings',
      header: FINDINGS_HEADER,
      severityColumn: 0,
      printColumns: FINDINGS_HEADER.indexOf('age (days)') + 1,
      fixedWidths: FINDINGS_PRINTED_WIDTHS,
      rows: findingRows(store, run.checkRunId, materiality, slaOfRun(summaryOf(run)), onFinding),
    },
    await cardSheet(ledgerReads),
    monthToDate
      ? rollForwardSheet('Month to date', monthToDate)
      : {
          name: 'Month to date',
          rows: [['No month-to-date roll-forward: the check run has no data as of this month.']],
        },
    await matchingSheet(books, findingsOf),
    await refundsSheet(ledgerReads),
    await couponsSheet(reads, findingsOf, flagged),
    await ordersSheet(reads, findingsOf, flagged),
    walletsSheet(reads, run, findingsOf),
    quarantineSheet(reads),
    checksSheet(run),
  ];
}

/** The codes of this run's findings about the records named, for a sheet's findings column. */
type FindingsOf = (...ids: (string | null)[]) => string;

/** What the sheets of the ledger read: the mirror, what the run's walk kept (null: walk the ledger now) and the run's findings. */
interface LedgerSheetReads {
  mirror: Mirror;
  reads: ReportStore;
  kept: KeptCardSums | null;
  findingsOf: FindingsOf;
  flagged: string;
}

/**
 * The Card reconciliation sheet: each card's figures, the cards with a finding first. The sums
 * of each card's ledger are those the run's walk kept (`kept`), or else a walk's of the ledger now.
 */
async function cardSheet({ mirror, reads, kept, findingsOf, flagged }: LedgerSheetReads): Promise<SheetSpec> {
  return {
    name: 'Card reconciliation',
    header: [
      'gift card',
      'currency',
      'status',
      'initial balance',
      'debits',
      'refunds',
      'recomputed balance',
      'reported remaining',
      'difference',
      'entries',
      'findings',
    ],
    // One page wide at 0.75: a card's ID wraps at its hyphens onto two lines.
    fixedWidths: { 0: 20, 1: 8, 2: 10, 3: 13, 4: 13, 5: 13, 6: 13, 7: 13, 8: 13, 9: 8, 10: 30 },
    ...(await exceptionsFirst(
      'card',
      (only, keysOnly) => cardRows(mirror, reads, findingsOf, kept, only, keysOnly),
      flagged,
    )),
  };
}

/**
 * Refunds by reference: what was debited and refunded under each reference, the flagged first;
 * the references as the run's walk kept them (`kept`), or else as the ledger groups them now.
 */
async function refundsSheet({ mirror, reads, kept, findingsOf, flagged }: LedgerSheetReads): Promise<SheetSpec> {
  return {
    name: 'Refunds by reference',
    header: [
      'gift card',
      'currency',
      'reference',
      'debits',
      'debited',
      'refunds',
      'refunded',
      'refundable left',
      'findings',
    ],
    fixedWidths: { 0: 20, 1: 8, 2: 24, 3: 8, 4: 13, 5: 8, 6: 13, 7: 13, 8: 25 },
    ...(await exceptionsFirst(
      'reference',
      (only, keysOnly) =>
        kept === null
          ? refundRows(reads, findingsOf, only, keysOnly)
          : keptRefundRows(mirror, kept, findingsOf, only, keysOnly),
      flagged,
    )),
  };
}

/** The Coupons sheet, the flagged first. */
async function couponsSheet(reads: ReportStore, findingsOf: FindingsOf, flagged: string): Promise<SheetSpec> {
  return {
    name: 'Coupons',
    header: [
      'coupon',
      'merchant',
      'status',
      'redemption count',
      'usage limit (0 = none)',
      'expires at (UTC)',
      'updated at (UTC)',
      UNLISTED,
      'findings',
    ],
    fixedWidths: { 0: 20, 1: 20, 2: 10, 3: 10, 4: 10, 5: 19, 6: 19, 7: 10, 8: 24 },
    ...(await exceptionsFirst('coupon', (only, keysOnly) => couponRows(reads, findingsOf, only, keysOnly), flagged)),
  };
}

/** The DP orders sheet, a row per line, the flagged orders first. */
async function ordersSheet(reads: ReportStore, findingsOf: FindingsOf, flagged: string): Promise<SheetSpec> {
  return {
    name: 'DP orders',
    // What prints first (order to findings, one page wide at over 70 %); where each line came from after it, on screen.
    header: [
      'order',
      'external reference',
      'status',
      'fulfilment',
      'order total',
      'line',
      'quantity',
      'total price',
      'FX rate',
      'converted total',
      'fulfilled',
      'vouchers',
      'findings',
      'created at (UTC)',
      'product',
      'variant',
      'line currency',
      'price',
      UNLISTED,
    ],
    printColumns: 13,
    fixedWidths: { 0: 20, 1: 13, 2: 10, 3: 11, 4: 13, 5: 6, 6: 9, 7: 13, 8: 7, 9: 13, 10: 10, 11: 9, 12: 18 },
    ...(await exceptionsFirst('order', (only, keysOnly) => orderRows(reads, findingsOf, only, keysOnly), flagged)),
  };
}

/** The DP wallets sheet: each wallet's balance at each sync up to the run's. */
function walletsSheet(reads: ReportStore, run: CheckRunRow, findingsOf: FindingsOf): SheetSpec {
  return {
    name: 'DP wallets',
    header: [
      'sync run',
      'read at (UTC)',
      'wallet',
      'currency',
      'selected',
      'balance',
      'change since previous sync',
      'findings',
    ],
    rows: (async function* () {
      for await (const batch of reads.wallets(run.syncRunId ?? undefined))
        for (const w of batch) {
          yield [
            w.sync_run_id,
            date(w.read_at_ms),
            w.wallet_id,
            w.currency,
            w.selected ? 'yes' : 'no',
            money(w.balance_cents, w.currency),
            money(w.change_cents, w.currency),
            w.sync_run_id === run.syncRunId ? findingsOf(w.wallet_id) : '',
          ];
        }
    })(),
  };
}

/** The Quarantine sheet: every record refused at the edge, with its raw JSON. */
function quarantineSheet(reads: ReportStore): SheetSpec {
  return {
    name: 'Quarantine',
    header: ['resource', 'record', 'reason', 'first sync', 'last sync', 'raw JSON as received'],
    fixedWidths: { 0: 12, 1: 20, 2: 36, 3: 8, 4: 8, 5: 48 },
    rows: (async function* () {
      for await (const batch of reads.quarantine())
        for (const q of batch) {
          // Long raw JSON is cut where a printed cell stays readable, with where the whole of it is.
          const raw =
            q.raw_json.length > RAW_SHOWN
              ? `${q.raw_json.slice(0, RAW_SHOWN)}… (cut at ${RAW_SHOWN} of ${q.raw_json.length.toLocaleString('en-US')} characters: the whole record is quarantine_id ${q.quarantine_id} in the mirror)`
              : q.raw_json;
          yield [q.resource, q.record_id, q.reason, q.first_sync_run_id, q.last_sync_run_id, raw];
        }
    })(),
  };
}

/** The Checks sheet: the catalogue, with the findings of each check in this run. */
function checksSheet(run: CheckRunRow): SheetSpec {
  return {
    name: 'Checks',
    header: ['code', 'severity', 'kind', 'check', 'what it proves, and what a finding means', 'findings this run'],
    severityColumn: 1,
    // The explanation gets the page's width: a check is read as a whole, one page wide at 72 %.
    fixedWidths: { 0: 31, 1: 8, 2: 6, 3: 25, 4: 75, 5: 8 },
    printScale: 0.72,
    rows: (function* () {
      const counts = summaryOf(run).byCode;
      for (const check of CATALOGUE)
        yield [check.code, check.severity, check.lifecycle, check.title, check.description, counts[check.code] ?? 0];
    })(),
  };
}

/**
 * The Findings sheet's columns, what a reader reads first leftmost (a printed page holds some
 * 140 characters): what, how much, whether it is material; then where it points, then its
 * lifecycle. The Summary counts over columns A (severity), B (code), C (state) and `material`.
 */
export const FINDINGS_HEADER = [
  'severity',
  'code',
  'state',
  'message',
  'currency',
  'difference',
  'at stake',
  'material',
  'age (days)',
  'expected',
  'actual',
  'unit',
  'entity type',
  'entity',
  'gift card',
  'reference',
  'first seen (UTC)',
  'records',
  'fingerprint',
  'accepted: note',
  'accepted by',
  'accepted at (UTC)',
  'accepted until (UTC)',
  'acceptance ended',
  'due (UTC)',
  'overdue',
];

/** Widths of the printed columns of the Findings sheet, severity to age (0.75 of full size one page wide). */
const FINDINGS_PRINTED_WIDTHS = Object.fromEntries(
  (
    [
      ['severity', 10],
      ['code', 33],
      ['state', 8],
      ['message', 51],
      ['currency', 10],
      ['difference', 13],
      ['at stake', 12],
      ['material', 10],
      ['age (days)', 7],
    ] as const
  ).map(([name, width]) => [FINDINGS_HEADER.indexOf(name), width]),
);

async function* findingRows(
  store: FindingsStore,
  checkRunId: number,
  materiality: Materiality,
  sla: RunSla,
  onFinding?: (finding: Finding) => Promise<void>,
): AsyncGenerator<Cell[]> {
  for await (const f of store.whole.findingsOf(checkRunId)) {
    await onFinding?.(f);
    const due = dueOf(f, sla.rules);
    const records = f.records.map((r) => `${r.type} ${r.id}`).join('; ');
    const a = f.acceptance;
    yield [
      f.severity,
      f.code,
      f.state,
      f.message,
      f.currency,
      measure(f, f.difference),
      f.stakeCents > 0 ? money(f.stakeCents, f.currency) : null,
      isMaterial(f, materiality) ? 'material' : '',
      f.ageDays,
      measure(f, f.expected),
      measure(f, f.actual),
      unitOf(f),
      f.entityType,
      f.entityId,
      f.giftCardId,
      f.referenceId,
      date(f.firstSeenAtMs),
      records,
      f.fingerprint,
      a?.note ?? null,
      a?.by ?? null,
      date(a?.acceptedAtMs ?? null),
      date(a?.untilMs ?? null),
      f.acceptanceEnded,
      date(due),
      isOverdue(due, sla.asOfMs) ? 'OVERDUE' : '',
    ];
  }
}

/**
 * Per card, from the ledger stage: initial − debits + refunds against the reported balance, the
 * sums as the run's walk kept them (`kept`), or else summed by a walk of the ledger now.
 */
async function* cardRows(
  mirror: Mirror,
  reads: ReportStore,
  findingsOf: FindingsOf,
  kept: KeptCardSums | null,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  // Asked for keys alone, the cards' IDs: the ledger's entries are read for the rows' figures only.
  if (keysOnly) {
    for await (const ids of reads.cardIds(only)) yield ids.map((id): Keyed => [id, NO_CELLS, findingsOf(id) !== '']);
    return;
  }
  if (kept !== null) {
    for await (const batch of cardsWithKeptSums(mirror, kept, only ?? undefined))
      yield batch.map(({ card, sums }) => cardRow(card, reconciliationOf(card, sums), findingsOf));
    return;
  }
  // The entries' figures alone: a card's reconciliation needs no entry's identity.
  for await (const batch of walkCardSumsOf(mirror, only ?? undefined))
    yield batch.map(({ card, entries }) => cardRow(card, cardReconciliation(card, entries), findingsOf));
}

/** One card's row of the Card reconciliation sheet. */
function cardRow(card: CardSnapshot, figures: CardReconciliation, findingsOf: FindingsOf): Keyed {
  const id = card.giftCardId;
  const c = card.currency;
  // Each row re-performs itself: recomputed = initial − debits + refunds, difference = reported − recomputed.
  // An amount off the cent leaves the figures unknown: the cells stay empty rather than wrong.
  const recomputedCell: Cell =
    figures.recomputedCents === null
      ? null
      : { formula: 'D{row}-E{row}+F{row}', cents: figures.recomputedCents, currency: c };
  const differenceCell: Cell =
    figures.differenceCents === null ? null : { formula: 'H{row}-G{row}', cents: figures.differenceCents, currency: c };
  const findings = findingsOf(id);
  return [
    id,
    [
      id,
      c,
      card.status,
      money(card.initialCents, c),
      money(figures.debitedCents, c),
      money(figures.refundedCents, c),
      recomputedCell,
      money(card.remainingCents, c),
      differenceCell,
      figures.entries,
      findings,
    ],
    findings !== '',
  ];
}

/** Per card and reference with a refund: one pass over the ledger in card order, grouped one card at a time by the ledger stage. */
async function* refundRows(
  reads: ReportStore,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  let card = '';
  let currency = '';
  let entries: Array<ReferencedEntry & { transactionId: string }> = [];
  const flush = (): Keyed[] => refundGroupRows(card, currency, refundGroupsOf(entries), findingsOf, keysOnly);
  for await (const batch of reads.refundEntries(only)) {
    const rows: Keyed[] = [];
    for (const [id, c, referenceId, type, amountCents, transactionId] of batch) {
      if (id !== card) {
        rows.push(...flush());
        card = id;
        currency = c;
        entries = [];
      }
      entries.push({ type, referenceId, amountCents: storedCents(amountCents), transactionId });
    }
    yield rows;
  }
  yield flush();
}

/** Per card and reference with a refund, as the run's walk kept them: the cards' rows alone are read. */
async function* keptRefundRows(
  mirror: Mirror,
  kept: KeptCardSums,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of cardsWithKeptRefunds(mirror, kept, only ?? undefined))
    yield batch.flatMap(({ giftCardId, currency, groups }) =>
      refundGroupRows(giftCardId, currency, groups, findingsOf, keysOnly),
    );
}

/** One card's rows of the Refunds by reference sheet, a row per reference with a refund. */
function refundGroupRows(
  card: string,
  currency: string,
  groups: readonly RefundGroup[],
  findingsOf: FindingsOf,
  keysOnly: boolean,
): Keyed[] {
  return groups.map((group): Keyed => {
    const key = `${card} ${group.referenceId}`;
    const findings = findingsOf(card, ...group.refundIds);
    if (keysOnly) return [key, NO_CELLS, findings !== '', card];
    const left = refundableLeftCents(group);
    return [
      key,
      [
        card,
        currency,
        group.referenceId,
        group.debits,
        money(group.debitedCents, currency),
        group.refunds,
        money(group.refundedCents, currency),
        // Re-performs itself: debited − refunded.
        left === null ? null : { formula: 'E{row}-G{row}', cents: left, currency },
        findings,
      ],
      findings !== '',
    ];
  });
}

async function* couponRows(
  reads: ReportStore,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of reads.coupons(only))
    yield batch.map((c): Keyed => {
      const findings = findingsOf(c.coupon_id);
      if (keysOnly) return [c.coupon_id, NO_CELLS, findings !== ''];
      return [
        c.coupon_id,
        [
          c.coupon_id,
          c.merchant_id,
          c.status,
          c.redemption_count,
          c.usage_limit_total,
          date(c.expires_at_ms),
          date(c.updated_at_ms),
          c.vanished_sync_run_id,
          findings,
        ],
        findings !== '',
      ];
    });
}

async function* orderRows(
  reads: ReportStore,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of reads.orderLines(only))
    yield batch.map((r): Keyed => {
      const findings = findingsOf(r.order_id);
      if (keysOnly) {
        return [`${r.order_id} ${r.line_no ?? ''}`, NO_CELLS, findings !== '', r.order_id];
      }
      return [
        `${r.order_id} ${r.line_no ?? ''}`,
        [
          r.order_id,
          r.external_ref_id,
          r.status,
          r.fulfillment_status,
          money(r.total_amount_cents, r.currency),
          r.line_no,
          r.quantity,
          money(r.total_price_cents, r.line_currency),
          r.fx_rate,
          money(r.total_converted_price_cents, r.currency),
          r.fulfilled_qty,
          r.vouchers,
          findings,
          date(r.created_at_ms),
          r.product_id,
          r.variant_id,
          r.line_currency,
          money(r.price_cents, r.line_currency),
          r.vanished_sync_run_id,
        ],
        findings !== '',
      ];
    });
}

/**
 * The period close of the run's month so far (UTC): from the first of the month its data are as
 * of, up to that instant, with the run's own in-flight cards (the roll-forward's). The night's
 * walk computed it (the ledger stage's RunTallies); a run recorded before it was kept has it
 * computed here from the mirror. Null when the run has no such data.
 */
async function monthToDateOf(
  mirror: Mirror,
  run: CheckRunRow,
  inFlightOf: () => Promise<RunInFlight | null>,
): Promise<PeriodClose | null> {
  const asOf = run.asOfMs;
  if (asOf === null) return null;
  const day = new Date(asOf).toISOString().slice(0, 10);
  const period = periodOf({ from: `${day.slice(0, 8)}01`, to: day });
  const computed = summaryOf(run).monthToDate;
  if (computed && computed.fromMs >= computed.toMs) return null;
  if (computed)
    return {
      period,
      asOfMs: asOf,
      endsNow: true,
      closingCutOffMs: computed.toMs,
      merchantId: run.merchantId,
      rollForwards: computed.rollForwards,
      unattributedEntries: computed.unattributedEntries,
      dataFromMs: computed.dataFromMs,
      closes: computed.closes,
    };
  try {
    return await closePeriod(mirror, period, undefined, {
      asOfMs: asOf,
      merchantId: run.merchantId,
      inFlight: await inFlightOf(),
    });
  } catch (error) {
    if (error instanceof MirrorError) return null;
    throw error;
  }
}

const MATCHING_HEADER = [
  'status',
  'rule',
  'books',
  'side',
  'record',
  'reference',
  'type',
  'currency',
  'amount',
  'time (UTC)',
  'books file',
  'line',
  'gift card',
  'uses in books',
  'redemption count',
  'group',
  'findings',
];

/**
 * The latest matching of the merchant's books, a row per record: books rows and the service
 * records they matched side by side in groups (with the rule that matched them), and every
 * record that found no partner or matched only in part, listed (and printed) first.
 */
async function matchingSheet(books: BooksStore, findingsOf: (...ids: (string | null)[]) => string): Promise<SheetSpec> {
  const exceptions = await books.unmatchedCount();
  const printed = Math.min(exceptions, PRINTED_EXCEPTIONS);
  return {
    name: 'Matching',
    header: MATCHING_HEADER,
    // One page wide at just over 70 %: what a row is, what it is about, where it is.
    fixedWidths: { 0: 16, 1: 11, 2: 12, 3: 8, 4: 19, 5: 18, 6: 8, 7: 9, 8: 13, 9: 19, 10: 16, 11: 5 },
    printColumns: 12,
    printRows: Math.max(printed, 1),
    printNote:
      exceptions === 0
        ? 'Printed: every record of the books and the services found its partner; the pairs are listed on screen'
        : `Printed: the ${printed.toLocaleString('en-US')} record${printed === 1 ? '' : 's'} without a partner, or matched only in part${exceptions > printed ? ` (of ${exceptions.toLocaleString('en-US')})` : ''}; the matched pairs follow on screen`,
    rows: (async function* () {
      for await (const r of books.matchRows()) {
        yield [
          r.status,
          r.rule,
          r.kind,
          r.side,
          r.recordId,
          r.reference,
          r.entryType,
          r.currency,
          money(r.amountCents, r.currency),
          date(r.atMs),
          r.file,
          r.line,
          r.giftCardId,
          r.booksCount,
          r.serviceCount,
          r.groupId,
          findingsOf(r.recordId),
        ];
      }
    })(),
  };
}

/** The Summary's inputs, and its row counter: formulas point at the labels above them by number. */
interface SummaryContext {
  reads: ReportStore;
  books: BooksStore;
  store: FindingsStore;
  run: CheckRunRow;
  scope: ReportScope;
  materiality: Materiality;
  monthToDate: PeriodClose | null;
  summary: ReturnType<typeof summaryOf>;
  /** Counts a row as it is yielded. */
  line: (cells: Cell[]) => Cell[];
  /** The number of the last row yielded. */
  row: () => number;
}

/** The run's findings, and per code their severity, count, material count and count per state. */
type ByCode = Map<CheckCode, { severity: string; n: number; material: number; states: Record<string, number> }>;

async function* summaryRows(
  reads: ReportStore,
  books: BooksStore,
  store: FindingsStore,
  run: CheckRunRow,
  scope: ReportScope,
  materiality: Materiality,
  monthToDate: PeriodClose | null,
): AsyncGenerator<Cell[]> {
  const sync = run.syncRunId === null ? undefined : await reads.sync(run.syncRunId);
  if (sync === undefined)
    throw new MirrorError(`check run ${run.checkRunId} names sync ${run.syncRunId}, which the mirror does not hold`);
  // Rows are numbered as they are yielded, so that formulas can point at the labels above them.
  let row = 0;
  const line = (cells: Cell[]): Cell[] => {
    row += 1;
    return cells;
  };
  const summary = summaryOf(run);
  const s: SummaryContext = {
    reads,
    books,
    store,
    run,
    scope,
    materiality,
    monthToDate,
    summary,
    line,
    row: () => row,
  };
  const { byCode, all } = await findingsByCode(s);
  yield* headlineRows(s);
  yield* aboutRows(s, sync);
  yield* signOffRows(s);
  yield* checkedRows(s);
  yield* findingsByCodeRows(s, byCode, all);
  yield* moneyAtStakeRows(s, byCode, all);
  yield* matchingSummary(books, line);
  yield* sinceRows(s);
  yield* rollForwardRows(s);
}

/** The run's findings, gathered by code. */
async function findingsByCode({
  store,
  run,
  materiality,
}: SummaryContext): Promise<{ byCode: ByCode; all: FindingStake[] }> {
  const byCode: ByCode = new Map();
  const all: FindingStake[] = [];
  for await (const batch of store.whole.stakesOf(run.checkRunId))
    for (const f of batch) {
      all.push(f);
      const group = byCode.get(f.code) ?? { severity: f.severity, n: 0, material: 0, states: {} };
      group.n += 1;
      if (isMaterial(f, materiality)) group.material += 1;
      group.states[f.state] = (group.states[f.state] ?? 0) + 1;
      byCode.set(f.code, group);
    }
  return { byCode, all };
}

/** The verdict, and how many findings put how much money at stake. */
async function* headlineRows(context: SummaryContext): AsyncGenerator<Cell[]> {
  const { line, run, summary, scope } = context;
  const asOf = new Date(run.asOfMs ?? run.startedAtMs).toISOString();
  yield line([
    {
      note: `${merchantOf(scope, run.merchantId)}: reconciliation of ${asOf.slice(0, 10)}, data as of ${asOf.slice(11, 16)} UTC (check run ${run.checkRunId})`,
      strong: true,
    },
  ]);
  yield line([
    'Verdict',
    { emphasis: summary.verdict, good: summary.verdict === 'RECONCILED' },
    { note: VERDICT_MEANING[summary.verdict] ?? '' },
  ]);
  // The headline a reader looks for first: how many findings, and how much money they put at stake.
  const severities = SEVERITIES.map((s) => `${summary.bySeverity[s]} ${s}`).join(', ');
  yield line([
    'Findings',
    { emphasis: summary.findings.toLocaleString('en-US'), good: summary.findings === 0 },
    {
      note: `${severities}; ${summary.new} new, ${summary.accepted} accepted${summary.overdue === 0 ? ', none overdue' : ''}: see Findings by code below`,
    },
  ]);
  const atStake = Object.entries(summary.moneyAtStake);
  // Every currency the night holds: one with nothing at stake says so.
  const clean = [...new Set(summary.rollForward.map((r) => r.currency))]
    .filter((c) => !(c in summary.moneyAtStake))
    .sort();
  yield line([
    'Money at stake',
    {
      emphasis: atStake.length === 0 ? 'none' : atStake.map(([currency, amount]) => `${currency} ${amount}`).join(', '),
      good: atStake.length === 0,
    },
    {
      note: `${clean.length > 0 && atStake.length > 0 ? `${clean.join(', ')}: none; ` : ''}errors and warnings not accepted; a break several checks see counts once`,
    },
  ]);
  yield* moneyRows(context);
}

/** The liability per currency, the largest findings in words, the overdue ones, and each roll-forward that does not close with how the night's and the month's relate. */
async function* moneyRows({ line, store, run, summary, monthToDate }: SummaryContext): AsyncGenerator<Cell[]> {
  // The gift card liability per currency: what the cards hold at the cut-off (the roll-forward's), one line.
  if (summary.rollForward.length > 0) {
    const open = summary.rollForward.filter((r) => !r.closes);
    // Broken between words onto lines of a page's width: a note runs on, and past the page it would print on a page of its own.
    for (const cells of noteRows(
      'Gift card liability',
      `${summary.rollForward.map((r) => `${r.currency} ${groupThousands(r.cardsRemaining)}`).join(' · ')}: what the cards hold at the cut-off${open.length > 0 ? `; the roll-forward does not close in ${open.map((r) => `${r.currency} by ${r.difference}`).join(', ')} (below)` : '; every roll-forward closes'}`,
      95,
    ))
      yield line(cells);
  }
  // The three findings that put the most money at stake, each in words: what it is, and on what.
  for (const [i, f] of (await store.history.largestOf(run.checkRunId, 3)).entries()) {
    // In words, a page's width at a time: the catalogue's title, then the card (or the record) it is about.
    const [first = '', ...more] = linesOf(
      `${CHECKS[f.code].title}: ${f.giftCardId !== null ? `card ${f.giftCardId}` : `${f.entityType} ${f.entityId}`}`,
      85,
    );
    yield line([
      i === 0 ? 'Largest findings' : '',
      { cents: f.stakeCents, currency: f.currency ?? '' },
      { note: first },
    ]);
    for (const rest of more) yield line([null, null, { note: rest }]);
  }
  // Past their due time by the run's exception SLA rules (none: the Findings line says so; runs recorded before them have no count).
  if (summary.overdue !== undefined && summary.overdue > 0)
    yield line([
      'Overdue',
      { emphasis: summary.overdue.toLocaleString('en-US'), good: false },
      {
        note: 'open findings past their due time by the exception SLA rules (docs/checking.md): marked OVERDUE on Findings; ledger-recon findings list --overdue',
      },
    ]);
  // The night's difference against the month so far's (the close of the month to date, one cut-off): how they relate.
  const night = (await store.rollForwardOf(run.checkRunId)).map((r) => ({
    currency: r.currency,
    differenceCents: cents(r.differenceCents),
  }));
  const related = new Map(
    nightAgainstMonth(night, monthToDate?.rollForwards ?? []).map((r) => [r.currency, r] as const),
  );
  const amount = (value: number): string => `${value < 0 ? '−' : ''}${groupThousands(formatCents(Math.abs(value)))}`;
  const term = (value: number): string => `${value < 0 ? '−' : '+'} ${groupThousands(formatCents(Math.abs(value)))}`;
  /** The month so far's parts of a currency's difference, in a few words. */
  const parts = (r: NightAgainstMonth): string =>
    `${amount(r.monthCardsCents)} cards − flows this month ${term(r.monthServiceCents)} service − cards${r.openingsCents !== 0 ? ` ${term(r.openingsCents)} between the month's opening and the night's` : ''}`;
  for (const r of summary.rollForwardBreaks ?? []) {
    const month = monthToDate ? related.get(r.currency) : undefined;
    // Beside the figure, a page's width at a time: a note past the page would print on a page of its own.
    const [first = '', ...more] = linesOf(
      `cards hold − closing${month ? ` = ${parts(month)}` : ''}: see the roll-forward below`,
      75,
    );
    yield line([
      'Roll-forward that does not close',
      { emphasis: `${r.currency} ${r.difference}`, good: false },
      { note: first },
    ]);
    for (const rest of more) yield line([null, null, { note: rest }]);
  }
  // A month to date that does not tie out where the night closes: its parts, on a line of their own.
  if (monthToDate)
    for (const r of related.values())
      if (r.nightCents === 0)
        yield line([
          'Month to date does not tie out',
          { emphasis: `${r.currency} ${amount(r.monthCents)}`, good: false },
          { note: `${parts(r)}: see Month to date` },
        ]);
}

/** What the run covered: its period, data, services, merchant and materiality. */
async function* aboutRows(
  { line, store, run, materiality, summary, scope }: SummaryContext,
  sync: NonNullable<Awaited<ReturnType<ReportStore['sync']>>>,
): AsyncGenerator<Cell[]> {
  const previous = await store.previousCompleteRun(run.checkRunId);
  const asOf = run.asOfMs ?? run.startedAtMs;
  yield line([
    'Period covered',
    {
      note: previous?.asOfMs
        ? `${describeInstant(previous.asOfMs, 'UTC')} to ${describeInstant(asOf, 'UTC')} (since check run ${previous.checkRunId})`
        : `everything up to ${describeInstant(asOf, 'UTC')} (the first check run)`,
    },
  ]);
  yield line([
    'Data as of (UTC)',
    date(run.asOfMs),
    { note: `checked at ${describeInstant(run.finishedAtMs ?? run.startedAtMs, 'UTC')}` },
  ]);
  yield line(['Check run', run.checkRunId, { note: `of sync run ${sync.sync_run_id} (${sync.mode}, ${sync.status})` }]);
  yield line(['Gift card service', { note: sync.giftcard_base_url }]);
  yield line(['Delivery partner service', { note: sync.dp_base_url }]);
  yield line([
    'Our merchant',
    {
      note:
        scope.merchantName !== undefined
          ? `${scope.merchantName} (${run.merchantId ?? 'no ID'})`
          : (run.merchantId ?? ''),
    },
  ]);
  yield line([
    'Materiality (money at stake per finding)',
    {
      note:
        materiality.size === 0
          ? 'none set (--materiality USD=100.00,EUR=100.00)'
          : [...materiality].map(([currency, cents]) => `${currency} ${formatCents(cents)}`).join(', '),
    },
  ]);
  for (const failed of summary.failedChecks) yield line(['Check that could not run', failed.code, failed.error]);
  for (const books of summary.booksNotImported ?? [])
    yield line(['Books file not imported', books.file, { note: `${books.reason}: the matching is not complete` }]);
}

/** The sign-off block, and the evidence that seals the workbook. */
async function* signOffRows({ line, run, scope, summary }: SummaryContext): AsyncGenerator<Cell[]> {
  yield line([]);
  yield line([{ heading: 'Sign-off' }, { label: 'name' }, '', { label: 'date' }]);
  // A name given is a preparation done now: its date goes beside it; the reviewer's stays blank to sign.
  yield line(['Prepared by', scope.preparer ?? '', '', scope.preparer ? preparedOn(scope.preparedAtMs) : '']);
  yield line(['Reviewed by', '', '', '']);
  // What ties this workbook to what it was computed from: its manifest (which holds this file's
  // SHA-256, so it cannot be named inside it) and the population's root the manifest states.
  const manifest = `${reportBaseName(run)}-evidence.json`;
  yield line(['Evidence', { note: `sealed by ${manifest} beside it; check with: ledger-recon verify` }]);
  if (summary.population)
    yield line([
      'Ledger population',
      {
        note: `${summary.population.cards.toLocaleString('en-US')} cards, ${summary.population.entries.toLocaleString('en-US')} entries; Merkle root ${summary.population.merkleRoot}`,
      },
    ]);
  yield line([]);
}

/** What was checked: the records in the mirror and the books. */
async function* checkedRows({ line, reads, books, run }: SummaryContext): AsyncGenerator<Cell[]> {
  yield line([
    { heading: 'What was checked' },
    { label: 'records in the mirror' },
    { label: 'of which no longer listed by the service' },
  ]);
  for (const [label, table, listed] of MIRRORED) {
    yield line([
      label,
      await reads.count(table, false, run.syncRunId ?? undefined),
      listed ? await reads.count(table, true) : null,
    ]);
  }
  yield line(["Rows of the merchant's books (codes hashed)", (await books.counts()).held, null]);
  yield line([]);
}

/** Findings by code, counted over the Findings sheet so that a reader re-performs each. */
async function* findingsByCodeRows(
  { line, row, materiality, summary }: SummaryContext,
  byCode: ByCode,
  all: FindingStake[],
): AsyncGenerator<Cell[]> {
  // Counted over the Findings sheet (columns A severity, B code, C state), so a reader re-performs each.
  const findingsHeader = row() + 1;
  yield line([
    { heading: 'Findings by code' },
    { label: 'severity' },
    { label: 'findings' },
    ...FINDING_STATES.map((state) => ({ label: state })),
    { label: 'material' },
  ]);
  const count = (formula: string, n: number): Cell => ({ formula, count: n });
  const stateColumns = FINDING_STATES.map((_, i) => String.fromCharCode(68 + i)); // D, E, F
  const materialColumn = String.fromCharCode(68 + FINDING_STATES.length);
  const firstCode = row() + 1;
  for (const [code, g] of [...byCode].sort(
    ([a, x], [b, y]) => SEVERITY_ORDER.indexOf(x.severity) - SEVERITY_ORDER.indexOf(y.severity) || a.localeCompare(b),
  )) {
    yield line([
      code,
      g.severity,
      count(`COUNTIFS('Findings'!$B:$B,$A{row})`, g.n),
      ...FINDING_STATES.map((state, i) =>
        count(
          `COUNTIFS('Findings'!$B:$B,$A{row},'Findings'!$C:$C,${stateColumns[i]}$${findingsHeader})`,
          g.states[state] ?? 0,
        ),
      ),
      count(
        `COUNTIFS('Findings'!$B:$B,$A{row},'Findings'!$${MATERIAL_COLUMN}:$${MATERIAL_COLUMN},${materialColumn}$${findingsHeader})`,
        g.material,
      ),
    ]);
  }
  const lastCode = row();
  const total = (column: string, n: number): Cell =>
    lastCode >= firstCode ? count(`SUM(${column}${firstCode}:${column}${lastCode})`, n) : n;
  const materialFindings = all.filter((f) => isMaterial(f, materiality)).length;
  yield line([
    'All findings',
    '',
    total('C', summary.findings),
    total('D', summary.new),
    total('E', summary.open),
    total('F', summary.accepted),
    total(materialColumn, materialFindings),
  ]);
  for (const severity of SEVERITY_ORDER)
    yield line([
      `  ${severity}`,
      severity,
      count(`COUNTIFS('Findings'!$A:$A,$B{row})`, summary.bySeverity[severity as keyof typeof summary.bySeverity] ?? 0),
    ]);
  yield line([]);
}

/** Money at stake, per currency and per code. */
async function* moneyAtStakeRows(
  { line }: SummaryContext,
  byCode: ByCode,
  all: FindingStake[],
): AsyncGenerator<Cell[]> {
  yield line([{ heading: 'Money at stake' }, { label: 'currency' }, { label: 'at stake' }]);
  yield line([{ note: 'Errors and warnings not accepted; money that several findings point at is counted once.' }]);
  const stake = moneyAtStakeCents(all);
  if (stake.size === 0) yield line(['none']);
  for (const [currency, cents] of stake) yield line(['All codes', currency, { cents, currency }]);
  // By code, with a bar against the largest in the same currency: what a reader looks at first.
  const stakeByCode = [...byCode.keys()].flatMap((code) =>
    [...moneyAtStakeCents(all.filter((f) => f.code === code))].map(([currency, cents]) => ({ code, currency, cents })),
  );
  const largest = new Map<string, number>();
  for (const s of stakeByCode) largest.set(s.currency, Math.max(largest.get(s.currency) ?? 0, s.cents));
  for (const s of stakeByCode.sort((a, b) => a.currency.localeCompare(b.currency) || b.cents - a.cents))
    yield line([
      s.code,
      s.currency,
      { cents: s.cents, currency: s.currency },
      bar(s.cents, largest.get(s.currency) ?? 0),
    ]);
  yield line([]);
}

/** Since the previous run, and the age of the open findings. */
async function* sinceRows({ line, summary }: SummaryContext): AsyncGenerator<Cell[]> {
  yield line([{ heading: 'Since the previous run' }, { label: 'findings' }]);
  yield line(['New', summary.new]);
  yield line(['Still open', summary.open]);
  yield line(['Accepted', summary.accepted]);
  yield line(['Acceptances that ended (counting again)', summary.acceptancesEnded]);
  yield line(['Resolved', summary.resolved]);
  yield line(['Cards in flight (checked again next run)', summary.inFlight]);
  yield line(['Earlier breaks held while their card is in flight', summary.held]);
  yield line([]);

  yield line([{ heading: 'Age of open findings (days)' }, { label: 'findings' }]);
  const oldest = Math.max(0, ...AGE_BUCKETS.map((bucket) => summary.ageBuckets[bucket] ?? 0));
  for (const bucket of AGE_BUCKETS)
    yield line([bucket, summary.ageBuckets[bucket] ?? 0, bar(summary.ageBuckets[bucket] ?? 0, oldest)]);
  yield line([]);
}

/** The nightly roll-forward, each closing re-performed by a formula, then the month to date and the sheets. */
async function* rollForwardRows({ line, row, store, run, monthToDate }: SummaryContext): AsyncGenerator<Cell[]> {
  // Each currency's closing re-performed from its row(): opening + issued − debited + refunded − voided − expired.
  // Read down, as a roll-forward is: a column per currency, each closing re-performed from the figures above it.
  const rolls = await store.rollForwardOf(run.checkRunId);
  // The roll-forward and its result (Closes, the month to date) start a printed page: never split.
  yield line([
    { heading: 'Gift card liability roll-forward', pageBreak: true },
    ...rolls.map((r) => ({ label: r.currency })),
  ]);
  const first = row() + 1;
  const at = (step: number): string => `{col}${first + step}`;
  const per = (label: string, cell: (r: (typeof rolls)[number], column: string) => Cell): Cell[] =>
    line([label, ...rolls.map((r, i) => cell(r, String.fromCharCode(66 + i)))]);
  const figure = (cents: number, column: string, formula?: string): Cell =>
    formula ? { formula: formula.replaceAll('{col}', column), cents, currency: null } : money(cents, null);
  yield per('Opening outstanding', (r, c) => figure(r.openingCents, c));
  yield per('+ re-based (see the note below)', (r, c) => figure(r.rebaseCents, c));
  yield per('+ issued', (r, c) => figure(r.issuedCents, c));
  yield per('− debited', (r, c) => figure(r.debitedCents, c));
  yield per('+ refunded', (r, c) => figure(r.refundedCents, c));
  yield per('− voided', (r, c) => figure(r.voidedCents, c));
  yield per('− expired', (r, c) => figure(r.expiredCents, c));
  yield per('= closing outstanding', (r, c) =>
    figure(r.closingCents, c, `${at(0)}+${at(1)}+${at(2)}-${at(3)}+${at(4)}-${at(5)}-${at(6)}`),
  );
  yield per('Cards hold (remainingBalance at cut-off)', (r, c) => figure(r.cardsRemainingCents, c));
  yield per('Difference', (r, c) => figure(r.differenceCents, c, `${at(8)}-${at(7)}`));
  yield per('In flight (apart, not a break)', (r, c) => figure(r.inFlightCents, c));
  yield per('Cards in flight', (r) => r.inFlightCards);
  yield per('Closes', (r) => ({ emphasis: r.differenceCents === 0 ? 'yes' : 'NO', good: r.differenceCents === 0 }));
  const cutOff = rolls.find((r) => r.cutOffMs !== null)?.cutOffMs ?? null;
  if (cutOff !== null)
    yield line([
      {
        note: `As of ${describeInstant(cutOff, 'UTC')}, the run's one cut-off; the opening is the previous run's closing${rolls[0]?.fromMs != null ? `, as of ${describeInstant(rolls[0].fromMs, 'UTC')}` : ' (none: the first run counts everything)'}.`,
      },
    ]);
  for (const r of rolls)
    if (r.rebaseReason)
      yield line([{ note: `${r.currency} re-based by ${formatCents(r.rebaseCents)}: ${r.rebaseReason}.` }]);
  if (monthToDate) {
    yield line([]);
    yield line([
      'Month to date (roll-forward per currency and program)',
      { emphasis: monthToDate.closes ? 'ties out' : 'DOES NOT TIE OUT', good: monthToDate.closes },
      {
        note: `${describeInstant(monthToDate.period.startMs, 'UTC')} up to ${describeInstant(monthToDate.closingCutOffMs, 'UTC')}: see Month to date`,
      },
    ]);
  }
  yield line([]);
  yield line([{ heading: 'Sheets' }]);
  for (const name of SHEET_NAMES.slice(1))
    yield line([{ sheet: name, text: name }, { note: SHEET_PURPOSE[name] ?? '' }]);
}

const SEVERITY_ORDER = ['error', 'warning', 'info'];

/** The scale the Summary and the catalogue print at: read as a whole, more to a page, the type still above the 70 % floor. */
const COMPACT_PRINT = 0.75;

/** The Findings sheet's column of the `material` mark (the Summary counts over it). */
const MATERIAL_COLUMN = String.fromCharCode(64 + FINDINGS_HEADER.indexOf('material') + 1);

/** The most raw JSON a Quarantine cell shows. */
const RAW_SHOWN = 1_500;

/** The Summary's columns: labels, then figures under their labels. */
const SUMMARY_WIDTHS = [34, 20, 14, 14, 14, 14, 14];

/** A bar of up to 20 blocks for `value` out of `max`: the Summary's pictures, readable on screen and on paper. */
function bar(value: number, max: number): Cell {
  if (max <= 0 || value <= 0) return '';
  // A note: it runs on into the empty cells to its right instead of wrapping.
  return { note: '█'.repeat(Math.max(1, Math.round((value / max) * 20))) };
}

const VERDICT_MEANING: Record<string, string> = {
  RECONCILED: 'The sync completed and no error or warning is open: both services agree with themselves to the cent.',
  BREAKS: 'The sync completed and errors or warnings are open (or a roll-forward does not close): see Findings.',
  INCOMPLETE:
    'A resource could not be fully synced or a check could not run: zero findings over missing data prove nothing.',
};

/** Where a record the service no longer lists shows it: the sync that first found it missing. */
/** The matching rules, in the order they apply. */
const RULES = ['exact', 'tolerance', 'one-to-many', 'code-hash'];

/**
 * The books on the Summary: per kind and currency, the books rows matched (by which rule) and
 * left over, the service records left over, and the match rate; the Matching sheet lists them.
 */
async function* matchingSummary(books: BooksStore, line: (cells: Cell[]) => Cell[]): AsyncGenerator<Cell[]> {
  const rates = await books.matchRates();
  const { rejected } = await books.counts();
  yield line([
    { heading: "The merchant's books" },
    { label: 'currency' },
    { label: 'books rows' },
    { label: 'matched' },
    { label: 'rate (%)' },
    { label: 'books alone' },
    { label: 'service alone' },
  ]);
  if (rates.length === 0) {
    yield line([
      {
        note: 'No books imported: `ledger-recon books import FILE` or `run --books DIR` matches them against the services at every check',
      },
    ]);
    yield line([]);
    return;
  }
  const keys = [...new Set(rates.map((r) => `${r.kind}\u0000${r.currency ?? ''}`))];
  for (const key of keys) {
    const [kind, currency] = key.split('\u0000') as [string, string];
    const of = rates.filter((r) => r.kind === kind && (r.currency ?? '') === currency);
    const books = of.filter((r) => r.side === 'books');
    const n = (rows: typeof of): number => rows.reduce((sum, r) => sum + r.records, 0);
    const matched = n(books.filter((r) => r.status === 'matched'));
    const total = n(books);
    const rules = RULES.filter((rule) => books.some((r) => r.status === 'matched' && r.rule === rule))
      .map((rule) => `${rule} ${n(books.filter((r) => r.status === 'matched' && r.rule === rule))}`)
      .join(', ');
    yield line([
      `${kind}${rules ? ` (${rules})` : ''}`,
      currency || '—',
      total,
      matched,
      // A number, right-aligned under its label like the counts beside it.
      total === 0 ? null : Math.round((matched * 1_000) / total) / 10,
      total - matched,
      n(of.filter((r) => r.side !== 'books' && r.status !== 'matched')),
    ]);
  }
  yield line([
    {
      note: `Rules: exact, tolerance, one-to-many, code-hash; every pair and every record left over is on the Matching sheet.${rejected > 0 ? ` ${rejected.toLocaleString('en-US')} books row(s) could not be imported (books_rejections).` : ''}`,
    },
  ]);
  yield line([]);
}

const UNLISTED = 'no longer listed since sync';

/** Tables counted on the Summary; `true` where the mirror marks records no longer listed. */
const MIRRORED: [string, CountedTable, boolean?][] = [
  ['Gift cards', 'gift_cards'],
  ['Gift card ledger entries', 'gift_card_transactions', true],
  ['Coupons', 'coupons', true],
  ['DP wallet snapshots', 'dp_wallet_snapshots'],
  ['DP products', 'dp_products', true],
  ['DP orders', 'dp_orders', true],
  ['DP order lines', 'dp_order_lines'],
  ['DP vouchers (codes hashed)', 'dp_vouchers'],
  ['Quarantined records', 'quarantine'],
];

const SHEET_PURPOSE: Record<string, string> = {
  Findings: 'every finding of this run, new ones marked, with expected, actual and difference',
  'Card reconciliation': 'every card: initial − debits + refunds against the reported remaining balance',
  'Refunds by reference': 'debits and refunds per card and order reference',
  Coupons: 'every coupon with its counters',
  'DP orders': 'every order with its lines, FX and vouchers',
  'DP wallets': 'wallet balance snapshots per sync, and their moves',
  Quarantine: 'records that failed validation, with their raw JSON',
  Matching: "the merchant's books against the services: every pair with its rule, every record left over",
  'Month to date': "the month so far per currency and program, tied out against every card's balance",
  Checks: 'each check explained; kind: state (resolved when the records agree) or event (open until accepted)',
};
