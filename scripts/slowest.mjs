/**
 * `npm run test:slowest`: the ten slowest test files of the last run, from the durations vitest's
 * JSON reporter kept (test-results/durations.json), each with its project where a file runs in
 * more than one.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const FILE = 'test-results/durations.json';
const COUNT = Number(process.argv[2] ?? 10);

let report;
try {
  report = JSON.parse(readFileSync(FILE, 'utf8'));
} catch (error) {
  process.stderr.write(
    `test:slowest: no durations at ${FILE} (${error.code ?? error.message}): run npm test or npm run test:quick first\n`,
  );
  process.exit(2);
}
const files = report.testResults
  .map((result) => ({
    file: relative(process.cwd(), result.name),
    seconds: (result.endTime - result.startTime) / 1000,
    tests: result.assertionResults.length,
    status: result.status,
  }))
  .sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, f) => sum + f.seconds, 0);
const started = new Date(report.startTime).toISOString();
process.stdout.write(
  `${files.length} files, ${total.toFixed(0)} s in all (summed over workers), run started ${started}\n`,
);
for (const f of files.slice(0, COUNT))
  process.stdout.write(
    `${f.seconds.toFixed(1).padStart(7)} s  ${String(f.tests).padStart(3)} tests  ${f.file}${f.status === 'passed' ? '' : `  (${f.status})`}\n`,
  );
