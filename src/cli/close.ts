import { defaultLocations } from '../locations.js';
import { resolve } from 'node:path';
import { openExistingForWriting } from '../db/mirror.js';
import { sealSettingsOf } from './seal-options.js';
import { formatCents, groupThousands } from '../money.js';
import { periodOf, type PeriodOptions } from '../report/period.js';
import type { ClosePaths } from '../report/write-close.js';
import { closePeriodOf } from '../app/close.js';
import { systemClock } from '../app/context.js';
import type { ClosedPeriodFigures, PeriodClose } from '../report/close.js';
import { onInterrupt } from './interrupt.js';
import { reporter } from './reporter.js';
import { liabilitySettingsOf } from './liability.js';

export interface CloseCommandOptions extends PeriodOptions {
  db?: string;
  out?: string;
  preparer?: string;
  json?: boolean;
  quiet?: boolean;
  /** An Ed25519 private key (PEM) that signs the manifest. */
  signKey?: string;
  checkpoints?: string;
  /** The liability settings file (docs/liability.md). */
  liability?: string;
  write?: (text: string) => void;
}

/**
 * `ledger-recon close`: the period's roll-forward per currency and program from the mirrored
 * ledger, tied out; writes its workpapers into --out and prints one line per roll-forward and
 * the files. Exit 1 when a tie-out fails, 2 when it cannot run.
 */
export async function close(options: CloseCommandOptions): Promise<ClosePaths> {
  const { say: write, record } = reporter(options);
  const period = periodOf(options);
  const seal = sealSettingsOf(options);
  const liability = liabilitySettingsOf(options.liability);
  const dbPath = options.db ?? defaultLocations().db;
  // Taken before the mirror is opened: a signal held while the process loaded ends it before the lock.
  const interruption = onInterrupt(
    'the close stopped before its workpapers were whole: none was written (their temporary files go at the next close); close the period again',
    process.stderr,
    { atOnce: true },
  );
  const { mirror, release } = await openExistingForWriting(dbPath, 'close', 'sync').catch((error: unknown) => {
    interruption.dispose();
    throw error;
  });
  try {
    const { result, paths, outputs, evidence, checkpoint } = await closePeriodOf(
      { mirror, clock: systemClock },
      {
        period,
        outDir: options.out ?? defaultLocations().reports,
        ...(options.preparer !== undefined ? { preparer: options.preparer } : {}),
        ...(liability ? { liability } : {}),
        ...seal,
      },
    );
    // One short line per roll-forward, for a terminal; the flows and the cards are in the workbook.
    for (const r of result.rollForwards) write(`${rollForwardLine(r)}\n`);
    // The liability as the books should hold it, per currency: the workpaper's page 1.
    for (const s of result.liability.closing.split)
      write(
        `${s.currency} contract liability ${shown(s.contractLiabilityCents)} (balances ${shown(s.balancesCents)} − breakage ${shown(s.breakageRecognisedCents)} − escheat ${shown(s.escheatPayableCents)})\n`,
      );
    // Nothing to tie out is not a tie-out: say what the data covers, so that nobody signs an empty period.
    if (result.rollForwards.length === 0) {
      const covers =
        result.dataFromMs === null
          ? 'the mirror holds no gift card'
          : `the mirror's data runs from ${new Date(result.dataFromMs).toISOString().slice(0, 10)} to ${new Date(result.asOfMs).toISOString().slice(0, 10)}`;
      process.stderr.write(
        `ledger-recon: the period ${period.label} holds no data (no card owed anything or moved in it): ${covers}\n`,
      );
    }
    write(
      `period ${period.label}: ${result.closes ? 'ties out' : 'DOES NOT TIE OUT'}\n${[...[...outputs, evidence].map((p) => resolve(p)), ...(checkpoint ? [checkpoint] : [])].join('\n')}\n`,
    );
    record(closeRecord(period.label, result, [...outputs, evidence]));
    if (!result.closes) {
      const failing = result.rollForwards
        .filter((r) => !r.closes)
        .map((r) => `${r.currency} ${r.programId ?? '(no program)'}`);
      process.stderr.write(
        `ledger-recon: the period ${period.label} does not tie out${failing.length > 0 ? ` on ${failing.join(', ')}` : ''}${result.unattributedEntries > 0 ? `; ${result.unattributedEntries} ${result.unattributedEntries === 1 ? 'entry' : 'entries'} of cards not in the mirror` : ''}: see ${resolve(paths.workbook)}\n`,
      );
      process.exitCode = 1;
    }
    return paths;
  } finally {
    await release();
    interruption.dispose();
  }
}

/** The money of a terminal's line: grouped, a dash for none. */
const shown = (cents: number | null): string => (cents === null ? '—' : groupThousands(formatCents(cents)));

/** A roll-forward in one line: its closing, at cut-off, the service's, whether it ties out and by how much. */
function rollForwardLine(r: PeriodClose['rollForwards'][number]): string {
  const service = r.serviceRemainingCents !== null ? `, service ${shown(r.serviceRemainingCents)}` : '';
  const inFlight =
    r.inFlightCards > 0
      ? ` (in flight ${shown(r.inFlightCents)} on ${r.inFlightCards} ${r.inFlightCards === 1 ? 'card' : 'cards'}, apart)`
      : '';
  // A tie-out that fails says by how much, and where: cards against flows, the service against the cards.
  const differences = [
    ...(r.differenceCents !== 0 ? [`at cut-off − closing ${shown(r.differenceCents)}`] : []),
    ...(r.serviceDifferenceCents !== null && r.serviceDifferenceCents !== 0
      ? [`service − at cut-off ${shown(r.serviceDifferenceCents)}`]
      : []),
    ...(r.unknownCards > 0 ? [`${r.unknownCards} cards off the cent`] : []),
  ];
  const verdict = r.closes ? 'ties out' : `DOES NOT TIE OUT (${differences.join('; ')})`;
  return `${r.currency} ${r.programId ?? '(no program)'}: closing ${shown(r.closingFromFlowsCents)}, at cut-off ${shown(r.closingFromCardsCents)}${service}: ${verdict}${inFlight}`;
}

/** The close's JSON record: the period, whether it ties out, each roll-forward in decimals, and the files. */
function closeRecord(label: string, result: ClosedPeriodFigures, files: string[]): Record<string, unknown> {
  const decimal = (cents: number | null): string | null => (cents === null ? null : formatCents(cents));
  return {
    period: label,
    closes: result.closes,
    asOf: new Date(result.asOfMs).toISOString(),
    rollForwards: result.rollForwards.map((r) => ({
      currency: r.currency,
      program: r.programId,
      closing: decimal(r.closingFromFlowsCents),
      atCutOff: decimal(r.closingFromCardsCents),
      service: r.serviceRemainingCents === null ? null : decimal(r.serviceRemainingCents),
      difference: decimal(r.differenceCents),
      serviceDifference: r.serviceDifferenceCents === null ? null : decimal(r.serviceDifferenceCents),
      closes: r.closes,
    })),
    // The split page 1 states: what the books should hold per currency.
    liability: result.liability.closing.split.map((s) => ({
      currency: s.currency,
      balances: decimal(s.balancesCents),
      breakageRecognised: decimal(s.breakageRecognisedCents),
      escheatPayable: decimal(s.escheatPayableCents),
      contractLiability: decimal(s.contractLiabilityCents),
    })),
    files: files.map((p) => resolve(p)),
  };
}
