/**
 * How many runs a property test makes, and from which seed: every fast-check property of the
 * suite reads them here, so a failure repeats and a deep run is one variable.
 *
 * - FC_SEED: the seed of every property (fast-check prints the seed and path of a failure;
 *   set FC_SEED to that seed to repeat it).
 * - FC_NUM_RUNS: the runs of every property, instead of each one's own (a deep run:
 *   `FC_NUM_RUNS=2000 npm run test:quick`).
 */
import fc from 'fast-check';

const seed = process.env['FC_SEED'];
const deep = Number(process.env['FC_NUM_RUNS']);

/** fast-check's parameters for a property of `numRuns` runs by default (FC_NUM_RUNS overrides it), plus `extra`. */
export function runs<T>(numRuns: number, extra: fc.Parameters<T> = {}): fc.Parameters<T> {
  return {
    ...extra,
    numRuns: Number.isInteger(deep) && deep > 0 ? deep : numRuns,
    ...(seed !== undefined && seed !== '' ? { seed: Number(seed) } : {}),
  };
}

/** The same settings for the properties that keep fast-check's own count (100 runs). */
fc.configureGlobal(runs(100));
