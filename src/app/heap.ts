/**
 * How the garbage collector paces the heap while a command syncs or writes a report. Both
 * allocate fast (a sync: a page of records parsed, validated and compared every few
 * milliseconds; a report: a million rows' cells and XML), and V8 then lets the heap grow up to
 * four times what its last full collection found live, counting as live the garbage made while
 * it was marking.
 * - The weekly `--full` sync peaked at 425–594 MB from one run to the next with the same live
 *   objects (31–38 MB), past the 500 MB target twice in five runs. With the heap growing by half
 *   at most, it peaked at 396–404 MB in four runs, 8 % slower on average (within the machine's
 *   noise), the full sync's time and peak unchanged.
 * - The report of 100,000 findings and 1,000,000 card rows (its live set under 160 MB) peaked at
 *   345–567 MB over a day. Paced, 304 and 304 MB against 358 and 351 MB in the same sitting, in
 *   33.9 and 35.1 s against 33.1 and 32.3 s.
 *
 * Not the check: its peak is what it holds (the night before's findings), and paced it peaked
 * as high (394 and 385 MB against 372 and 388 MB), slower. Nor the books import: paced, a
 * million rows took 12 % longer (19.17 and 20.02 s against 17.76 and 17.10 s).
 * V8 reads the setting at each collection, so it can be set and cleared while the process runs
 * (a heap size limit is read only at start, and would make a large job fail, not wait).
 */
import { setFlagsFromString } from 'node:v8';

/** While a sync or a report runs, the heap grows by at most this share of what the last full collection kept. */
export const PACED_HEAP_GROWING_PERCENT = 50;

/** Runs `work` (a sync, a report) with the heap paced as above; V8's own pacing comes back after it. */
export async function withHeapPaced<T>(work: () => Promise<T>): Promise<T> {
  setFlagsFromString(`--heap-growing-percent=${PACED_HEAP_GROWING_PERCENT}`);
  try {
    return await work();
  } finally {
    // 0 is V8's default: the growth is its own again.
    setFlagsFromString('--heap-growing-percent=0');
  }
}
