/**
 * The temporary files (`<name>.<pid>.partial`) the report and close writers rename into place
 * when complete: one a killed writer left is removed by the next writer into the same folder.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Removes the temporary files of report and close writers that were killed (their process is gone). */
export function removeStalePartials(outDir: string): void {
  for (const name of readdirSync(outDir)) {
    const pid = /\.(\d+)\.partial$/.exec(name)?.[1] ?? (name.endsWith('.partial') ? '0' : undefined);
    if (pid === undefined || (pid !== '0' && alive(Number(pid)))) continue;
    rmSync(join(outDir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as { code?: string }).code === 'EPERM';
  }
}
