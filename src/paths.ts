/**
 * The folders a user names (`--db`'s folder, `--out`): made with a bounded walk, their
 * failures translated once into a sentence that names the path, the cause and the fix.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  realpathSync,
  rmSync,
  statfsSync,
  statSync,
  type Stats,
  writeSync,
  type WriteStream,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { FileSystemError } from './errors.js';

/** What each file-system error means for a person, and what to do. */
const CAUSES: Record<string, string> = {
  EEXIST: 'a file stands where a folder should be',
  ENOTDIR: 'a file stands where a folder should be',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENOENT: 'it cannot be created there',
  ENAMETOOLONG: 'the name is too long',
};

/** What a file that is read fails with, for a person. */
const READ_CAUSES: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/**
 * A file-system error as one sentence: `--out /x: the file system is read-only (EROFS): give
 * --out a folder you can write`. `reading`: the path is a file to read (`--settings`).
 */
export function fileSystemError(flag: string, path: string, error: unknown, reading = false): FileSystemError {
  const code = (error as { code?: unknown }).code;
  const causes = reading ? READ_CAUSES : CAUSES;
  const cause = typeof code === 'string' ? `${causes[code] ?? (error as Error).message} (${code})` : String(error);
  const what = flag === '--db' ? 'file in a folder' : 'folder';
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  const fix = reading
    ? `give ${flag} a file you can read`
    : full
      ? `free space there, or give ${flag} a ${what} with room`
      : `give ${flag} a ${what} you can write`;
  return new FileSystemError(`${flag} ${path}: ${cause}: ${fix}`);
}

/** What a path that is not a regular file is, for a person. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/** Where an output goes: standard output (`-`), or a regular file written under a temporary name and renamed onto `path`. */
export type OutputTarget = { kind: 'stdout' } | { kind: 'file'; path: string };

/**
 * Where an output named by `flag` goes, never clobbering what the user did not name as an output:
 * `-` is standard output; a path that does not exist, or a regular file, is the file. A symlink
 * is written through (the link stays a link, its target is replaced) only when this user made
 * it and it points to a regular file of this user's in the link's own folder (`latest.xlsx` →
 * `ledger-recon-2026-11-18-run-7.xlsx`): a link someone else planted where the night writes (a
 * shared textfile collector's folder, a generated name in `--out`) never makes the night replace
 * a file elsewhere, such as the mirror. A device, a FIFO, a socket, a folder, a dangling
 * symlink or one to any of those is refused (as root, `--out /dev/stdout` written by rename
 * replaced the device's link with a file).
 * @throws FileSystemError naming `flag`, the path, what it is, and the fix.
 */
export function outputTarget(flag: string, path: string): OutputTarget {
  if (path === '-') return { kind: 'stdout' };
  const refuse = (what: string, fix = `give ${flag} a file's path, or - for standard output`): never => {
    throw new FileSystemError(`${flag} ${path}: ${what}, not a file an output may replace: ${fix}`);
  };
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (link === undefined) return { kind: 'file', path };
  if (!link.isSymbolicLink()) return link.isFile() ? { kind: 'file', path } : refuse(kindOf(link));
  const target = statSync(path, { throwIfNoEntry: false });
  if (target === undefined) return refuse('a symlink to nothing');
  if (!target.isFile()) return refuse(`a symlink to ${kindOf(target)}`);
  const real = realpathSync(path);
  const uid = process.getuid?.();
  const removeIt = `remove the link (rm ${path}) or give ${flag} another path`;
  if (dirname(real) !== realpathSync(dirname(resolve(path))))
    return refuse(`a symlink to ${real}, outside its own folder`, removeIt);
  if (uid !== undefined && (link.uid !== uid || target.uid !== uid))
    return refuse(`a symlink ${link.uid !== uid ? 'another user made' : `to ${real}, another user's file`}`, removeIt);
  return { kind: 'file', path: real };
}

/**
 * A new temporary file of this process beside `path` (`….<pid>.partial`), to be opened with
 * {@link EXCLUSIVE}: whatever stood at that name (a file a process of the same pid left, a link
 * planted there) is removed first, and the exclusive open never follows a link planted after.
 */
export function temporaryBeside(path: string, suffix = 'partial'): string {
  const temporary = `${path}.${process.pid}.${suffix}`;
  rmSync(temporary, { force: true });
  return temporary;
}

/** The flag that creates a file only where nothing stands, never through a link (O_CREAT | O_EXCL). */
export const EXCLUSIVE = 'wx';

/**
 * A file of an output folder (`--out`) that a finished output may be renamed onto: absent or a
 * regular file, or the regular file a symlink there points to (written through).
 * @throws FileSystemError when something else stands there (a device, a FIFO, a folder).
 */
export function replaceable(path: string): string {
  const target = outputTarget('--out', path);
  return target.kind === 'file' ? target.path : path;
}

/**
 * Opens a file to read that must be a regular file: a FIFO, a device (`/dev/zero`, also
 * behind a symlink) or a socket is refused before a byte is read, so nothing hangs or reads
 * for ever. Opened without blocking (a FIFO with no writer would wait) and checked on the
 * descriptor itself, so what is read is what was checked.
 * @returns the open descriptor (the caller closes it).
 * @throws FileSystemError naming `flag`, the path and what it is.
 */
export function openRegularFile(path: string, flag: string, fix = `give ${flag} a file`): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fileSystemError(flag, path, error, true);
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new FileSystemError(`${flag === '' ? '' : `${flag} `}${path}: ${kindOf(stats)}, not a regular file: ${fix}`);
  }
  return fd;
}

