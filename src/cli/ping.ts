import { loadConfig } from '../config.js';
import { logLevelOf } from '../log.js';
import { requestLog } from '../app/clients.js';
import { pingServices } from '../app/ping.js';
import { reporter } from './reporter.js';
import type { declarePing, FlagsOf } from './declarations.js';

/**
 * `ledger-recon ping`: checks the configuration and that both services accept our credentials,
 * reading one record from each (GET only; src/app/ping.ts).
 * @throws ConfigError, AuthError or ServiceUnavailableError, which the CLI maps to exit 2.
 */
export async function ping(options: FlagsOf<typeof declarePing>): Promise<void> {
  const { say, record } = reporter(options);
  const config = loadConfig(options);
  // -v / --log-level debug: the talk with both services on stderr, as every command logs it.
  const onEvent = requestLog(logLevelOf(), [config.giftcard.clientSecret.reveal(), config.dp.clientSecret.reveal()]);
  const pinged = await pingServices(config, onEvent);
  say(
    `gift card service: ok (${pinged.giftcard.url}, ${pinged.giftcard.cardsReadable ? 'cards readable' : 'no cards yet'})\n`,
  );
  say(
    `delivery partner service: ok (${pinged.dp.url}, DP ${pinged.dp.dpId}${pinged.dp.selectedWallet ? `, selected wallet ${pinged.dp.selectedWallet}` : ''})\n`,
  );
  record({ ok: true, ...pinged });
}
