import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import { estimate, wrap } from '../../src/app/progress-lines.js';
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
    const progress = createProgress({ stream: out.stream, tty: false, quiet: false });
    const stats = emptyStats();
    progress.update('giftCardTransactions', stats);
    Object.assign(stats, {
      records: 12_345,
      new: 12_000,
      changed: 1,
      pages: 124,
      quarantined: 2,
      durationMs: 2_000,
      retries: 1,
    });
    stats.notes['indexBuildMs'] = 1_500;
    stats.notes['vanished'] = 0;
    progress.done('giftCardTransactions', stats);
    // What matters first (a narrow terminal cuts the end); a note of 0 says nothing.
    expect(out.text()).toBe(
      'ledger entries  12,345 records, 12,000 new, 1 changed, 2 quarantined | 2.0 s, 1 retry | 6,173/s, 124 pages, index build 1.5 s\n',
    );
  });

  it("counts against a resource its own retries, as the sync counted them: a healthy service's show none", () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: false, quiet: false });
    progress.update('dpOrders', emptyStats());
    progress.update('giftCards', emptyStats());
    progress.done('dpOrders', { ...emptyStats(), records: 150, new: 150, pages: 2, durationMs: 400 });
    // The gift card URL is wrong: its requests are retried.
    progress.done('giftCards', { ...emptyStats(), durationMs: 400, retries: 6 });
    expect(out.text().split('\n')[0]).toMatch(/^DP orders .*\| 0\.4 s, 0 retries \|/);
    expect(out.text().split('\n')[1]).toMatch(/^gift cards .*\| 0\.4 s, 6 retries \|/);
  });

  it('says one page, and the settle pass’s notes', () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: false, quiet: false });
    const stats = {
      ...emptyStats(),
      records: 1,
      pages: 1,
      durationMs: 500,
      notes: { cardsReread: 1, entriesToppedUp: 0, inFlight: 0, missingCards: 0 },
    };
    progress.done('settle', stats);
    expect(out.text()).toBe(
      'settle pass     1 record, 0 new, 0 changed | 0.5 s, 0 retries | 2/s, 1 page, cards re-read 1\n',
    );
  });

  it('estimates what is left where the mirror says how many records to expect', () => {
    expect(estimate(25_000, 100_000, 10_000)).toBe('25 %, ~30 s left');
    expect(estimate(10_000, 1_000_000, 60_000)).toBe('1 %, ~99 min left');
    // The list grew beyond what the mirror held: not done until it ends.
    expect(estimate(120, 100, 1_000)).toBe('99 %, ~0 s left');
  });

  it('wraps a closing line at words, no line wider than the terminal', () => {
    const closing = 'sync 1 (full) completed in 0.4 s: 80 records read, 80 new, 0 changed, 0 quarantined, 0 retries';
    const lines = wrap(closing, 40).split('\n');
    expect(lines).toEqual([
      'sync 1 (full) completed in 0.4 s: 80',
      '  records read, 80 new, 0 changed, 0',
      '  quarantined, 0 retries',
    ]);
    expect(wrap('short', 40)).toBe('short');
  });

  it('prints nothing when quiet (--json prints one object instead)', () => {
    const out = capture();
    const progress = createProgress({ stream: out.stream, tty: true, quiet: true });
    progress.update('coupons', emptyStats());
    progress.done('coupons', emptyStats());
    progress.step('check');
    progress.finish('closing');
    expect(out.text()).toBe('');
  });
});
