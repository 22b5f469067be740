/**
 * How this process's garbage collector paces its heap. A night's commands are batch jobs with a
 * memory target (peak RSS under 500 MB): they allocate fast (a page of records parsed, checked
 * and compared every few milliseconds), and V8 then lets its heap grow up to four times what
 * it found live at the last full collection, counting as live the garbage made while it was
 * marking. The weekly `--full` sync peaked at 425–594 MB from one run to the next with the same
 * live objects (31–38 MB). Growing by half at most, it peaked at 396–404 MB in four runs,
 * 8 % slower on average (within the machine's noise); the full sync's time and peak did not move.
 *
 * V8 reads this setting at each collection, so setting it once the process has started is
 * enough (a heap size limit is read only at start, and would make a large report fail, not wait).
 */
import { setFlagsFromString } from 'node:v8';

/** The heap grows by at most this share of what the last full collection kept. */
export const HEAP_GROWING_PERCENT = 50;

/** Paces the heap of a process that runs a night's work (not the simulator, which holds a world). */
export function paceHeapForBatchWork(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
