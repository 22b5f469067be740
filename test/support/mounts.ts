import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small file system of its own, mounted for one test: full after `size`, or read-only. */
export interface Mount {
  path: string;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `size` (e.g. '300k'), read-only when asked, on a fresh temporary folder.
 * Mounting needs root (or CAP_SYS_ADMIN); without it the tests that need a full or read-only
 * disk are skipped with one line saying so, as a privilege no package can give.
 * @returns the mount, or null when this machine does not let the tests mount.
 */
export function mountTmpfs(size: string, readOnly = false): Mount | null {
  const path = mkdtempSync(join(tmpdir(), 'ledger-recon-tmpfs-'));
  const mounted = spawnSync(
    'mount',
    ['-t', 'tmpfs', '-o', `${readOnly ? 'ro,' : ''}size=${size},mode=0700`, 'tmpfs', path],
    { encoding: 'utf8' },
  );
  if (mounted.status !== 0) {
    rmSync(path, { recursive: true, force: true });
    process.stderr.write(
      `skipped: the tests of a full or read-only disk, which need to mount a tmpfs (run as root): ${(mounted.stderr || String(mounted.error)).trim()}\n`,
    );
    return null;
  }
  return {
    path,
    unmount: () => {
      spawnSync('umount', [path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Whether this machine lets the tests mount a tmpfs (tried once). */
export const canMount: boolean = (() => {
  const probe = mountTmpfs('64k');
  probe?.unmount();
  return probe !== null;
})();
