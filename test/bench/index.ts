/**
 * `npm run bench`: runs each benchmark in a process of its own, so each one's peak RSS is
 * its own, and prints their figures. Pass names to run a subset: npm run bench -- simulator
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES = ['cli', 'simulator', 'network', 'sync', 'check', 'close', 'report', 'books'] as const;

const wanted = process.argv.slice(2);
const selected = wanted.length > 0 ? BENCHES.filter((name) => wanted.includes(name)) : BENCHES;
let failed = 0;
for (const name of selected) {
  const file = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url));
  process.stdout.write(`\n== ${name}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exitCode = failed > 0 ? 1 : 0;
