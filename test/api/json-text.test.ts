import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactAsDouble, InexactNumber, parseExact, sourceOf } from '../../src/api/json-text.js';
import { isRfc3339 } from '../../src/api/wire-types.js';
import { toCents } from '../../src/money.js';

describe('parseExact', () => {
  it('reads a number a double cannot carry as its text, and an amount of it is not on a cent', () => {
    const body = parseExact('{"data":[{"amount":10.000000000000000001,"ok":10.5,"big":1e400}]}') as {
      data: Array<Record<string, unknown>>;
    };
    const [record] = body.data;
    expect(record?.['amount']).toEqual(new InexactNumber('10.000000000000000001'));
    expect(record?.['ok']).toBe(10.5);
    expect(record?.['big']).toEqual(new InexactNumber('1e400'));
    expect(toCents(record?.['amount'] as InexactNumber)).toEqual({
      ok: false,
      reason: '10.000000000000000001 is not on a cent',
    });
    expect(toCents(record?.['big'] as InexactNumber)).toEqual({
      ok: false,
      reason: '1e400 cannot be read exactly as a decimal amount',
    });
    // 1e21 is a double exactly, and far too many cents.
    expect(toCents(parseExact('1e21') as number)).toEqual({ ok: false, reason: '1000000000000000000000 is too large' });
  });

  it("keeps each record's text byte for byte, __proto__ keys, escapes and number spellings included", () => {
    const first = '{ "id":"a\\u00e9\\"]}", "__proto__": {"x":1}, "n": 10.50 }';
    const second = '{"id":"b","nested":[{"deep":[1,2,{"x":"}"}]}]}';
    const body = parseExact(`{"success":true,"data":[${first},\n ${second}],"pagination":{"hasMore":false}}`) as {
      data: object[];
      pagination: object;
    };
    expect(body.data.map(sourceOf)).toEqual([first, second]);
    expect(Object.keys(body.data[0] ?? {})).toContain('__proto__');
    expect(sourceOf(body.pagination)).toBe('{"hasMore":false}');
    // A record read by ID (the value of "data") and a body that is the record itself (DP).
    expect(sourceOf((parseExact(`{"success":true,"data":${second}}`) as { data: object }).data)).toBe(second);
    expect(sourceOf(parseExact(first))).toBe(first);
    // DP lists: the records under a key of the body; a top-level array.
    expect(
      (parseExact(`{"orders":[${first}],"paginationInfo":{}}`) as { orders: object[] }).orders.map(sourceOf),
    ).toEqual([first]);
    expect((parseExact(`[${second},${first}]`) as object[]).map(sourceOf)).toEqual([second, first]);
  });

  it('follows JSON.parse on a duplicate key: the last list is the one whose texts are kept', () => {
    const body = parseExact('{"data":[{"a":1}],"data":[{"b":2},{"c":3}]}') as { data: object[] };
    expect(body.data.map(sourceOf)).toEqual(['{"b":2}', '{"c":3}']);
  });

  it("parses like JSON.parse, and keeps every list element's text, for any JSON of doubles (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 8 }), fc.boolean(), (records, spaced) => {
        const texts = records.map((record) => JSON.stringify(record, null, spaced ? 1 : 0));
        const text = `{"data":[${texts.join(spaced ? ' ,\n' : ',')}],"pagination":{"hasMore":true}}`;
        const body = parseExact(text) as { data: unknown[] };
        expect(body).toEqual(JSON.parse(text));
        body.data.forEach((record, index) => {
          if (record !== null && typeof record === 'object' && !Array.isArray(record))
            expect(sourceOf(record)).toBe(texts[index]);
        });
      }),
    );
  });

  it('calls a literal exact only when its double is the same decimal', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => exactAsDouble(String(value))),
    );
    expect(
      ['0.1', '10.50', '-0', '1e21', '1E-7', '123456789012345.67', '1234567890123456.78'].map(exactAsDouble),
    ).toEqual([true, true, true, true, true, true, false]);
    expect(['10.000000000000000001', '9007199254740993', '1e400', '0.30000000000000001'].map(exactAsDouble)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('RFC 3339 timestamps', () => {
  it('accepts real instants only', () => {
    expect(
      ['2025-02-28T23:59:59Z', '2024-02-29T00:00:00.123Z', '2025-06-01T10:00:00+05:30', '2000-02-29T12:00:00z'].map(
        isRfc3339,
      ),
    ).toEqual([true, true, true, true]);
    expect(
      [
        '2025-02-30T00:00:00Z',
        '2025-02-29T00:00:00Z',
        '1900-02-29T00:00:00Z',
        '2025-01-01T24:00:00Z',
        '2025-01-01T23:60:00Z',
        '2025-01-01T23:59:60Z',
        '2025-13-01T00:00:00Z',
        '2025-01-01T00:00:00',
        '2025-01-01T00:00:00+24:00',
        '2025-00-10T00:00:00Z',
      ].map(isRfc3339),
    ).toEqual([false, false, false, false, false, false, false, false, false, false]);
  });
});
