import { PaginationError, PayloadValidationError, type ServiceName } from '../errors.js';
import { sha256Hex } from '../hash.js';

/** The documented maximum page size of every list of both services. */
export const MAX_PAGE_SIZE = 100;

/**
 * The most pages one walk follows: 200,000 pages of 100 is 20,000,000 records, twice the
 * largest ledger benchmarked. A list still saying hasMore past it is looping, not long.
 */
export const MAX_PAGES = 200_000;

/**
 * The most consecutive empty pages that still say hasMore before the walk stops: a list whose
 * next page is empty now and then is legal (a page whose records were deleted); a hundred in a
 * row, with the lock held, is a loop.
 */
export const MAX_EMPTY_PAGES = 100;

/**
 * The deepest nesting a record may have. The services' records are a few levels deep; one
 * nested far deeper (an unknown field 5,000 levels down) would overflow the stack of whatever
 * walks it next, so it is set aside for quarantine instead, its raw JSON cut at this depth.
 */
export const MAX_DEPTH = 64;

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
  /** The most pages to follow (default MAX_PAGES). */
  maxPages?: number;
}

/**
 * Walks a list to its end, following each page's nextCursor while hasMore is true.
 * It never builds a cursor. Each element is validated on its own: a bad one lands in
 * `rejected` and the rest of the page is still yielded.
 * @throws PaginationError on a cursor seen before, hasMore with no cursor, a page larger than
 * asked for, a page that repeats an earlier one (its size, first and last elements: a
 * fresh cursor over the same records), MAX_EMPTY_PAGES empty pages in a row that say hasMore,
 * or more pages than `maxPages`.
 * @throws RangeError on a page size outside 1..100.
 */
export async function* paginate<T>(options: PaginateOptions<T>): AsyncGenerator<Page<T>> {
  const limit = options.limit ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new RangeError(`page size must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${limit}`);
  }
  const seen = new Set<string>();
  const contents = new Set<string>();
  const maxPages = options.maxPages ?? MAX_PAGES;
  let cursor = options.startCursor;
  if (cursor !== undefined) seen.add(cursor);
  const stop = (why: string): never => {
    throw new PaginationError(options.service, options.path, `${options.path}: ${why}; stopping instead of looping`);
  };
  let emptyInARow = 0;
  for (let index = 0; ; index += 1) {
    if (index >= maxPages)
      stop(
        `the service still said hasMore after ${maxPages.toLocaleString('en-US')} pages, far beyond any plausible list`,
      );
    const raw = await options.fetchPage(cursor, limit);
    if (raw.items.length > limit) {
      throw new PaginationError(
        options.service,
        options.path,
        `${options.path}: the service returned ${raw.items.length} items on page ${index + 1}, more than the ${limit} asked for (the documented maximum is ${MAX_PAGE_SIZE}): a protocol violation`,
      );
    }
    emptyInARow = raw.hasMore && raw.items.length === 0 ? emptyInARow + 1 : 0;
    if (emptyInARow >= MAX_EMPTY_PAGES)
      stop(
        `the service returned ${MAX_EMPTY_PAGES} empty pages in a row that each still said hasMore (pages ${(index + 2 - MAX_EMPTY_PAGES).toLocaleString('en-US')} to ${(index + 1).toLocaleString('en-US')})`,
      );
    if (raw.hasMore && raw.items.length > 0) {
      // Its first and last element stand for the page: cheap on the hot path, and a page that
      // repeats both under a fresh cursor is the same page again.
      const content = sha256Hex(JSON.stringify([raw.items.length, raw.items[0], raw.items.at(-1)]));
      if (contents.has(content))
        stop(`the service returned on page ${index + 1} exactly the records of an earlier page, under a fresh cursor`);
      contents.add(content);
    }
    const records: T[] = [];
    const rejected: PayloadValidationError[] = [];
    for (const item of raw.items) {
      if (depthOf(item) > MAX_DEPTH) {
        rejected.push(
          new PayloadValidationError(
            options.path,
            cutAt(item, MAX_DEPTH),
            `nested deeper than ${MAX_DEPTH} levels: set aside whole, its raw JSON cut at that depth`,
          ),
        );
        continue;
      }
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
        throw new PaginationError(
          options.service,
          options.path,
          `${options.path}: the service said hasMore with an empty nextCursor on page ${index + 1}`,
        );
      }
      if (seen.has(next)) {
        throw new PaginationError(
          options.service,
          options.path,
          `${options.path}: the service returned a cursor it had returned before, on page ${index + 1}; stopping instead of looping`,
        );
      }
      seen.add(next);
    }
    yield { index, cursor, nextCursor: next, hasMore: raw.hasMore, records, rejected };
    if (!raw.hasMore) return;
    cursor = next;
  }
}

/** Builds a list query string: limit and, when given, the opaque cursor, plus extra filters. */
export function listQuery(
  limit: number,
  cursor: string | undefined,
  extra: Record<string, string | undefined> = {},
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) params.set(key, value);
  params.set('limit', String(limit));
  if (cursor !== undefined) params.set('nextCursor', cursor);
  return `?${params.toString()}`;
}

/** How deeply a parsed JSON value nests, walked without recursion (a hostile record may be very deep). */
export function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 1;
  // Only containers go on the stack: a flat record costs one pass over its values.
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_DEPTH) return deepest;
    for (const key in current) {
      const inner = (current as Record<string, unknown>)[key];
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
    }
  }
  return deepest;
}

/** A copy of a value with everything below `depth` levels replaced by a marker (bounded recursion). */
function cutAt(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth === 0) return '[cut: nested too deep]';
  if (Array.isArray(value)) return value.map((inner) => cutAt(inner, depth - 1));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cutAt(inner, depth - 1)]));
}
