import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import type { Config } from '../config.js';

export interface Clients {
  giftcard: GiftCardClient;
  dp: DpClient;
  close(): Promise<void>;
}

/** Clients of both services from the configuration. */
export function createClients(config: Config, options: { concurrency?: number } = {}): Clients {
  // Each client redacts both secrets from what it reads: the other's too, should a service echo it.
  const giftcard = new GiftCardClient(config.giftcard, { maxConnections: options.concurrency ?? 8, secrets: () => [config.dp.clientSecret.reveal()] });
  const dp = new DpClient(config.dp, { maxConnections: options.concurrency ?? 8, secrets: () => [config.giftcard.clientSecret.reveal()] });
  return { giftcard, dp, close: async () => void (await Promise.all([giftcard.close(), dp.close()])) };
}
