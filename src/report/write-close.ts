/**
 * The period close's workpapers: a workbook (Summary with the sign-off block, Period
 * roll-forward, Cards at cut-off, Activity in period), the roll-forward and the cards as CSV,
 * and the whole close as JSON. Written under temporary names, renamed when all are complete.
 */
import { closeSync, createWriteStream, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { formatCents } from '../money.js';
import { closingOfKnown } from '../ledger/state.js';
import type { Mirror } from '../db/mirror.js';
import { ensureFolder, EXCLUSIVE, replaceable, temporaryBeside } from '../paths.js';
import {
  type ClosedPeriodFigures,
  closePeriod,
  type PeriodClose,
  type PeriodRollForward,
  type RunInFlight,
} from './close.js';
import type { LiabilitySettings } from '../ledger/liability.js';
import {
  bandsCsv,
  breakageEntries,
  LIABILITY_SHEETS,
  liabilityJson,
  liabilitySheets,
  liabilitySplitRows,
  unclaimedCsv,
  vintagesCsv,
} from './liability-sheets.js';
import { noteRows } from './notes.js';
import { csvField, csvFigure } from './neutralise.js';
import { describeInstant, type Period } from './period.js';
import { freeRevision, preparedOn } from './names.js';
import { removeStalePartials } from './partials.js';
import { ReportStore, type ActivityScope } from './store.js';
import { writeXlsx, type Cell, type SheetSpec } from './xlsx-writer.js';
import { FLOW_COLUMNS, ROLL_HEADER, rollForwardSheet } from './roll-forward-sheet.js';

export interface ClosePaths {
  workbook: string;
  rollForwardCsv: string;
  cardsCsv: string;
  json: string;
  /** The liability workpaper's tables: the vintages with their breakage, the dormancy and expiry bands, the holder report. */
  vintagesCsv: string;
  bandsCsv: string;
  unclaimedCsv: string;
}

/** The close's files in the order they are sealed. */
export const CLOSE_FILES = [
  'workbook',
  'rollForwardCsv',
  'cardsCsv',
  'json',
  'vintagesCsv',
  'bandsCsv',
  'unclaimedCsv',
] as const satisfies ReadonlyArray<keyof ClosePaths>;

export interface WriteCloseOptions {
  mirror: Mirror;
  period: Period;
  outDir: string;
  /** Fills "Prepared by" on the Summary; the reviewer's lines stay blank to sign. */
  preparer?: string;
  /** When it was prepared (epoch ms, the job's clock): the sign-off's date. */
  preparedAtMs?: number;
  /** Our merchant, as the newest check run pinned it; every card when null. */
  merchantId?: string | null;
  /** The newest check run's in-flight cards: a period ending now shows the same ones apart. */
  inFlight?: RunInFlight | null;
  /** What shapes breakage and unclaimed property (default: the documented defaults). */
  liability?: LiabilitySettings;
}

/** The most card or entry rows a workbook sheet lists; the CSV (cards) and the mirror (entries) hold them all. */
export const SHEET_ROW_CAP = 50_000;

const slug = (period: Period): string => period.label.replace(/[^0-9A-Za-z-]+/g, '_');

const CLOSE_SUFFIXES = [
  '.xlsx',
  '-rollforward.csv',
  '-cards.csv',
  '.json',
  '-vintages.csv',
  '-bands.csv',
  '-unclaimed.csv',
];

/**
 * The close's four files: the period's name, and a revision when a close of that name is in the
 * folder already (report/names.ts: nothing sealed is overwritten).
 */
export function closePaths(outDir: string, period: Period): ClosePaths {
  const base = freeRevision(join(outDir, `ledger-recon-close-${slug(period)}`), CLOSE_SUFFIXES);
  return {
    workbook: `${base}.xlsx`,
    rollForwardCsv: `${base}-rollforward.csv`,
    cardsCsv: `${base}-cards.csv`,
    json: `${base}.json`,
    vintagesCsv: `${base}-vintages.csv`,
    bandsCsv: `${base}-bands.csv`,
    unclaimedCsv: `${base}-unclaimed.csv`,
  };
}

const CARD_HEADER = [
  'gift card',
  'currency',
  'program',
  'issued (UTC)',
  ...FLOW_COLUMNS,
  'closing from flows',
  'closing at cut-off',
  'difference',
  'remainingBalance (service, at cut-off)',
  'in flight (apart)',
  'entries in period',
];
/**
 * The Cards at cut-off sheet's columns: the card, its flows and how it ties out first (what
 * prints, one page wide), then what is for the screen (in flight, entries, issue date). The
 * CSV keeps CARD_HEADER's order.
 */
const CARD_SHEET_HEADER = [
  'gift card',
  'program',
  'opening',
  'issued',
  'debited',
  'refunded',
  'voided',
  'expired',
  'closing from flows',
  'closing at cut-off',
  'difference',
  'service balance at cut-off',
  'currency',
  'in flight (apart)',
  'entries in period',
  'issued (UTC)',
];
/** Printed: the card, its program and its figures (each money cell names its currency), at 70 % type or more. */
const CARD_PRINTED = {
  columns: 12,
  widths: { 0: 19, 1: 11, 2: 12, 3: 12, 4: 12, 5: 12, 6: 12, 7: 12, 8: 12, 9: 12, 10: 12, 11: 12 },
};
const ACTIVITY_HEADER = [
  'created (UTC)',
  'entry',
  'gift card',
  'currency',
  'program',
  'type',
  'amount',
  'balanceBefore',
  'balanceAfter',
  'reference',
];
const ACTIVITY_WIDTHS = { 0: 20, 1: 20, 2: 20, 3: 9, 4: 11, 5: 8, 6: 12, 7: 12, 8: 12, 9: 18 };

/**
 * Closes the period and writes its files into `outDir`.
 * @returns the close and the paths written.
 */
export async function writeClose(
  options: WriteCloseOptions,
): Promise<{ close: ClosedPeriodFigures; paths: ClosePaths }> {
  ensureFolder('--out', options.outDir);
  // A close killed part-way left its temporary files: they go, as the nightly report's do.
  removeStalePartials(options.outDir);
  const final = closePaths(options.outDir, options.period);
  const temporary = Object.fromEntries(
    CLOSE_FILES.map((key) => [key, temporaryBeside(final[key])]),
  ) as unknown as ClosePaths;
  try {
    // One pass: every card to the CSV; to the workbook, the cards that do not tie out first, then the others up to the cap.
    const cardsCsv = new BufferedFile(temporary.cardsCsv);
    cardsCsv.write(`${CARD_HEADER.map((c) => csvField(c)).join(',')}\r\n`);
    const differing: Cell[][] = [];
    const differingIds: string[] = [];
    const listed: Cell[][] = [];
    let cards = 0;
    const close = await closePeriod(
      options.mirror,
      options.period,
      (card) => {
        cards += 1;
        const expected = closingOfKnown(card);
        const difference = expected === null || card.closingCents === null ? null : card.closingCents - expected;
        const figures = [
          card.openingCents,
          card.issuedCents,
          card.debitedCents,
          card.refundedCents,
          card.voidedCents,
          card.expiredCents,
          expected,
          card.closingCents,
          difference,
          card.remainingCents,
          card.inFlightCents,
        ];
        cardsCsv.write(
          `${[csvField(card.giftCardId), csvField(card.currency), csvField(card.programId), csvFigure(new Date(card.issuedAtMs).toISOString()), ...figures.map((f) => csvFigure(f === null ? null : formatCents(f))), csvFigure(String(card.entriesInPeriod))].join(',')}\r\n`,
        );
        const money = (cents: number | null): Cell => (cents === null ? null : { cents, currency: card.currency });
        const [inFlight, ...tied] = [figures.at(-1)!, ...figures.slice(0, -1)];
        const row: Cell[] = [
          card.giftCardId,
          card.programId,
          ...tied.map(money),
          card.currency,
          money(inFlight),
          card.entriesInPeriod,
          { date: card.issuedAtMs },
        ];
        if (difference !== 0) {
          differing.push(row);
          if (differingIds.length < PRINTED_CARDS) differingIds.push(card.giftCardId);
        } else if (listed.length < SHEET_ROW_CAP) listed.push(row);
      },
      {
        merchantId: options.merchantId ?? null,
        inFlight: options.inFlight ?? null,
        ...(options.liability ? { liability: options.liability } : {}),
      },
    );
    cardsCsv.close();
    await writeXlsx(
      temporary.workbook,
      {
        title: `Period close ${options.period.label} — ${close.closes ? 'ties out' : 'DOES NOT TIE OUT'}`,
        subject: 'Gift card liability roll-forward for a period',
        creator: 'ledger-recon',
        created: new Date(close.asOfMs),
      },
      await closeSheets(
        options,
        close,
        {
          rows: [...differing, ...listed.slice(0, Math.max(0, SHEET_ROW_CAP - differing.length))],
          differing: differing.length,
          differingIds,
        },
        cards,
        final,
      ),
    );
    await writeText(temporary.rollForwardCsv, rollForwardCsv(close.rollForwards));
    await writeText(temporary.json, `${JSON.stringify(closeJson(close), null, 2)}\n`);
    await writeText(temporary.vintagesCsv, vintagesCsv(close.liability.closing));
    await writeText(temporary.bandsCsv, bandsCsv(close.liability.closing));
    await writeText(temporary.unclaimedCsv, unclaimedCsv(close.liability.closing.escheat));
    for (const key of CLOSE_FILES) renameSync(temporary[key], replaceable(final[key]));
    return { close, paths: final };
  } finally {
    for (const path of Object.values(temporary)) rmSync(path, { force: true });
  }
}

/**
 * A file written synchronously in 1 MB pieces, for lines made inside a synchronous pass over
 * the mirror: memory stays bounded however many lines there are (a stream would buffer them all).
 */
class BufferedFile {
  readonly #fd: number;
  #pending = '';

  constructor(path: string) {
    this.#fd = openSync(path, EXCLUSIVE);
  }

  write(text: string): void {
    this.#pending += text;
    if (this.#pending.length >= 1 << 20) this.#flush();
  }

  close(): void {
    this.#flush();
    closeSync(this.#fd);
  }

  #flush(): void {
    writeSync(this.#fd, this.#pending);
    this.#pending = '';
  }
}

async function writeText(path: string, text: string): Promise<void> {
  const stream = createWriteStream(path, { flags: EXCLUSIVE });
  stream.end(text);
  await once(stream, 'close');
}

function rollForwardCsv(rows: PeriodRollForward[]): string {
  const figure = (cents: number | null): string => csvFigure(cents === null ? null : formatCents(cents));
  const lines = rows.map((r) =>
    [
      csvField(r.currency),
      csvField(r.programId),
      csvFigure(String(r.cards)),
      ...[
        r.openingCents,
        r.issuedCents,
        r.debitedCents,
        r.refundedCents,
        r.voidedCents,
        r.expiredCents,
        r.closingFromFlowsCents,
        r.closingFromCardsCents,
        r.differenceCents,
        r.serviceRemainingCents,
        r.serviceDifferenceCents,
        r.inFlightCents,
      ].map(figure),
      csvFigure(String(r.inFlightCards)),
      csvFigure(String(r.unknownCards)),
      csvField(r.closes ? 'yes' : 'NO'),
    ].join(','),
  );
  return `${[ROLL_HEADER.map((c) => csvField(c)).join(','), ...lines].join('\r\n')}\r\n`;
}

/** The close as JSON: amounts as decimal strings, instants as RFC 3339. */
function closeJson(close: ClosedPeriodFigures): unknown {
  const money = (cents: number | null): string | null => (cents === null ? null : formatCents(cents));
  return {
    period: {
      label: close.period.label,
      from: new Date(close.period.startMs).toISOString(),
      to: new Date(close.period.endMs).toISOString(),
      timeZone: close.period.timeZone,
    },
    asOf: new Date(close.asOfMs).toISOString(),
    closingCutOff: new Date(close.closingCutOffMs).toISOString(),
    endsNow: close.endsNow,
    merchantId: close.merchantId,
    closes: close.closes,
    unattributedEntries: close.unattributedEntries,
    rollForwards: close.rollForwards.map((r) => ({
      currency: r.currency,
      programId: r.programId,
      cards: r.cards,
      opening: money(r.openingCents),
      issued: money(r.issuedCents),
      debited: money(r.debitedCents),
      refunded: money(r.refundedCents),
      voided: money(r.voidedCents),
      expired: money(r.expiredCents),
      closingFromFlows: money(r.closingFromFlowsCents),
      closingFromCards: money(r.closingFromCardsCents),
      difference: money(r.differenceCents),
      serviceRemaining: money(r.serviceRemainingCents),
      serviceDifference: money(r.serviceDifferenceCents),
      inFlight: money(r.inFlightCents),
      inFlightCards: r.inFlightCards,
      unknownCards: r.unknownCards,
      entriesInPeriod: r.entriesInPeriod,
      closes: r.closes,
    })),
    liability: liabilityJson(close.liability, breakageEntries(close)),
  };
}

/** The Summary's columns: the labels, then the figures of the headline and the liability split (one page wide at 75 %). */
const CLOSE_SUMMARY_WIDTHS = [32, 24, 16, 16, 16, 16, 9];

/** The roll-forwards the Summary's first lines show; the rest are on the Period roll-forward sheet. */
const HEADLINE_GROUPS = 12;

/** The most cards that do not tie out the printed pages list (the rest follow on screen and in the CSV). */
const PRINTED_CARDS = 1_000;

/** The Cards at cut-off rows, those that do not tie out first, and which cards those are. */
interface CardSheetRows {
  rows: Cell[][];
  differing: number;
  differingIds: string[];
}

/** The close's first lines: each roll-forward's closing, what the cards and the service hold, whether it ties out. */
function closeHeadline(close: PeriodClose): Cell[][] {
  const money = (cents: number | null, currency: string): Cell => (cents === null ? null : { cents, currency });
  const shown = close.rollForwards.slice(0, HEADLINE_GROUPS);
  return [
    [
      { label: 'closing per currency and program' },
      { label: 'closing from flows' },
      { label: 'at cut-off (cards)' },
      { label: 'service' },
      { label: 'difference' },
      { label: 'ties out' },
    ],
    ...shown.map((r): Cell[] => [
      `${r.currency} ${r.programId ?? '(no program)'}`,
      money(r.closingFromFlowsCents, r.currency),
      money(r.closingFromCardsCents, r.currency),
      money(r.serviceRemainingCents, r.currency),
      // Where it does not tie out: cards − flows, or else the service − the cards.
      money(r.differenceCents !== 0 ? r.differenceCents : (r.serviceDifferenceCents ?? 0), r.currency),
      r.closes ? 'yes' : 'NO',
    ]),
    ...(close.rollForwards.length > shown.length
      ? [[`… ${close.rollForwards.length - shown.length} more: see Period roll-forward`]]
      : []),
  ];
}

/** The close's Summary sheet: its result and headline, what it covered, how to read it, and the sign-off. */
function closeSummary(options: WriteCloseOptions, close: ClosedPeriodFigures, cards: number): Cell[][] {
  const { period } = options;
  const failing = close.rollForwards.filter((r) => !r.closes);
  // A line of text beside its label runs on into the empty cells to its right: the figures' columns stay narrow, and page 1 one page wide.
  const runOn = (row: Cell[]): Cell[][] =>
    row.length === 2 && typeof row[1] === 'string' && typeof row[0] === 'string' ? noteRows(row[0], row[1]) : [row];
  return [
    [{ heading: `Period close ${period.label}` }],
    ['Result', { emphasis: close.closes ? 'TIES OUT' : 'DOES NOT TIE OUT', good: close.closes }],
    ...closeHeadline(close),
    [],
    ...liabilitySplitRows(close),
    [],
    [
      'Period',
      `${describeInstant(period.startMs, period.timeZone)} up to ${describeInstant(period.endMs, period.timeZone)} (excluded)`,
    ],
    ['Cut-offs in', period.timeZone],
    ['Data as of', `${describeInstant(close.asOfMs, 'UTC')}: every ledger entry committed before it is in the mirror`],
    [
      'Closing cut-off',
      close.endsNow
        ? `${describeInstant(close.closingCutOffMs, period.timeZone)}: the period reaches the data's edge, so it is also tied out against the service's remainingBalance`
        : describeInstant(close.closingCutOffMs, period.timeZone),
    ],
    ['Merchant', close.merchantId ?? 'every card in the mirror (no check run has pinned the merchant yet)'],
    ['Roll-forwards (currency × program)', close.rollForwards.length],
    [
      'Not tying out',
      failing.length === 0 ? 'none' : failing.map((r) => `${r.currency} ${r.programId ?? '(no program)'}`).join('; '),
    ],
    ['Cards in the period', cards],
    ['Ledger entries of cards not in the mirror', close.unattributedEntries],
    [],
    [
      'How to read it',
      "opening + issued − debited + refunded − voided − expired = closing from flows; it must equal the closing at cut-off, the sum of every card's balance then (its last entry's balanceAfter, or its initialBalance; nothing for a card voided or expired).",
    ],
    [
      'In flight',
      close.endsNow
        ? `${close.rollForwards.reduce((n, r) => n + r.inFlightCards, 0)} cards moved while the sync read them: each counts at its ledger balance, and what its snapshot holds beyond that is shown apart as in flight; never a break, checked again next run`
        : "none: the period ends before the data's edge",
    ],
    [],
    [{ heading: 'Sign-off' }],
    [
      'Prepared by',
      options.preparer ?? '',
      'Date',
      options.preparer ? preparedOn(options.preparedAtMs, close.asOfMs) : '',
    ],
    ['Reviewed by', '', 'Date', ''],
    [],
    [{ sheet: 'Period roll-forward', text: 'Period roll-forward' }],
    [{ sheet: 'Cards at cut-off', text: 'Cards at cut-off' }],
    [{ sheet: 'Activity in period', text: 'Activity in period' }],
    ...LIABILITY_SHEETS.map((name): Cell[] => [{ sheet: name, text: name }]),
  ].flatMap(runOn);
}

async function closeSheets(
  options: WriteCloseOptions,
  close: ClosedPeriodFigures,
  cardSheet: CardSheetRows,
  cards: number,
  /** Where every card and every escheat candidate is listed: the close's CSVs. */
  paths: ClosePaths,
): Promise<SheetSpec[]> {
  const csv = paths.cardsCsv;
  const cardRows = cardSheet.rows;
  const summary = closeSummary(options, close, cards);
  const shownCards =
    cardRows.length < cards
      ? [
          ...cardRows,
          [`… ${(cards - cardRows.length).toLocaleString('en-US')} more cards tie out: every card is in ${csv}`],
        ]
      : cardRows;
  const printedCards = Math.min(cardSheet.differing, PRINTED_CARDS);
  const activity = await activitySheet(new ReportStore(options.mirror), close, cardSheet.differingIds);
  return [
    { name: 'Summary', rows: summary, widths: CLOSE_SUMMARY_WIDTHS, printScale: 0.75 },
    rollForwardSheet('Period roll-forward', close),
    {
      name: 'Cards at cut-off',
      header: CARD_SHEET_HEADER,
      rows: shownCards,
      // On paper, the cards that do not tie out, one page wide; every card on screen and in the CSV.
      printColumns: CARD_PRINTED.columns,
      fixedWidths: CARD_PRINTED.widths,
      printRows: Math.max(printedCards, 1),
      printNote:
        printedCards === 0
          ? `Printed: no card differs; every card ties out, each listed on screen and in ${csv}`
          : `Printed: the ${printedCards.toLocaleString('en-US')} card${printedCards === 1 ? '' : 's'} that do not tie out${cardSheet.differing > printedCards ? ` (of ${cardSheet.differing.toLocaleString('en-US')})` : ''}; every other card follows on screen and in ${csv}`,
    },
    { name: 'Activity in period', header: ACTIVITY_HEADER, fixedWidths: ACTIVITY_WIDTHS, ...activity },
    ...liabilitySheets(close, SHEET_ROW_CAP, paths.unclaimedCsv),
  ];
}

/** The Activity in period sheet: the entries of the cards that do not tie out first (what prints), then every other. */
async function activitySheet(
  store: ReportStore,
  close: PeriodClose,
  differingIds: readonly string[],
): Promise<Pick<SheetSpec, 'rows' | 'printRows' | 'printNote'>> {
  const printed =
    differingIds.length === 0 ? 0 : await store.activityCount(activityScope(close, { only: differingIds }));
  return {
    printRows: Math.max(printed, 1),
    printNote:
      printed === 0
        ? 'Printed: no card differs, so no entry is printed; every entry of the period is listed on screen'
        : `Printed: the ${printed.toLocaleString('en-US')} entries of the cards that do not tie out; every other entry follows on screen`,
    rows: (async function* () {
      if (differingIds.length > 0) yield* activityRows(store, close, { only: differingIds });
      yield* activityRows(store, close, { except: differingIds });
    })(),
  };
}

/** The period's ledger entries of the merchant's cards, of some cards or all but some. */
function activityScope(
  close: PeriodClose,
  cards: { only?: readonly string[]; except?: readonly string[] },
): ActivityScope {
  return { fromMs: close.period.startMs, toMs: close.closingCutOffMs, merchantId: close.merchantId, ...cards };
}

/** The period's ledger entries, card by card in time order, up to the cap; the mirror holds the rest. */
async function* activityRows(
  store: ReportStore,
  close: PeriodClose,
  cards: { only?: readonly string[]; except?: readonly string[] },
): AsyncGenerator<Cell[]> {
  let count = 0;
  for await (const batch of store.activity(activityScope(close, cards), SHEET_ROW_CAP + 1)) {
    for (const [createdAtMs, id, card, currency, program, type, amount, before, after, reference] of batch) {
      count += 1;
      if (count > SHEET_ROW_CAP) {
        yield [
          `… more entries: the mirror holds them all (ledger-recon sql "SELECT * FROM card_ledger WHERE created_at_ms >= ${close.period.startMs} AND created_at_ms < ${close.closingCutOffMs}")`,
        ];
        return;
      }
      const money = (cents: number | null): Cell => (cents === null ? null : { cents, currency });
      yield [
        { date: createdAtMs },
        id,
        card,
        currency,
        program,
        type,
        money(amount),
        money(before),
        money(after),
        reference,
      ];
    }
  }
}
