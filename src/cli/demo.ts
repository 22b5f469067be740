import { silentProgress, systemClock } from '../app/context.js';
import { demoNight } from '../app/demo.js';
import { SEVERITIES, type Severity } from '../checks/check.js';
import { CATALOGUE } from '../checks/index.js';
import { onInterrupt } from './interrupt.js';
import { printSummary } from './run.js';

export interface DemoOptions {
  seed: number;
  /** Where the demo's mirror and reports go (default data/demo and reports/demo). */
  db?: string;
  out?: string;
  /** Errors only. */
  quiet?: boolean;
  write?: (text: string) => void;
}

/** A planted break's severity, as the catalogue gives it to its code. */
function severityOf(code: string): Severity | undefined {
  return CATALOGUE.find((check) => check.code === code)?.severity;
}

/**
 * `npm start`: the demo job (src/app/demo.ts): both services simulated in-process with every
 * planted break and legal look-alike, the nightly job run against them over loopback HTTP into a
 * fresh mirror, and the verdict, a short summary and the workbook's path printed. No
 * credentials, no network beyond 127.0.0.1. Exits 0 when the job ran, whatever it found.
 * @throws MirrorError (exit 2) when --db names a mirror the demo did not make; what the night throws.
 */
export async function demo(options: DemoOptions): Promise<void> {
  // --quiet: errors only; the exit code and the files say the rest.
  const write = options.quiet ? () => {} : (options.write ?? ((text: string) => process.stdout.write(text)));
  const interruption = onInterrupt('the demo stopped; run it again to start afresh');
  try {
    const { result, manifest } = await demoNight(
      { clock: systemClock, signal: interruption.signal, sink: { progress: silentProgress, note: write } },
      {
        seed: options.seed,
        ...(options.db !== undefined ? { db: options.db } : {}),
        ...(options.out !== undefined ? { out: options.out } : {}),
      },
    );
    if (!result.ok) throw result.error;
    printSummary(result.summary, result.record, write, options.write === undefined);
    // By severity on both sides, so that an info break planted and found cannot read as a miss.
    const planted = [...manifest.breaks, ...manifest.books.breaks];
    const bySeverity = (count: (severity: Severity) => number): string =>
      SEVERITIES.map((severity) => `${count(severity)} ${severity}`).join(', ');
    const found = result.summary.bySeverity;
    write(
      `\n${planted.length} breaks were planted, ${manifest.breaks.length} in the services and ${manifest.books.breaks.length} in the books (${bySeverity((severity) => planted.filter((b) => severityOf(b.code) === severity).length)}); ` +
        `the check found ${bySeverity((severity) => found[severity])}. Open the workbook above in Excel or LibreOffice.\n` +
        `A night like this one exits ${result.summary.exitCode} from \`ledger-recon run\`; the demo itself exits 0, as it showed what it was run to show.\n`,
    );
    // The demo succeeded in showing the breaks: its own exit code is 0.
    process.exitCode = 0;
  } finally {
    interruption.dispose();
  }
}
