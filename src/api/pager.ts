import { PaginationError, PayloadValidationError, type ServiceName } from '../errors.js';

/** The documented maximum page size of every list of both services. */
export const MAX_PAGE_SIZE = 100;

/** One page as the wire gives it: elements not yet validated, and the pagination state. */
export interface RawPage {
  items: unknown[];
  nextCursor: string | undefined;
  hasMore: boolean;
}

/** One page as the pager yields it. */
export interface Page<T> {
  /** 0 for the first page fetched by this pager. */
  index: number;
  /** The cursor that fetched this page (undefined: the newest page). */
  cursor: string | undefined;
  /** The cursor to resume from after this page; undefined on the last page. */
  nextCursor: string | undefined;
  hasMore: boolean;
  /** Elements that passed validation, in the service's order (newest first). */
  records: T[];
  /** Elements that failed validation, each with its raw JSON and reason, for quarantine. */
  rejected: PayloadValidationError[];
}

export interface PaginateOptions<T> {
  service: ServiceName;
  /** The list's path, for error messages. */
  path: string;
  fetchPage: (cursor: string | undefined, limit: number) => Promise<RawPage>;
  parse: (raw: unknown) => T;
  /** Page size: 1 to 100 (default 100). */
  limit?: number;
  /** Resume from a checkpointed cursor instead of the newest page. */
  startCursor?: string;
}

/**
 * Walks a list to its end, following each page's nextCursor while hasMore is true.
 * It never builds a cursor. Each element is validated on its own: a bad one lands in
 * `rejected` and the rest of the page is still yielded.
 * @throws PaginationError on a cursor seen before, or hasMore with no cursor.
 * @throws RangeError on a page size outside 1..100.
 */
export async function* paginate<T>(options: PaginateOptions<T>): AsyncGenerator<Page<T>> {
  const limit = options.limit ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new RangeError(`page size must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${limit}`);
  }
  const seen = new Set<string>();
  let cursor = options.startCursor;
  if (cursor !== undefined) seen.add(cursor);
  for (let index = 0; ; index += 1) {
    const raw = await options.fetchPage(cursor, limit);
    const records: T[] = [];
    const rejected: PayloadValidationError[] = [];
    for (const item of raw.items) {
      try {
        records.push(options.parse(item));
      } catch (error) {
        if (error instanceof PayloadValidationError) rejected.push(error);
        else throw error;
      }
    }
    const next = raw.hasMore ? raw.nextCursor : undefined;
    if (raw.hasMore) {
      if (next === undefined || next === '') {
        throw new PaginationError(options.service, options.path, `${options.path}: the service said hasMore with an empty nextCursor on page ${index + 1}`);
      }
      if (seen.has(next)) {
        throw new PaginationError(options.service, options.path, `${options.path}: the service returned a cursor it had returned before, on page ${index + 1}; stopping instead of looping`);
      }
      seen.add(next);
    }
    yield { index, cursor, nextCursor: next, hasMore: raw.hasMore, records, rejected };
    if (!raw.hasMore) return;
    cursor = next;
  }
}

/** Builds a list query string: limit and, when given, the opaque cursor, plus extra filters. */
export function listQuery(limit: number, cursor: string | undefined, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) params.set(key, value);
  params.set('limit', String(limit));
  if (cursor !== undefined) params.set('nextCursor', cursor);
  return `?${params.toString()}`;
}
