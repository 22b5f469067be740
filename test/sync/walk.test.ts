import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefetch } from '../../src/sync/walk.js';
import { startServices, type TestServices } from '../support/simulator.js';

let services: TestServices;
beforeAll(async () => {
  services = await startServices({ size: 'small', seed: 5 });
});
afterAll(async () => {
  await services.close();
});

describe('prefetch', () => {
  it('has the next page’s request on the wire before it hands out the current page', async () => {
    let sent = 0;
    const onSend = (): void => {
      sent += 1;
    };
    subscribe('undici:client:sendHeaders', onSend);
    try {
      const seen: Array<{ index: number; hasMore: boolean; sentBefore: number }> = [];
      for await (const page of prefetch(services.giftcard.listTransactions())) {
        // The caller's synchronous work starts here: the request for the next page must already be out.
        seen.push({ index: page.index, hasMore: page.hasMore, sentBefore: sent });
      }
      expect(seen.length).toBeGreaterThan(3);
      for (const page of seen.filter((p) => p.hasMore))
        expect(page.sentBefore, `page ${page.index}`).toBeGreaterThanOrEqual(page.index + 2);
    } finally {
      unsubscribe('undici:client:sendHeaders', onSend);
    }
  });
});
