/** The typed query layer (kysely) over the mirror's tables, whichever database holds them. */
import type { Kysely } from 'kysely';
import type { MirrorTables } from './tables.js';

/** The typed queries of one mirror. Never destroyed by its users: the mirror closes the connection. */
export type MirrorQueries = Kysely<MirrorTables>;
