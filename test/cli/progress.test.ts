import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import { emptyStats } from '../../src/sync/context.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

describe('sync progress', () => {
  it('says each figure in plain words, with the resource’s own rate, retries and time', () => {
    const out = capture();
    let retries = 3; // retries of earlier resources do not count against this one
    const progress = createProgress({ stream: out.stream, tty: false, quiet: false, retries: () => retries });
    const stats = emptyStats();
    progress.update('giftCardTransactions', stats);
    retries += 1;
    Object.assign(stats, { records: 12_345, new: 12_000, changed: 1, pages: 124, quarantined: 2, durationMs: 2_000 });
    stats.notes['indexBuildMs'] = 1_500;
    stats.notes['vanished'] = 0;
    progress.done('giftCardTransactions', stats);
    expect(out.text()).toBe('ledger entries  12,345 records, 12,000 new, 1 changed, 124 pages, 2 quarantined, index build 1.5 s, vanished 0 | 6,173/s, 1 retry, 2.0 s\n');
  });

  it('says one page, and the settle pass’s notes', () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: false, quiet: false, retries: () => 0 });
    const stats = { ...emptyStats(), records: 1, pages: 1, durationMs: 500, notes: { cardsReread: 1, entriesToppedUp: 0, inFlight: 0, missingCards: 0 } };
    progress.done('settle', stats);
    expect(out.text()).toBe('settle pass     1 record, 0 new, 0 changed, 1 page, cards re-read 1, entries topped up 0, cards in flight 0, missing cards 0 | 2/s, 0 retries, 0.5 s\n');
  });

  it('redraws one live line on a terminal and ends it when the resource is done', () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: true, quiet: false, retries: () => 0 });
    const stats = emptyStats();
    progress.update('coupons', stats);
    progress.done('coupons', { ...stats, records: 10, pages: 1, durationMs: 1_000 });
    expect(out.text()).toBe('\r\x1b[Kcoupons         0 records, 0 new, 0 changed, 0 pages | 0/s, 0 retries\r\x1b[Kcoupons         10 records, 0 new, 0 changed, 1 page | 10/s, 0 retries, 1.0 s\n');
  });

  it('redraws at once when a note appears, such as the index builds after a bulk load', () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: true, quiet: false, retries: () => 0 });
    const stats = { ...emptyStats(), records: 10, pages: 1 };
    progress.update('giftCardTransactions', stats);
    progress.update('giftCardTransactions', { ...stats, records: 20, pages: 2 }); // within 100 ms: not drawn
    progress.update('giftCardTransactions', { ...stats, records: 20, pages: 2, notes: { buildingIndexes: 1 } });
    const drawn = out.text().split('\r\x1b[K').filter(Boolean);
    expect(drawn).toHaveLength(2);
    expect(drawn[1]).toMatch(/^ledger entries  20 records, 0 new, 0 changed, 2 pages, building indexes \| /);
  });

  it('prints nothing when quiet (--json prints one object instead)', () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: true, quiet: true, retries: () => 0 });
    progress.update('coupons', emptyStats());
    progress.done('coupons', emptyStats());
    expect(out.text()).toBe('');
  });
});
