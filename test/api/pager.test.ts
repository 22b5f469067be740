import { describe, expect, it } from 'vitest';
import { paginate, type RawPage } from '../../src/api/pager.js';
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
    await expect(drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse }))).rejects.toBeInstanceOf(PaginationError);
  });

  it('stops on hasMore with an empty cursor', async () => {
    const source = pages([{ items: [1], nextCursor: '', hasMore: true }]);
    await expect(drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse }))).rejects.toThrow('hasMore with an empty nextCursor');
  });

  it('refuses a page size above 100', async () => {
    const source = pages([]);
    await expect(drain(paginate({ service: 'giftcard', path: '/x', fetchPage: source.fetchPage, parse, limit: 101 }))).rejects.toBeInstanceOf(RangeError);
    expect(source.asked).toEqual([]);
  });
});
