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
  const giftcard = new GiftCardClient(config.giftcard, { maxConnections: options.concurrency ?? 8 });
  const dp = new DpClient(config.dp, { maxConnections: options.concurrency ?? 8 });
  return { giftcard, dp, close: async () => void (await Promise.all([giftcard.close(), dp.close()])) };
}
