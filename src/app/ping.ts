/**
 * Both services asked whether they answer and accept the credentials: one record read from each
 * (GET only). The job of `ledger-recon ping`, and what a test asks of a service that cannot be
 * reached as configured.
 */
import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import type { Config } from '../config.js';
import type { HttpEvent } from '../api/http-client.js';

export interface Pinged {
  giftcard: { url: string; cardsReadable: boolean };
  dp: { url: string; dpId: string; selectedWallet: string | null };
}

/**
 * Reads one card and the selected wallet. @throws ConfigError, AuthError or
 * ServiceUnavailableError (each naming the service, its variable and the fix).
 */
export async function pingServices(config: Config, onEvent?: (event: HttpEvent) => void): Promise<Pinged> {
  const clientOptions = { retry: { maxRetries: 2 }, ...(onEvent ? { onEvent } : {}) };
  const giftcard = new GiftCardClient(config.giftcard, clientOptions);
  const dp = new DpClient(config.dp, clientOptions);
  try {
    const page = await giftcard.listGiftCards({ limit: 1 }).next();
    const cardsReadable = (page.value?.records.length ?? 0) > 0;
    const { wallets } = await dp.getWallets({ selectedOnly: true });
    return {
      giftcard: { url: config.giftcard.baseUrl, cardsReadable },
      dp: { url: config.dp.baseUrl, dpId: dp.dpId, selectedWallet: wallets[0]?.currency ?? null },
    };
  } finally {
    await Promise.all([giftcard.close(), dp.close()]);
  }
}
