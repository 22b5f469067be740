/**
 * The mirror as the stages see it: opened by where it lives, handed to their stores. Which
 * database holds it is the dialect folder's concern (src/db/sqlite/); nothing above the stores asks.
 */
import { mirrorFile } from './location.js';
import type { MirrorLock } from './sqlite/lock.js';
import * as sqlite from './sqlite/open.js';

export type { Checkpointer, LoadedTable, Mirror, StatementResult } from './types.js';
export type { Read, SqlConnection, Write } from './connection.js';
export type { OpenOptions, SqliteMirror } from './sqlite/open.js';
export { DEFAULT_DB_PATH } from './sqlite/open.js';
export type { MirrorQueries } from './queries.js';
export type { LockHolder, MirrorLock } from './sqlite/lock.js';
export { lockHolder } from './sqlite/lock.js';
export type { SqlDialect } from './dialect.js';
export { mirrorFile } from './location.js';

/** Opens (creating if needed) the mirror. @see sqlite.openMirror */
export function openMirror(path: string = sqlite.DEFAULT_DB_PATH, options: sqlite.OpenOptions = {}): sqlite.SqliteMirror {
  return sqlite.openMirror(mirrorFile(path), options);
}

/** Takes the mirror's lock, then opens it. @see sqlite.openMirrorLocked */
export function openMirrorLocked(path: string, command: string, options?: sqlite.OpenOptions): { mirror: sqlite.SqliteMirror; lock: MirrorLock } {
  return sqlite.openMirrorLocked(mirrorFile(path), command, options);
}

/** Opens an existing mirror for reading only. @see sqlite.openMirrorReadOnly */
export function openMirrorReadOnly(path: string = sqlite.DEFAULT_DB_PATH): sqlite.SqliteMirror {
  return sqlite.openMirrorReadOnly(mirrorFile(path));
}