/**
 * A small regular file's text (a map, a settings file), read to at most `maxBytes`.
 * @throws FileSystemError when it is not a regular file, cannot be read, or is larger.
 */
export function readRegularFile(path: string, flag: string, maxBytes: number): string {
  const fd = openRegularFile(path, flag);
  try {
    // Read to one byte past the bound whatever the size says (a file of /proc says 0).
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > maxBytes)
      throw new FileSystemError(
        `${flag} ${path}: larger than ${maxBytes.toLocaleString('en-US')} bytes, which no such file needs: is it the right file?`,
      );
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    if (error instanceof FileSystemError) throw error;
    throw fileSystemError(flag, path, error, true);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes `folder` and the folders above it that are missing, one level at a time (a bounded
 * walk: at most one step per path component), and checks that it can be written.
 * @throws FileSystemError naming `flag`, the path and the cause.
 */
export function ensureFolder(flag: string, folder: string): void {
  const path = resolve(folder);
  const missing: string[] = [];
  let existing = path;
  for (;;) {
    try {
      if (!statSync(existing).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw fileSystemError(flag, folder, error);
      const parent = dirname(existing);
      if (parent === existing) throw fileSystemError(flag, folder, error);
      missing.unshift(existing);
      existing = parent;
    }
  }
  try {
    for (const level of missing) {
      try {
        // The process umask decides (077 by default: the owner's alone; --umask 027 lets the group in).
        mkdirSync(level, { mode: 0o777 });
      } catch (error) {
        // Another process made it in the meantime: a folder is all we wanted.
        if ((error as { code?: unknown }).code !== 'EEXIST' || !statSync(level).isDirectory()) throw error;
      }
    }
    accessSync(path, constants.W_OK);
  } catch (error) {
    throw fileSystemError(flag, folder, error);
  }
}

/**
 * Makes the folder of the mirror `--db` names, and refuses a `--db` that names a folder.
 * @throws FileSystemError naming --db, the path and the cause.
 */
export function ensureMirrorFolder(dbPath: string): void {
  ensureFolder('--db', dirname(dbPath));
  if (existsSync(dbPath) && statSync(dbPath).isDirectory())
    throw new FileSystemError(
      `--db ${dbPath}: it is a folder: give --db the mirror's file, e.g. ${join(dbPath, 'ledger.db')}`,
    );
}

/** The mirror could not be written for want of space: where, and what to do. */
export function mirrorFullError(dbPath: string, code: string): FileSystemError {
  return new FileSystemError(
    `--db ${dbPath}: no space left on the device (${code}): free space in ${dirname(resolve(dbPath))} (a sync needs about 256 MB beside the mirror), or give --db a folder with room; what was committed before is kept`,
  );
}

/** Whether the folder holding `path` has less than 1 MB free: a failed write there was most likely for want of space. */
export function nearlyFull(path: string): boolean {
  try {
    const stats = statfsSync(dirname(resolve(path)));
    return stats.bavail * stats.bsize < 1024 * 1024;
  } catch {
    return false;
  }
}

/**
 * A write to the mirror or a report that failed for want of space, a read-only file system or
 * permission, as one sentence naming the flag, the path and the fix; undefined for any other
 * error. Walks the error's causes (drizzle wraps SQLite's errors).
 */
export function storageFailure(
  error: unknown,
  where: { db?: string | undefined; out?: string | undefined },
): FileSystemError | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth += 1, e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if ((code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_WRITE') && where.db) return mirrorFullError(where.db, code);
    if (code.startsWith('SQLITE_READONLY') && where.db)
      return new FileSystemError(
        `--db ${where.db}: the mirror cannot be written (${code}): give --db a file in a folder you can write`,
      );
    const path = (e as { path?: unknown }).path;
    // A write to a file already open names no path: a full disk while the outputs are written is --out's.
    if ((code === 'ENOSPC' || code === 'EDQUOT') && typeof path !== 'string' && where.out !== undefined)
      return fileSystemError('--out', where.out, e);
    if (!(code in CAUSES) || typeof path !== 'string') continue;
    const inOut = where.out !== undefined && !relative(resolve(where.out), resolve(path)).startsWith('..');
    return fileSystemError(inOut ? '--out' : '--db', inOut ? (where.out ?? path) : path, e);
  }
  return undefined;
}

/** Writes under a temporary name, then renames: readers never see half a file. */
export function writeAtomically(path: string, text: string): void {
  const temporary = temporaryBeside(path, 'tmp');
  try {
    writeNewSynced(temporary, text, 0o666);
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Lets go of a file being written, whatever happened to it: destroys its stream, its errors
 * heard, and waits until the file is closed. A stream whose file had not opened yet would
 * otherwise create it afterwards, in a folder its caller may be removing.
 */
export async function letGoOfFile(stream: WriteStream): Promise<void> {
  stream.on('error', () => undefined);
  // Waited for without once(): a write still under way when the stream is destroyed fails, and
  // once() would reject with that ("Cannot call write after a stream was destroyed"), in place
  // of the failure that made the caller let go (a mirror error mid-report).
  const closed = stream.closed ? Promise.resolve() : new Promise<void>((resolve) => stream.once('close', resolve));
  stream.destroy();
  await closed;
}

/**
 * Writes `text` into a new file at `path` (never an existing one: EEXIST is the caller's to
 * judge) and syncs it to the disk before returning: evidence counts only once it is there.
 */
export function writeNewSynced(path: string, text: string, mode = 0o644): void {
  const fd = openSync(path, EXCLUSIVE, mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
