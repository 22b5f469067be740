/**
 * The Summary sheet, page 1 of the workbook: the verdict and the headline, the money and the
 * liability, what the run covered, the sign-off, what was checked, findings by code, money at
 * stake, what changed, the roll-forward and the books' matching, each block a generator of rows.
 * It writes the night's view (night-view.ts) and computes no figure of its own: its formulas
 * re-perform the view's figures from the cells above them and from the Findings sheet.
 */
import { linesOf, noteRows } from '../notes.js';
import type { NightAgainstMonth } from '../../ledger/rollforward.js';
import { SEVERITIES } from '../../checks/check.js';
import { preparedOn } from '../names.js';
import { AGE_BUCKETS, FINDING_STATES } from '../../findings/finding.js';
import { formatCents, groupThousands } from '../../money.js';
import { describeInstant } from '../period.js';
import { reportBaseName } from '../names.js';
import type { Cell } from '../xlsx-writer.js';
import { SHEET_NAMES, type ReportScope, merchantOf } from '../scope.js';
import type { NightView } from '../night-view.js';
import { money, date } from './rows.js';
import { FINDINGS_HEADER } from './findings.js';

/** The Summary's inputs, and its row counter: formulas point at the labels above them by number. */
interface SummaryContext {
  view: NightView;
  scope: ReportScope;
  /** Counts a row as it is yielded. */
  line: (cells: Cell[]) => Cell[];
  /** The number of the last row yielded. */
  row: () => number;
}

/** The Summary's rows, written from the night's view. */
export function* summaryRows(view: NightView, scope: ReportScope): Generator<Cell[]> {
  // Rows are numbered as they are yielded, so that formulas can point at the labels above them.
  let row = 0;
  const line = (cells: Cell[]): Cell[] => {
    row += 1;
    return cells;
  };
  const s: SummaryContext = { view, scope, line, row: () => row };
  yield* headlineRows(s);
  yield* aboutRows(s);
  yield* signOffRows(s);
  yield* checkedRows(s);
  yield* findingsByCodeRows(s);
  yield* moneyAtStakeRows(s);
  yield* matchingSummary(s);
  yield* sinceRows(s);
  yield* rollForwardRows(s);
}

