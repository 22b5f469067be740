/**
 * The close's liability workpaper: the sheets (Liability by vintage, Redemption curve, Dormancy,
 * Breakage, Unclaimed property), the split on page 1, and the same figures as JSON and CSV. Every
 * figure comes from the close's one walk (ledger/liability.ts); nothing here computes one beyond
 * sums the sheet shows as formulas over its own rows.
 */
import type { CloseLiability, ClosedPeriodFigures } from './close.js';
import { formatCents } from '../money.js';
import {
  type BandRow,
  type BreakageEntry,
  breakageEntriesOf,
  DORMANCY_BANDS,
  type EscheatCandidate,
  EXPIRY_BANDS,
  type LiabilityAt,
  type MonthBand,
  type Vintage,
  type VintageBreakage,
  type VintageTotal,
} from '../ledger/liability.js';

// What the jobs and commands above the report take of the liability's settings and rates.
export type { LiabilitySettings } from '../ledger/liability.js';
export { LiabilitySettingsError, liabilitySettingsFile, parseLiabilitySettings } from '../ledger/liability-settings.js';
export { formatRate } from '../ledger/rate.js';
import { liabilitySettingsFile } from '../ledger/liability-settings.js';
import { formatRate, rateText } from '../ledger/rate.js';
import { csvField, csvFigure } from './neutralise.js';
import type { Cell, SheetSpec } from './xlsx-writer.js';
import { noteRows } from './notes.js';

/** The liability sheets' names, in the workbook's order after the close's own. */
export const LIABILITY_SHEETS = [
  'Liability by vintage',
  'Redemption curve',
  'Dormancy',
  'Breakage',
  'Unclaimed property',
] as const;

/** The redemption curve's points shown: whole months since the issue month. */
export const CURVE_MONTHS = [1, 2, 3, 6, 12, 18, 24, 36, 48, 60] as const;

/** The standards' paragraphs each method rests on, stated on the Breakage sheet and in docs/liability.md. */
const SOURCES = {
  breakage:
    'ASC 606-10-55-46 to 55-49 and IFRS 15 B44 to B47: expected breakage is recognised as revenue in proportion to the pattern of rights exercised by the customer',
  constraint:
    'ASC 606-10-32-11 and IFRS 15.56: the estimate is constrained so that a significant reversal is not probable',
  escheat:
    'ASC 606-10-55-49: amounts owed to a jurisdiction as unclaimed property are a liability, never breakage revenue',
  ifrs9:
    'IFRS 9 3.3.1: a stored-value card that is a financial liability is derecognised only when extinguished (redeemed, expired or remitted); no breakage is recognised before',
};

const money = (cents: number | null, currency: string): Cell => (cents === null ? null : { cents, currency });
const program = (id: string | null): string => id ?? '(no program)';
const decimal = (cents: number | null): string | null => (cents === null ? null : formatCents(cents));

/** The split per currency for page 1: balances − breakage recognised − escheat payable = the contract liability. */
export function liabilitySplitRows(close: ClosedPeriodFigures): Cell[][] {
  const { closing } = close.liability;
  if (closing.split.length === 0) return [];
  return [
    [
      { label: 'liability split per currency' },
      { label: 'card balances at cut-off' },
      { label: 'less breakage recognised' },
      { label: 'less escheat payable' },
      { label: 'contract liability' },
    ],
    ...closing.split.map((s): Cell[] => [
      s.currency,
      money(s.balancesCents, s.currency),
      money(s.breakageRecognisedCents, s.currency),
      money(s.escheatPayableCents, s.currency),
      // The row lands where the Summary places it: the formula names its own row.
      { formula: 'B{row}-C{row}-D{row}', cents: s.contractLiabilityCents, currency: s.currency },
    ]),
    [
      'Liability basis',
      {
        note: `${close.liability.settings.standard.toUpperCase()}: breakage recognised in proportion to redemptions (${close.liability.settings.standard === 'ifrs-9' ? 'none before derecognition under IFRS 9' : 'see Breakage'}); escheat payable: balances past their jurisdiction's dormancy period (see Unclaimed property)`,
      },
    ],
  ];
}

/** The journal entries the period's breakage implies, per currency (ledger/liability.ts breakageEntriesOf). */
export function breakageEntries(close: ClosedPeriodFigures): BreakageEntry[] {
  return breakageEntriesOf(close.liability.closing, close.liability.opening, close.rollForwards);
}

