import { examine } from '../app/doctor.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import type { declareDoctor, FlagsOf } from './declarations.js';

/** `ledger-recon doctor` (src/app/doctor.ts): a line each, `ok` or `FAIL` with the fix; exit 0 when all are ok, 2 otherwise. */
export async function doctor(options: FlagsOf<typeof declareDoctor>): Promise<void> {
  const write = (text: string): boolean => process.stdout.write(text);
  const lines = await examine(options, (line) => {
    // --quiet: the failures alone, so a clean doctor prints nothing.
    if (!options.json && !(options.quiet && line.ok))
      // In a narrow terminal a fix wraps between words, under its line's text.
      write(
        wrapText(
          `${line.ok ? 'ok  ' : 'FAIL'}  ${line.subject}: ${line.text}\n`,
          terminalWidth(process.stdout),
          '      ',
        ),
      );
  });
  const ok = lines.every((line) => line.ok);
  process.exitCode = ok ? 0 : 2;
  if (options.json) write(`${JSON.stringify({ ok, checks: lines })}\n`);
}
