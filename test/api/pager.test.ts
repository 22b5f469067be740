import { describe, expect, it } from 'vitest';
import { depthOf, MAX_DEPTH, paginate, type RawPage } from '../../src/api/pager.js';
import { PaginationError, PayloadValidationError } from '../../src/errors.js';

/** A list served from pages held in memory: the pager's fetch function is its injection point. */
function pages(list: RawPage[]) {
  const asked: Array<string | undefined> = [];
  return {
    asked,
    fetchPage: async (cursor: string | undefined): Promise<RawPage> => {
      asked.push(cursor);
      const index = cursor === undefined ? 0 : Number(cursor.replace('c', ''));
      const page = list[index];
      if (!page) throw new Error(`no page ${index}`);
      return page;
    },
  };
}

const parse = (raw: unknown): number => {
  if (typeof raw !== 'number') throw new PayloadValidationError('numbers', raw, 'not a number');
  return raw;
};

async function drain<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterator) out.push(item);
  return out;
}

describe('paginate', () => {
  it('follows nextCursor while hasMore, exposing each page’s cursor', async () => {
    const source = pages([
      { items: [1, 2], nextCursor: 'c1', hasMore: true },
      { items: [3], nextCursor: 'c2', hasMore: true },
      { items: [4], nextCursor: '', hasMore: false },
    ]);
    const got = await drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse }));
    expect(got.map((p) => [p.index, p.cursor, p.nextCursor, p.records])).toEqual([
      [0, undefined, 'c1', [1, 2]],
      [1, 'c1', 'c2', [3]],
      [2, 'c2', undefined, [4]],
    ]);
  });

  it('keeps a page’s valid records when one element fails validation', async () => {
    const source = pages([{ items: [1, 'two', 3], nextCursor: undefined, hasMore: false }]);
    const [page] = await drain(paginate({ service: 'dp', path: '/x', fetchPage: source.fetchPage, parse }));
    expect(page?.records).toEqual([1, 3]);
    expect(page?.rejected.map((r) => [r.raw, r.reason])).toEqual([['two', 'not a number']]);
  });

  it('stops on a cursor it has seen before instead of looping', async () => {
    const source = pages([
      { items: [1], nextCursor: 'c1', hasMore: true },
      { items: [2], nextCursor: 'c1', hasMore: true },
    ]);
    await expect(
      drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse })),
    ).rejects.toBeInstanceOf(PaginationError);
  });

  it('stops on hasMore with an empty cursor', async () => {
    const source = pages([{ items: [1], nextCursor: '', hasMore: true }]);
    await expect(
      drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse })),
    ).rejects.toThrow('hasMore with an empty nextCursor');
  });

  it('refuses a page size above 100', async () => {
    const source = pages([]);
    await expect(
      drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse, limit: 101 })),
    ).rejects.toBeInstanceOf(RangeError);
    expect(source.asked).toEqual([]);
  });

  it('stops with a clear error when a fresh cursor serves the same records again', async () => {
    let n = 0;
    const fetchPage = async (): Promise<RawPage> => ({
      items: [1, 2, 3],
      nextCursor: `fresh-${(n += 1)}`,
      hasMore: true,
    });
    await expect(drain(paginate({ service: 'giftcard', path: '/x', fetchPage, parse }))).rejects.toThrow(
      '/x: the service returned on page 2 exactly the records of an earlier page, under a fresh cursor; stopping instead of looping',
    );
    expect(n).toBe(2);
  });

  it('stops after a bounded number of pages of ever-new records', async () => {
    let n = 0;
    const fetchPage = async (): Promise<RawPage> => ({ items: [(n += 1)], nextCursor: `c${n}`, hasMore: true });
    await expect(drain(paginate({ service: 'dp', path: '/orders', fetchPage, parse, maxPages: 50 }))).rejects.toThrow(
      '/orders: the service still said hasMore after 50 pages, far beyond any plausible list; stopping instead of looping',
    );
    expect(n).toBe(50);
  });

  it('follows a few empty pages that say hasMore, and stops at the hundredth in a row', async () => {
    const gaps: RawPage[] = [
      { items: [], nextCursor: 'c1', hasMore: true },
      { items: [1], nextCursor: 'c2', hasMore: true },
      { items: [2], nextCursor: '', hasMore: false },
    ];
    expect(
      (await drain(paginate({ service: 'giftcard', path: '/x', fetchPage: pages(gaps).fetchPage, parse }))).flatMap(
        (p) => p.records,
      ),
    ).toEqual([1, 2]);
    const empty = Array.from(
      { length: 150 },
      (_, i): RawPage => ({ items: [], nextCursor: `c${i + 1}`, hasMore: true }),
    );
    const source = pages(empty);
    await expect(
      drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse })),
    ).rejects.toThrow('100 empty pages in a row');
    expect(source.asked).toHaveLength(100);
  });

  it('refuses a page larger than asked for as a protocol violation', async () => {
    const fetchPage = async (): Promise<RawPage> => ({
      items: Array.from({ length: 101 }, (_, i) => i),
      nextCursor: undefined,
      hasMore: false,
    });
    await expect(drain(paginate({ service: 'giftcard', path: '/x', fetchPage, parse }))).rejects.toThrow(
      PaginationError,
    );
    await expect(drain(paginate({ service: 'giftcard', path: '/x', fetchPage, parse }))).rejects.toThrow(
      '/x: the service returned 101 items on page 1, more than the 100 asked for (the documented maximum is 100): a protocol violation',
    );
  });

  it('sets aside a record nested 5,000 levels deep for quarantine, its raw JSON cut at the bound, and keeps the rest of its page', async () => {
    const deep = JSON.parse(`${'{"d":'.repeat(5000)}1${'}'.repeat(5000)}`) as unknown;
    expect(depthOf(deep)).toBeGreaterThan(MAX_DEPTH);
    const source = pages([{ items: [1, { id: 'x', extra: deep }, 3], nextCursor: undefined, hasMore: false }]);
    const [page] = await drain(
      paginate({ service: 'giftcard', path: '/v1/giftCards/transactions', fetchPage: source.fetchPage, parse }),
    );
    expect(page?.records).toEqual([1, 3]);
    expect(page?.rejected).toHaveLength(1);
    const rejected = page!.rejected[0]!;
    expect(rejected.reason).toBe(
      `nested deeper than ${MAX_DEPTH} levels: set aside whole, its raw JSON cut at that depth`,
    );
    // What the quarantine stores is small and safe to serialise.
    const stored = JSON.stringify(rejected.raw);
    expect(stored.length).toBeLessThan(2_000);
    expect(stored).toContain('"id":"x"');
    expect(stored).toContain('[cut: nested too deep]');
  });
});