const VINTAGE_HEADER = [
  'currency',
  'program',
  'issue month (UTC)',
  'age (months)',
  'cards',
  'issued',
  'redeemed (debits less refunds)',
  'voided',
  'expired',
  'remaining at cut-off',
  'not explained by the flows',
  'escheat candidates',
  'cards off the cent (apart)',
];

/** Liability by vintage: a row per currency, program and issue month; after each currency and program, its totals as sums of its rows. */
function vintageSheet(at: LiabilityAt): SheetSpec {
  const rows: Cell[][] = [];
  const totals = new Map(at.totals.map((t) => [`${t.currency} ${t.programId}`, t]));
  let row = 2;
  for (const group of groupsOf(at.vintages)) {
    const first = row;
    for (const v of group) {
      rows.push([
        v.currency,
        program(v.programId),
        v.month,
        v.ageMonths,
        v.cards,
        money(v.issuedCents, v.currency),
        money(v.redeemedCents, v.currency),
        money(v.voidedCents, v.currency),
        money(v.expiredCents, v.currency),
        money(v.remainingCents, v.currency),
        { formula: `J${row}-F${row}+G${row}+H${row}+I${row}`, cents: v.unexplainedCents, currency: v.currency },
        money(v.escheatCents, v.currency),
        v.unknownCards,
      ]);
      row += 1;
    }
    const last = row - 1;
    const v0 = group[0] as Vintage;
    const sum = (column: string, cents: number): Cell => ({
      formula: `SUM(${column}${first}:${column}${last})`,
      cents,
      currency: v0.currency,
    });
    const t = totalOf(totals, v0);
    rows.push([
      v0.currency,
      program(v0.programId),
      'total',
      null,
      { formula: `SUM(E${first}:E${last})`, count: t.cards },
      sum('F', t.issuedCents),
      sum('G', t.redeemedCents),
      sum('H', t.voidedCents),
      sum('I', t.expiredCents),
      sum('J', t.remainingCents),
      sum('K', t.unexplainedCents),
      sum('L', t.escheatCents),
      { formula: `SUM(M${first}:M${last})`, count: t.unknownCards },
    ]);
    row += 1;
  }
  // One page wide at about 80 %: a vintage's figures never print apart from its currency, program and month.
  return {
    name: 'Liability by vintage',
    header: VINTAGE_HEADER,
    widths: [8, 17, 9, 6, 7, 13, 13, 11, 12, 13, 11, 12, 8],
    printKeyColumns: 3,
    rows,
  };
}

/** A currency and program's totals, which the ledger stage gives for every group it has rows of. */
function totalOf(
  totals: ReadonlyMap<string, VintageTotal>,
  row: { currency: string; programId: string | null },
): VintageTotal {
  const total = totals.get(`${row.currency} ${row.programId}`);
  if (!total) throw new Error(`no totals for ${row.currency} ${row.programId ?? '(no program)'}`);
  return total;
}

/** Vintages (or rows of them) by currency and program, in order. */
function groupsOf<T extends { currency: string; programId: string | null }>(rows: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (const r of rows) {
    const last = groups.at(-1);
    if (last && last[0]?.currency === r.currency && last[0]?.programId === r.programId) last.push(r);
    else groups.push([r]);
  }
  return groups;
}

/**
 * The redemption curve: per vintage the share of its issued value redeemed after k whole months
 * since the issue month, each a formula over the cumulative amounts at the row's end (printed:
 * the shares). A point the vintage is too young for is blank.
 */
function curveSheet(at: LiabilityAt): SheetSpec {
  const shares = CURVE_MONTHS.length;
  const firstCents = 4 + shares;
  const header = [
    'currency',
    'program',
    'issue month (UTC)',
    'issued',
    ...CURVE_MONTHS.map((k) => `share redeemed after ${k} ${k === 1 ? 'month' : 'months'}`),
    ...CURVE_MONTHS.map((k) => `redeemed after ${k} ${k === 1 ? 'month' : 'months'}`),
  ];
  const letter = (index: number): string => columnOf(index + 1);
  const rows = at.vintages.map((v, i): Cell[] => {
    const row = i + 2;
    const points = CURVE_MONTHS.map((k) => v.redeemedAfterMonths[k - 1] ?? null);
    return [
      v.currency,
      program(v.programId),
      v.month,
      money(v.issuedCents, v.currency),
      ...points.map(
        (p, j): Cell =>
          p === null || v.issuedCents === 0
            ? null
            : { formula: `${letter(firstCents + j)}${row}/D${row}`, share: p / v.issuedCents },
      ),
      ...points.map((p) => money(p, v.currency)),
    ];
  });
  return {
    name: 'Redemption curve',
    header,
    widths: [8, 17, 9, 13, ...CURVE_MONTHS.map(() => 9), ...CURVE_MONTHS.map(() => 13)],
    printColumns: firstCents,
    printKeyColumns: 3,
    rows,
  };
}

