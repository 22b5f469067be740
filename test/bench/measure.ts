import { readFileSync } from 'node:fs';

/** Figures the benchmarks print: wall time and this process's peak resident memory. */
export function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** Runs `work`, printing its wall time, the CPU this process spent on it, and peak RSS. */
export async function timed<T>(label: string, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const spent = process.cpuUsage(cpu);
  const cpuSeconds = (spent.user + spent.system) / 1e6;
  process.stdout.write(`${label.padEnd(44)} ${seconds.toFixed(2).padStart(8)} s   CPU ${cpuSeconds.toFixed(2).padStart(6)} s   peak RSS ${String(peakRssMb()).padStart(5)} MB\n`);
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
