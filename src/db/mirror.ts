/**
 * The mirror as the stages see it: opened by path, handed to their stores. Which database
 * holds it is the dialect folder's concern (src/db/sqlite/); nothing above the stores asks.
 */
export type { Mirror, OpenOptions } from './sqlite/open.js';
export { DEFAULT_DB_PATH, openMirror, openMirrorLocked, openMirrorReadOnly } from './sqlite/open.js';
export { integrityOf, runReadOnlyStatement, schemaOf, type StatementResult } from './sqlite/investigate.js';
export type { MirrorQueries } from './sqlite/queries.js';
export type { LockHolder, MirrorLock } from './sqlite/lock.js';
export { lockHolder } from './sqlite/lock.js';
export type { SqlDialect } from './dialect.js';