/** A column's letters from its 1-based number. */
function columnOf(n: number): string {
  let letters = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) letters = String.fromCharCode(65 + ((k - 1) % 26)) + letters;
  return letters;
}

const BAND_HEADER = ['measure', 'currency', 'program', 'band', 'cards owing', 'value'];

/**
 * Dormancy: per currency and program a row, a column per band and the total as the sum of the
 * row; the value by time since last activity, then the cards owing, then the same by time to expiry.
 */
function dormancySheet(at: LiabilityAt): SheetSpec {
  const rows: Cell[][] = [];
  const totals = new Map(at.totals.map((t) => [`${t.currency} ${t.programId}`, t]));
  const table = (title: string, labels: readonly MonthBand[], bands: readonly BandRow[], value: boolean): void => {
    rows.push(
      [{ note: title, strong: true }],
      [{ label: 'currency' }, { label: 'program' }, ...labels.map((b) => ({ label: b.label })), { label: 'total' }],
    );
    for (const group of groupsOf(bands)) {
      const row = rows.length + 1;
      const g0 = group[0] as BandRow;
      const last = columnOf(2 + labels.length);
      // Each table's total is its currency and program's: the closing at cut-off, the cards owing.
      const t = totalOf(totals, g0);
      rows.push([
        g0.currency,
        program(g0.programId),
        ...group.map((b): Cell => (value ? money(b.cents, b.currency) : b.cards)),
        value
          ? { formula: `SUM(C${row}:${last}${row})`, cents: t.remainingCents, currency: g0.currency }
          : { formula: `SUM(C${row}:${last}${row})`, count: t.owingCards },
      ]);
    }
    rows.push([]);
  };
  table('Remaining liability by time since last activity', DORMANCY_BANDS, at.dormancy, true);
  table('Cards owing by time since last activity', DORMANCY_BANDS, at.dormancy, false);
  table('Remaining liability by time to expiry', EXPIRY_BANDS, at.expiry, true);
  table('Cards owing by time to expiry', EXPIRY_BANDS, at.expiry, false);
  rows.push(
    ...noteRows(
      'How to read it',
      "a card owing something at the cut-off counts once in each table: by whole calendar months since its last ledger entry (or its issue, when it has none), and to its expiresAt; each table's total is the roll-forward's closing at cut-off",
    ),
  );
  return { name: 'Dormancy', rows, widths: [15, 16, 14, 14, 14, 14, 14, 14, 16], printScale: 0.75 };
}

