import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DpClient } from '../../src/api/dp-client.js';
import { GiftCardClient } from '../../src/api/giftcard-client.js';
import { createLogger } from '../../src/log.js';
import { Secret } from '../../src/secret.js';
import { collect, FAST_RETRY, startServices, type TestServices } from '../support/simulator.js';

let services: TestServices;
beforeAll(async () => {
  services = await startServices({ seed: 21, plant: true, faults: { rate: 0.15, retryAfterSeconds: 0, slowMs: 5 } });
});
afterAll(() => services.close());

describe('client secrets', () => {
  it('appear in no log line and no error message, whatever fails', async () => {
    const { giftcard, dp } = services.sim.credentials;
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line), verbose: true });
    const onEvent = (event: unknown) => logger.debug(JSON.stringify(event));
    const gc = new GiftCardClient(
      {
        service: 'giftcard',
        baseUrl: services.sim.giftcardUrl,
        clientId: giftcard.clientId,
        clientSecret: new Secret(giftcard.clientSecret),
      },
      { retry: FAST_RETRY, onEvent },
    );
    const dpClient = new DpClient(
      { service: 'dp', baseUrl: services.sim.dpUrl, clientId: dp.clientId, clientSecret: new Secret(dp.clientSecret) },
      { retry: FAST_RETRY, onEvent },
    );
    const wrongSecret = `${giftcard.clientSecret}-rotated`;
    const rotated = new GiftCardClient(
      {
        service: 'giftcard',
        baseUrl: services.sim.giftcardUrl,
        clientId: giftcard.clientId,
        clientSecret: new Secret(wrongSecret),
      },
      { retry: FAST_RETRY, onEvent },
    );
    const exhausted = new DpClient(
      { service: 'dp', baseUrl: services.sim.dpUrl, clientId: dp.clientId, clientSecret: new Secret(dp.clientSecret) },
      { retry: { ...FAST_RETRY, maxRetries: 1 }, onEvent },
    );
    const messages: string[] = [];
    const record = async (work: Promise<unknown>) => {
      try {
        await work;
      } catch (error) {
        messages.push(String(error), (error as Error).stack ?? '', JSON.stringify(error));
        logger.warn((error as Error).message);
      }
    };
    await record(collect(gc.listTransactions({ limit: 10 })));
    await record(collect(dpClient.listOrders({ limit: 10 })));
    await record(collect(rotated.listGiftCards()));
    services.sim.faults.inject('error500', 2, { service: 'dp' });
    await record(exhausted.getWallets());
    await Promise.all([gc.close(), dpClient.close(), rotated.close(), exhausted.close()]);

    expect(lines.length).toBeGreaterThan(5);
    expect(messages.length).toBeGreaterThanOrEqual(6);
    const everything = [...lines, ...messages].join('\n');
    for (const secret of [giftcard.clientSecret, dp.clientSecret, wrongSecret])
      expect(everything).not.toContain(secret);
  });

  it('are redacted from a log line even if a message carried one', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line), secrets: ['hunter2'] });
    logger.warn('failed with secret hunter2 in it');
    expect(lines).toEqual(['warn failed with secret [redacted] in it\n']);
  });
});
