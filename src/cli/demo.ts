import { silentProgress, systemClock } from '../app/context.js';
import { demoNight, plantedAndFound } from '../app/demo.js';
import { onInterrupt } from './interrupt.js';
import { printSummary } from './run.js';
import type { declareDemo, FlagsOf } from './declarations.js';

/**
 * `npm start`: the demo job (src/app/demo.ts): both services simulated in-process with every
 * planted break and legal look-alike, the nightly job run against them over loopback HTTP into a
 * fresh mirror, and the verdict, a short summary and the workbook's path printed. No
 * credentials, no network beyond 127.0.0.1. Exits 0 when the job ran, whatever it found.
 * @throws MirrorError (exit 2) when --db names a mirror the demo did not make; what the night throws.
 */
export async function demo(options: FlagsOf<typeof declareDemo>): Promise<void> {
  // --quiet: errors only; the exit code and the files say the rest.
  const write = options.quiet ? () => {} : (text: string) => void process.stdout.write(text);
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
    printSummary(result.summary, result.record, write);
    write(plantedAndFound(manifest, result.summary));
    // The demo succeeded in showing the breaks: its own exit code is 0.
    process.exitCode = 0;
  } finally {
    interruption.dispose();
  }
}
