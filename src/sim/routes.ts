import type { CursorCodec } from './cursor.js';
import type { Collection, Sequenced } from './collection.js';

/** What a route answers; the server turns it into HTTP. */
export interface SimResponse {
  status: number;
  body: unknown;
}

export interface ListQuery {
  limit: number;
  beforeSeq: number | undefined;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads limit and nextCursor as both services define them: default 15, at most 100 (a
 * larger value is served as 100), -1 for everything where allowed; a non-integer limit or
 * a cursor not issued for this list is refused.
 * @returns the query, or a reason for a 400.
 */
export function parseListQuery(
  params: URLSearchParams,
  list: string,
  cursors: CursorCodec,
  allowAll: boolean,
): ListQuery | string {
  const rawLimit = params.get('limit');
  let limit = 15;
  if (rawLimit !== null) {
    if (!/^-?\d+$/.test(rawLimit)) return `limit must be an integer, got "${rawLimit}"`;
    limit = Number(rawLimit);
    if (limit === -1 && !allowAll) return 'limit must be from 1 to 100';
    if (limit === 0 || limit < -1) return 'limit must be from 1 to 100, or -1 for all';
    if (limit > 100) limit = 100;
  }
  const cursor = params.get('nextCursor');
  if (cursor === null || cursor === '') return { limit, beforeSeq: undefined };
  const beforeSeq = cursors.decode(list, cursor);
  if (beforeSeq === undefined) return 'malformed cursor';
  return { limit, beforeSeq };
}

/** One page of a list with the cursor to the next. */
export function listPage<T extends Sequenced>(
  collection: Collection<T>,
  list: string,
  query: ListQuery,
  cursors: CursorCodec,
  visible: (item: T) => boolean,
): { items: T[]; nextCursor: string; hasMore: boolean } {
  const page = collection.page(query.beforeSeq, query.limit, visible);
  const nextCursor = page.hasMore && page.lastSeq !== undefined ? cursors.encode(list, page.lastSeq) : '';
  return { items: page.items, nextCursor, hasMore: page.hasMore };
}