/** Breakage: the inputs and method with their sources, each program's rate, each vintage's figures, and the period's journal entries. */
function breakageSheet(close: ClosedPeriodFigures): SheetSpec {
  const { settings, closing } = close.liability;
  const ifrs9 = settings.standard === 'ifrs-9';
  const rows: Cell[][] = [
    [
      {
        note: `Breakage at ${new Date(closing.cutOffMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        strong: true,
      },
    ],
    ['Standard', settings.standard.toUpperCase()],
    ...noteRows(
      'Method',
      ifrs9
        ? 'none recognised before derecognition: the cards are financial liabilities (IFRS 9); the estimate below is shown for information'
        : 'proportional: recognised to date = expected breakage × redemptions to date ÷ expected redemptions, per vintage; expected breakage = base × the rate after the haircut; base = issued − voided − escheat candidates',
    ),
    ...noteRows('Source', ifrs9 ? SOURCES.ifrs9 : SOURCES.breakage),
    ...noteRows('Constraint', `${formatRate(settings.haircut)} haircut on every rate: ${SOURCES.constraint}`),
    ...noteRows(
      'Rate',
      `a rate set by finance for the program, else the mature vintages' share never redeemed (their base less their redemptions, over their base, weighted by value); a vintage is mature at ${settings.maturityMonths} whole months old or more`,
    ),
    ...noteRows('Unclaimed property', SOURCES.escheat),
    ...noteRows(
      'Rounding',
      "every amount is computed from exact rates and rounded down to the cent: never more breakage than the method gives; recognised never exceeds expected breakage nor the vintage's remaining beside its escheat candidates",
    ),
    [],
    [
      { label: 'currency' },
      { label: 'program' },
      { label: 'rate from' },
      { label: 'mature vintages' },
      { label: 'mature base' },
      { label: 'never redeemed' },
      { label: 'rate' },
      { label: 'after the haircut' },
    ],
    ...closing.programs.map((p): Cell[] => [
      p.currency,
      program(p.programId),
      p.source === 'set' ? 'set by finance' : p.source === 'mature vintages' ? 'mature vintages' : 'none: no basis',
      p.matureVintages,
      money(p.matureBaseCents, p.currency),
      money(p.matureUnredeemedCents, p.currency),
      p.rate === null ? '—' : formatRate(p.rate),
      formatRate(p.constrainedRate),
    ]),
    [],
    [
      { label: 'currency' },
      { label: 'program' },
      { label: 'issue month' },
      { label: 'base (issued − voided − escheat)' },
      { label: 'expected breakage' },
      { label: 'expected redemptions' },
      { label: 'redeemed to date' },
      { label: 'recognised to date' },
    ],
  ];
  const tableStart = rows.length + 1;
  closing.breakage.forEach((b: VintageBreakage, i) => {
    const row = tableStart + i;
    rows.push([
      b.currency,
      program(b.programId),
      b.month,
      money(b.baseCents, b.currency),
      money(b.expectedCents, b.currency),
      { formula: `D${row}-E${row}`, cents: b.expectedRedemptionsCents, currency: b.currency },
      money(b.redeemedCents, b.currency),
      money(b.recognisedCents, b.currency),
    ]);
  });
  rows.push(
    [],
    [{ note: 'The journal entries the period implies', strong: true }],
    [
      { label: 'currency' },
      { label: 'recognised at opening' },
      { label: 'recognised at closing' },
      { label: 'proportional breakage this period' },
      { label: 'breakage at expiry this period' },
    ],
  );
  const entriesStart = rows.length + 1;
  breakageEntries(close).forEach((e, i) => {
    const row = entriesStart + i;
    rows.push([
      e.currency,
      money(e.recognisedOpeningCents, e.currency),
      money(e.recognisedClosingCents, e.currency),
      { formula: `C${row}-B${row}`, cents: e.proportionalCents, currency: e.currency },
      money(e.atExpiryCents, e.currency),
    ]);
  });
  rows.push(
    [],
    ...noteRows(
      'Entry',
      ifrs9
        ? 'none for proportional breakage (IFRS 9); the expired amounts are derecognised as the EXPIRE entries took them'
        : 'debit the gift card contract liability, credit breakage revenue, by the proportional breakage this period (a negative amount reverses); and by the breakage at expiry, the amounts the EXPIRE entries took',
    ),
  );
  return { name: 'Breakage', rows, widths: [18, 17, 16, 17, 17, 17, 17, 17], printScale: 0.75 };
}

/** Unclaimed property: per jurisdiction the candidates and their value, then every candidate (up to the cap). */
function unclaimedSheet(close: ClosedPeriodFigures, cap: number, csv: string): SheetSpec {
  const { settings, closing } = close.liability;
  const rows: Cell[][] = [
    [{ note: 'Unclaimed property: balances past their jurisdiction’s dormancy period', strong: true }],
    ...noteRows(
      'Jurisdiction',
      `a card's program's jurisdiction where set, else the state of incorporation (${settings.stateOfIncorporation}): the service gives no owner address`,
    ),
    ...noteRows(
      'Dormancy',
      `${[...settings.jurisdictions].map(([code, r]) => `${code} ${r.exempt ? 'exempt' : `${r.dormancyMonths} months`}`).join(', ')}; any other ${settings.defaultDormancyMonths} months, since the card's last ledger entry (or its issue)`,
    ),
    [],
    [{ label: 'jurisdiction' }, { label: 'currency' }, { label: 'cards' }, { label: 'value' }],
    ...closing.escheatTotals.map((t): Cell[] => [t.jurisdiction, t.currency, t.cards, money(t.cents, t.currency)]),
    [],
    [
      { label: 'gift card' },
      { label: 'jurisdiction' },
      { label: 'currency' },
      { label: 'program' },
      { label: 'issued (UTC)' },
      { label: 'last activity (UTC)' },
      { label: 'dormancy (months)' },
      { label: 'balance' },
    ],
    ...closing.escheat
      .slice(0, cap)
      .map((c): Cell[] => [
        c.giftCardId,
        c.jurisdiction,
        c.currency,
        program(c.programId),
        { date: c.issuedAtMs },
        { date: c.lastActivityMs },
        c.dormancyMonths,
        money(c.balanceCents, c.currency),
      ]),
    ...(closing.escheat.length === 0
      ? [['none: no card owing something is past its jurisdiction’s dormancy period at the cut-off']]
      : []),
    ...(closing.escheat.length > cap
      ? [[`… ${(closing.escheat.length - cap).toLocaleString('en-US')} more: every one is in ${csv}`]]
      : []),
  ];
  return { name: 'Unclaimed property', rows, widths: [38, 13, 9, 16, 18, 18, 11, 16], printScale: 0.75 };
}

/** The liability sheets of a close, in LIABILITY_SHEETS' order. */
export function liabilitySheets(close: ClosedPeriodFigures, cap: number, unclaimedCsv: string): SheetSpec[] {
  const at = close.liability.closing;
  return [
    vintageSheet(at),
    curveSheet(at),
    dormancySheet(at),
    breakageSheet(close),
    unclaimedSheet(close, cap, unclaimedCsv),
  ];
}

/** The liability as the close's JSON (and its manifest's figures) states it: amounts as decimal strings, rates as exact decimals. */
export function liabilityJson(liability: CloseLiability, entries: readonly BreakageEntry[]): unknown {
  const at = liability.closing;
  return {
    cutOff: new Date(at.cutOffMs).toISOString(),
    settings: liabilitySettingsFile(liability.settings),
    split: at.split.map((s) => ({
      currency: s.currency,
      balances: decimal(s.balancesCents),
      breakageRecognised: decimal(s.breakageRecognisedCents),
      escheatPayable: decimal(s.escheatPayableCents),
      contractLiability: decimal(s.contractLiabilityCents),
      expiredToDate: decimal(s.expiredToDateCents),
      unknownCards: s.unknownCards,
    })),
    vintages: at.vintages.map((v) => ({
      currency: v.currency,
      programId: v.programId,
      month: v.month,
      ageMonths: v.ageMonths,
      cards: v.cards,
      issued: decimal(v.issuedCents),
      redeemed: decimal(v.redeemedCents),
      voided: decimal(v.voidedCents),
      expired: decimal(v.expiredCents),
      remaining: decimal(v.remainingCents),
      unexplained: decimal(v.unexplainedCents),
      unknownCards: v.unknownCards,
      escheat: decimal(v.escheatCents),
      escheatCards: v.escheatCards,
      redeemedAfterMonths: v.redeemedAfterMonths.map(decimal),
    })),
    dormancy: at.dormancy.map(bandJson),
    expiry: at.expiry.map(bandJson),
    programs: at.programs.map((p) => ({
      currency: p.currency,
      programId: p.programId,
      source: p.source,
      matureVintages: p.matureVintages,
      matureBase: decimal(p.matureBaseCents),
      matureUnredeemed: decimal(p.matureUnredeemedCents),
      rate: p.rate === null ? null : rateText(p.rate),
      constrainedRate: rateText(p.constrainedRate),
    })),
    breakage: at.breakage.map((b) => ({
      currency: b.currency,
      programId: b.programId,
      month: b.month,
      base: decimal(b.baseCents),
      expected: decimal(b.expectedCents),
      expectedRedemptions: decimal(b.expectedRedemptionsCents),
      redeemed: decimal(b.redeemedCents),
      recognised: decimal(b.recognisedCents),
    })),
    entries: entries.map((e) => ({
      currency: e.currency,
      recognisedOpening: decimal(e.recognisedOpeningCents),
      recognisedClosing: decimal(e.recognisedClosingCents),
      proportional: decimal(e.proportionalCents),
      atExpiry: decimal(e.atExpiryCents),
    })),
    escheat: at.escheat.map((c) => ({
      giftCardId: c.giftCardId,
      jurisdiction: c.jurisdiction,
      currency: c.currency,
      programId: c.programId,
      issuedAt: new Date(c.issuedAtMs).toISOString(),
      lastActivity: new Date(c.lastActivityMs).toISOString(),
      dormancyMonths: c.dormancyMonths,
      balance: decimal(c.balanceCents),
    })),
  };
}

const bandJson = (b: BandRow) => ({
  currency: b.currency,
  programId: b.programId,
  band: b.band,
  cards: b.cards,
  value: decimal(b.cents),
});

const CSV_VINTAGE_HEADER = [
  ...VINTAGE_HEADER.slice(0, 11),
  'escheat candidates',
  'escheat cards',
  'cards off the cent',
  'breakage base',
  'expected breakage',
  'expected redemptions',
  'breakage recognised to date',
  ...CURVE_MONTHS.map((k) => `redeemed after ${k} months`),
];

/** The vintages as CSV: a row each, with its breakage and its curve's amounts. */
export function vintagesCsv(at: LiabilityAt): string {
  const lines = at.vintages.map((v, i) => {
    const b = at.breakage[i] as VintageBreakage;
    return [
      csvField(v.currency),
      csvField(v.programId),
      csvFigure(v.month),
      csvFigure(String(v.ageMonths)),
      csvFigure(String(v.cards)),
      ...[
        v.issuedCents,
        v.redeemedCents,
        v.voidedCents,
        v.expiredCents,
        v.remainingCents,
        v.unexplainedCents,
        v.escheatCents,
      ].map((c) => csvFigure(decimal(c))),
      csvFigure(String(v.escheatCards)),
      csvFigure(String(v.unknownCards)),
      ...[b.baseCents, b.expectedCents, b.expectedRedemptionsCents, b.recognisedCents].map((c) =>
        csvFigure(decimal(c)),
      ),
      ...CURVE_MONTHS.map((k) => csvFigure(decimal(v.redeemedAfterMonths[k - 1] ?? null))),
    ].join(',');
  });
  return `${[CSV_VINTAGE_HEADER.map((c) => csvField(c)).join(','), ...lines].join('\r\n')}\r\n`;
}

/** The bands as CSV: since last activity, then to expiry. */
export function bandsCsv(at: LiabilityAt): string {
  const line = (measure: string) => (b: BandRow) =>
    [
      csvFigure(measure),
      csvField(b.currency),
      csvField(b.programId),
      csvFigure(b.band),
      csvFigure(String(b.cards)),
      csvFigure(decimal(b.cents)),
    ].join(',');
  return `${[
    BAND_HEADER.map((c) => csvField(c)).join(','),
    ...at.dormancy.map(line('since last activity')),
    ...at.expiry.map(line('to expiry')),
  ].join('\r\n')}\r\n`;
}

/**
 * The holder report's columns, each with the NAUPA standard electronic format's Property record
 * (TR-CODE 2) field it fills (docs/liability.md): a filing tool maps them one to one.
 */
export const UNCLAIMED_COLUMNS = [
  ['property_id', 'PROP-ID-NUMBER: the gift card ID, the holder’s identifier of the property'],
  ['property_type', 'PROP-TYPE: the NAUPA property code, MS12 (unredeemed gift certificates)'],
  ['owner_name', 'OWNER-NAME: UNKNOWN (the service keeps no owner)'],
  ['owner_state', 'OWNER-STATE: the jurisdiction the property is reported to'],
  ['date_of_last_activity', 'PROP-DATE-OF-LAST-ACTIVITY: YYYYMMDD, the last ledger entry (or the issue)'],
  ['amount_reported', 'PROP-AMOUNT-REPORTED: the balance at the cut-off, a decimal'],
  ['currency', 'the amount’s currency'],
  ['issued', 'YYYYMMDD: the card’s issue'],
  ['program', 'PROP-DESCRIPTION: the card’s program'],
] as const;

/** The holder report: a row per escheat candidate, in UNCLAIMED_COLUMNS' order. */
export function unclaimedCsv(candidates: readonly EscheatCandidate[]): string {
  const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
  const lines = candidates.map((c) =>
    [
      csvField(c.giftCardId),
      csvFigure('MS12'),
      csvFigure('UNKNOWN'),
      csvField(c.jurisdiction),
      csvFigure(day(c.lastActivityMs)),
      csvFigure(formatCents(c.balanceCents)),
      csvField(c.currency),
      csvFigure(day(c.issuedAtMs)),
      csvField(c.programId),
    ].join(','),
  );
  return `${[UNCLAIMED_COLUMNS.map(([name]) => csvField(name)).join(','), ...lines].join('\r\n')}\r\n`;
}
