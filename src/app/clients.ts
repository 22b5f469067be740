import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import type { HttpEvent } from '../api/http-client.js';
import type { Config } from '../config.js';
import { logLevelOf, oneLine, redact, type LogLevel } from '../log.js';

export interface Clients {
  giftcard: GiftCardClient;
  dp: DpClient;
  close(): Promise<void>;
}

/**
 * The request log: at info, each retry with its cause and wait; at debug, every response too
 * (method, service, path with its query, status, attempt, time). A path and a query hold no
 * secret (the credentials travel in headers, which are never logged); every line still passes
 * through redaction of both client secrets, one line each.
 */
export function requestLog(
  level: LogLevel,
  secrets: readonly string[],
  write: (text: string) => void = (text) => process.stderr.write(text),
): ((event: HttpEvent) => void) | undefined {
  if (level !== 'info' && level !== 'debug') return undefined;
  const line = (text: string) => write(`ledger-recon: ${oneLine(redact(text, secrets))}\n`);
  return (event) => {
    if (event.type === 'retry')
      line(
        `${event.service} GET ${event.path}: ${event.cause}, retry ${event.attempt} in ${(event.delayMs / 1000).toFixed(1)} s`,
      );
    else if (level === 'debug')
      line(
        `${event.service} GET ${event.path} → ${event.status} in ${event.ms} ms${event.attempt > 0 ? ` (attempt ${event.attempt + 1})` : ''}`,
      );
  };
}

/** Clients of both services from the configuration; `signal` stops every request and wait (Ctrl-C). */
export function createClients(config: Config, options: { concurrency?: number; signal?: AbortSignal } = {}): Clients {
  // Each client redacts both secrets from what it reads: the other's too, should a service echo it.
  const stop = options.signal ? { signal: options.signal } : {};
  const onEvent = requestLog(logLevelOf(), [config.giftcard.clientSecret.reveal(), config.dp.clientSecret.reveal()]);
  const log = onEvent ? { onEvent } : {};
  const giftcard = new GiftCardClient(config.giftcard, { maxConnections: options.concurrency ?? 8, ...stop, ...log });
  const dp = new DpClient(config.dp, { maxConnections: options.concurrency ?? 8, ...stop, ...log });
  return { giftcard, dp, close: async () => void (await Promise.all([giftcard.close(), dp.close()])) };
}
