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
