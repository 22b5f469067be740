import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import type { Config } from '../config.js';

export interface Clients {
  giftcard: GiftCardClient;
  dp: DpClient;
  close(): Promise<void>;
}

/** Clients of both services from the configuration; `signal` stops every request and wait (Ctrl-C). */
export function createClients(config: Config, options: { concurrency?: number; signal?: AbortSignal } = {}): Clients {
  // Each client redacts both secrets from what it reads: the other's too, should a service echo it.
  const stop = options.signal ? { signal: options.signal } : {};
  const giftcard = new GiftCardClient(config.giftcard, { maxConnections: options.concurrency ?? 8, ...stop });
  const dp = new DpClient(config.dp, { maxConnections: options.concurrency ?? 8, ...stop });
  return { giftcard, dp, close: async () => void (await Promise.all([giftcard.close(), dp.close()])) };
}
