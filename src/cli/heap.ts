/**
 * How the garbage collector paces the heap while a command syncs. A sync allocates fast (a page
 * of records parsed, validated and compared every few milliseconds), and V8 then lets the heap
 * grow up to four times what its last full collection found live, counting as live the garbage
 * made while it was marking. The weekly `--full` sync peaked at 425–594 MB from one run to the
 * next with the same live objects (31–38 MB), past the 500 MB target twice in five runs. With
 * the heap growing by half at most, it peaked at 396–404 MB in four runs, 8 % slower on average
 * (within the machine's noise), the full sync's time and peak unchanged.
 *
 * Only the sync: the other stages peak well under the target on their own, and paced, the
 * books import of a million rows took 12 % longer (19.17 and 20.02 s against 17.76 and 17.10 s).
 * V8 reads the setting at each collection, so it can be set and cleared while the process runs
 * (a heap size limit is read only at start, and would make a large sync fail, not wait).
 */
import { setFlagsFromString } from 'node:v8';

/** While a sync runs, the heap grows by at most this share of what the last full collection kept. */
export const SYNC_HEAP_GROWING_PERCENT = 50;

/** Runs `sync` with the heap paced as above; V8's own pacing comes back after it. */
export async function withHeapPacedForSync<T>(sync: () => Promise<T>): Promise<T> {
  setFlagsFromString(`--heap-growing-percent=${SYNC_HEAP_GROWING_PERCENT}`);
  try {
    return await sync();
  } finally {
    // 0 is V8's default: the growth is its own again.
    setFlagsFromString('--heap-growing-percent=0');
  }
}