/** The verdict, and how many findings put how much money at stake. */
function* headlineRows(context: SummaryContext): Generator<Cell[]> {
  const { line, view, scope } = context;
  const summary = view.recorded;
  const asOf = view.asOf;
  yield line([
    {
      note: `${merchantOf(scope, view.merchantId)}: reconciliation of ${asOf.slice(0, 10)}, data as of ${asOf.slice(11, 16)} UTC (check run ${view.runId})`,
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
  const clean = view.currencies.filter((c) => c.liability !== null && c.atStake === 'none').map((c) => c.currency);
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
function* moneyRows({ line, view }: SummaryContext): Generator<Cell[]> {
  const summary = view.recorded;
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
  for (const [i, f] of view.largest.slice(0, 3).entries()) {
    // In words, a page's width at a time: the catalogue's title, then the card (or the record) it is about.
    const [first = '', ...more] = linesOf(`${f.title}: ${f.about}`, 85);
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
  yield* againstMonthRows(line, view);
}

/** The night's difference against the month so far's (the close of the month to date, one cut-off): how they relate. */
function* againstMonthRows(line: SummaryContext['line'], view: NightView): Generator<Cell[]> {
  const related = new Map(view.againstMonth.map((r) => [r.currency, r] as const));
  const amount = (value: number): string => `${value < 0 ? '−' : ''}${groupThousands(formatCents(Math.abs(value)))}`;
  const term = (value: number): string => `${value < 0 ? '−' : '+'} ${groupThousands(formatCents(Math.abs(value)))}`;
  /** The month so far's parts of a currency's difference, in a few words. */
  const parts = (r: NightAgainstMonth): string =>
    `${amount(r.monthCardsCents)} cards − flows this month ${term(r.monthServiceCents)} service − cards${r.openingsCents !== 0 ? ` ${term(r.openingsCents)} between the month's opening and the night's` : ''}`;
  for (const r of view.recorded.rollForwardBreaks ?? []) {
    const month = related.get(r.currency);
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
  for (const r of related.values())
    if (r.nightCents === 0)
      yield line([
        'Month to date does not tie out',
        { emphasis: `${r.currency} ${amount(r.monthCents)}`, good: false },
        { note: `${parts(r)}: see Month to date` },
      ]);
}

/** What the run covered: its period, data, services, merchant and materiality. */
function* aboutRows({ line, view, scope }: SummaryContext): Generator<Cell[]> {
  const { about, recorded: summary } = view;
  const previous = about.previousRun;
  const asOf = Date.parse(view.asOf);
  yield line([
    'Period covered',
    {
      note: previous?.asOfMs
        ? `${describeInstant(previous.asOfMs, 'UTC')} to ${describeInstant(asOf, 'UTC')} (since check run ${previous.runId})`
        : `everything up to ${describeInstant(asOf, 'UTC')} (the first check run)`,
    },
  ]);
  yield line([
    'Data as of (UTC)',
    date(about.dataAsOfMs),
    { note: `checked at ${describeInstant(about.checkedAtMs, 'UTC')}` },
  ]);
  yield line([
    'Check run',
    view.runId,
    { note: `of sync run ${about.sync.syncRunId} (${about.sync.mode}, ${about.sync.status})` },
  ]);
  yield line(['Gift card service', { note: about.sync.giftcardBaseUrl }]);
  yield line(['Delivery partner service', { note: about.sync.dpBaseUrl }]);
  yield line([
    'Our merchant',
    {
      note:
        scope.merchantName !== undefined
          ? `${scope.merchantName} (${view.merchantId ?? 'no ID'})`
          : (view.merchantId ?? ''),
    },
  ]);
  const materiality = Object.entries(about.materialityCents);
  yield line([
    'Materiality (money at stake per finding)',
    {
      note:
        materiality.length === 0
          ? 'none set (--materiality USD=100.00,EUR=100.00)'
          : materiality.map(([currency, cents]) => `${currency} ${formatCents(cents)}`).join(', '),
    },
  ]);
  for (const failed of summary.failedChecks) yield line(['Check that could not run', failed.code, failed.error]);
  for (const books of summary.booksNotImported ?? [])
    yield line(['Books file not imported', books.file, { note: `${books.reason}: the matching is not complete` }]);
}

/** The sign-off block, and the evidence that seals the workbook. */
function* signOffRows({ line, view, scope }: SummaryContext): Generator<Cell[]> {
  const summary = view.recorded;
  yield line([]);
  yield line([{ heading: 'Sign-off' }, { label: 'name' }, '', { label: 'date' }]);
  // A name given is a preparation done now: its date goes beside it; the reviewer's stays blank to sign.
  yield line([
    'Prepared by',
    scope.preparer ?? '',
    '',
    scope.preparer ? preparedOn(scope.preparedAtMs, Date.parse(view.startedAt)) : '',
  ]);
  yield line(['Reviewed by', '', '', '']);
  // What ties this workbook to what it was computed from: its manifest (which holds this file's
  // SHA-256, so it cannot be named inside it) and the population's root the manifest states.
  const manifest = `${reportBaseName({ checkRunId: view.runId, startedAtMs: Date.parse(view.startedAt) })}-evidence.json`;
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
function* checkedRows({ line, view }: SummaryContext): Generator<Cell[]> {
  yield line([
    { heading: 'What was checked' },
    { label: 'records in the mirror' },
    { label: 'of which no longer listed by the service' },
  ]);
  for (const { label, records, unlisted } of view.about.records) yield line([label, records, unlisted]);
  yield line(["Rows of the merchant's books (codes hashed)", view.books.held, null]);
  yield line([]);
}

/** Findings by code, counted over the Findings sheet so that a reader re-performs each. */
function* findingsByCodeRows({ line, row, view }: SummaryContext): Generator<Cell[]> {
  const summary = view.recorded;
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
  for (const g of view.byCode) {
    yield line([
      g.code,
      g.severity,
      count(`COUNTIFS('Findings'!$B:$B,$A{row})`, g.findings),
      ...FINDING_STATES.map((state, i) =>
        count(
          `COUNTIFS('Findings'!$B:$B,$A{row},'Findings'!$C:$C,${stateColumns[i]}$${findingsHeader})`,
          g.states[state],
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
  yield line([
    'All findings',
    '',
    total('C', summary.findings),
    total('D', summary.new),
    total('E', summary.open),
    total('F', summary.accepted),
    total(materialColumn, view.material),
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
function* moneyAtStakeRows({ line, view }: SummaryContext): Generator<Cell[]> {
  yield line([{ heading: 'Money at stake' }, { label: 'currency' }, { label: 'at stake' }]);
  yield line([{ note: 'Errors and warnings not accepted; money that several findings point at is counted once.' }]);
  const stake = Object.entries(view.atStakeCents);
  if (stake.length === 0) yield line(['none']);
  for (const [currency, cents] of stake) yield line(['All codes', currency, { cents, currency }]);
  // By code, with a bar against the largest in the same currency: what a reader looks at first.
  const stakeByCode = view.byCode.flatMap(({ code, atStakeCents }) =>
    Object.entries(atStakeCents).map(([currency, cents]) => ({ code, currency, cents })),
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
function* sinceRows({ line, view }: SummaryContext): Generator<Cell[]> {
  const summary = view.recorded;
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
function* rollForwardRows({ line, row, view }: SummaryContext): Generator<Cell[]> {
  const { rollForward: rolls, monthToDate } = view;
  // Each currency's closing re-performed from its row(): opening + issued − debited + refunded − voided − expired.
  // Read down, as a roll-forward is: a column per currency, each closing re-performed from the figures above it.
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
export const COMPACT_PRINT = 0.75;

/** The Findings sheet's column of the `material` mark (the Summary counts over it). */
const MATERIAL_COLUMN = String.fromCharCode(64 + FINDINGS_HEADER.indexOf('material') + 1);

/** The Summary's columns: labels, then figures under their labels. */
export const SUMMARY_WIDTHS = [34, 20, 14, 14, 14, 14, 14];

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

/**
 * The books on the Summary: per kind and currency, the books rows matched (by which rule) and
 * left over, the service records left over, and the match rate; the Matching sheet lists them.
 */
function* matchingSummary({ line, view }: SummaryContext): Generator<Cell[]> {
  const { matching, rejected } = view.books;
  yield line([
    { heading: "The merchant's books" },
    { label: 'currency' },
    { label: 'books rows' },
    { label: 'matched' },
    { label: 'rate (%)' },
    { label: 'books alone' },
    { label: 'service alone' },
  ]);
  if (matching.length === 0) {
    yield line([
      {
        note: 'No books imported: `ledger-recon books import FILE` or `run --books DIR` matches them against the services at every check',
      },
    ]);
    yield line([]);
    return;
  }
  for (const m of matching) {
    const rules = m.byRule.map((r) => `${r.rule} ${r.matched}`).join(', ');
    yield line([
      `${m.kind}${rules ? ` (${rules})` : ''}`,
      m.currency ?? '—',
      m.rows,
      m.matched,
      // A number, right-aligned under its label like the counts beside it.
      m.ratePercent,
      m.booksAlone,
      m.serviceAlone,
    ]);
  }
  yield line([
    {
      note: `Rules: exact, tolerance, one-to-many, code-hash; every pair and every record left over is on the Matching sheet.${rejected > 0 ? ` ${rejected.toLocaleString('en-US')} books row(s) could not be imported (books_rejections).` : ''}`,
    },
  ]);
  yield line([]);
}

export const UNLISTED = 'no longer listed since sync';

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
