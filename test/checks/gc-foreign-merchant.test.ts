import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, OTHER_MERCHANT } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_FOREIGN_MERCHANT', () => {
  it('flags a card owned by another merchant', () => {
    expect(
      inspect(CHECKS.GC_FOREIGN_MERCHANT, cardLedger(5_000, [], { giftCardId: 'theirs', merchantId: OTHER_MERCHANT })),
    ).toMatchObject([{ entityId: 'theirs' }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card theirs belongs to merchant 00000000-0000-4000-8000-00000000000b, not to our merchant 00000000-0000-4000-8000-00000000000a — the service's merchant scoping let it through",
      ]
    `);
  });

  it('passes our own cards', () => {
    expect(inspect(CHECKS.GC_FOREIGN_MERCHANT, cardLedger(5_000, []))).toEqual([]);
  });
});
