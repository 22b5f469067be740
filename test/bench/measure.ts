import { readFileSync, writeFileSync } from 'node:fs';

/** The peak before the kernel's high-water mark was last reset (see `timed`). */
let peakBeforeReset = 0;

/**
 * Figures the benchmarks print: wall time and this process's peak resident memory. Linux's own
 * high-water mark where it can be read: getrusage's maxRSS carries over a fork and exec, so a
 * bench child of a process that had just built a mirror printed its parent's 1,106 MB.
 */
export function peakRssMb(): number {
  return Math.max(peakBeforeReset, stepPeakMb() ?? Math.round(process.resourceUsage().maxRSS / 1024));
}

/**
 * The peak resident memory since the last `timed` began (Linux: the kernel's high-water mark,
 * reset through /proc/self/clear_refs); undefined where that cannot be read or reset.
 */
function stepPeakMb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

function resetStepPeak(): boolean {
  try {
    // Resetting lowers getrusage's figure too: keep the process's peak so far.
    peakBeforeReset = peakRssMb();
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work`, printing its wall time, the CPU this process spent on it, the process's peak RSS
 * so far and, where Linux lets it be reset, the peak during this step alone.
 */
export async function timed<T>(label: string, work: () => Promise<T> | T): Promise<T> {
  const stepped = resetStepPeak();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const spent = process.cpuUsage(cpu);
  const cpuSeconds = (spent.user + spent.system) / 1e6;
  const step = stepped ? stepPeakMb() : undefined;
  const ownPeak = step === undefined ? '' : `   (this step ${String(step).padStart(5)} MB)`;
  process.stdout.write(
    `${label.padEnd(44)} ${seconds.toFixed(2).padStart(8)} s   CPU ${cpuSeconds.toFixed(2).padStart(6)} s   peak RSS ${String(peakRssMb()).padStart(5)} MB${ownPeak}\n`,
  );
  return result;
}

/**
 * CPU seconds another process has used so far (Linux /proc; undefined elsewhere), to show how
 * much of the machine the simulator takes while a benchmark measures us.
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux that Node 20 supports. */
const CLOCK_TICKS = 100;

/**
 * Bytes this process has handed to write() so far (Linux /proc; undefined elsewhere): for a
 * sync, nearly all of it is the mirror's WAL and checkpoints (its requests are small).
 */
export function bytesWritten(): number | undefined {
  try {
    const match = /^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
