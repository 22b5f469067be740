import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import { loadConfig, type ConfigFlags } from '../config.js';
import { logLevelOf } from '../log.js';
import { requestLog } from '../app/clients.js';
import { reporter, type Reporting } from './reporter.js';

export interface PingOptions extends ConfigFlags, Reporting {
  env?: NodeJS.ProcessEnv;
}

/**
 * Checks the configuration and that both services accept our credentials, reading one
 * record from each (GET only).
 * @throws ConfigError, AuthError or ServiceUnavailableError, which the CLI maps to exit 2.
 */
export async function ping(options: PingOptions): Promise<void> {
  const { say, record } = reporter(options);
  const config = loadConfig(options, options.env);
  // -v / --log-level debug: the talk with both services on stderr, as every command logs it.
  const onEvent = requestLog(logLevelOf(), [config.giftcard.clientSecret.reveal(), config.dp.clientSecret.reveal()]);
  const clientOptions = { retry: { maxRetries: 2 }, ...(onEvent ? { onEvent } : {}) };
  const giftcard = new GiftCardClient(config.giftcard, clientOptions);
  const dp = new DpClient(config.dp, clientOptions);
  try {
    const page = await giftcard.listGiftCards({ limit: 1 }).next();
    const cards = page.value?.records.length ?? 0;
    say(`gift card service: ok (${config.giftcard.baseUrl}, ${cards > 0 ? 'cards readable' : 'no cards yet'})\n`);
    const { wallets } = await dp.getWallets({ selectedOnly: true });
    const wallet = wallets[0];
    say(
      `delivery partner service: ok (${config.dp.baseUrl}, DP ${dp.dpId}${wallet ? `, selected wallet ${wallet.currency}` : ''})\n`,
    );
    record({
      ok: true,
      giftcard: { url: config.giftcard.baseUrl, cardsReadable: cards > 0 },
      dp: { url: config.dp.baseUrl, dpId: dp.dpId, selectedWallet: wallet?.currency ?? null },
    });
  } finally {
    await Promise.all([giftcard.close(), dp.close()]);
  }
}
