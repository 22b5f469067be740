/**
 * Sending a text to an endpoint the operator names (a Pushgateway, a checkpoints receiver): never
 * one of the reconciled services, which are only read. A user and password in the URL go as
 * Basic authentication; no line ever shows them, nor the query string (a token may ride in it).
 */
import { oneLine } from './log.js';

/** A URL as a line may show it: no user, no password, no query string. */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}${url.search === '' ? '' : '?…'}`;
}

/** The most of a refusal's body read: enough for a one-line reason, never a whole large body. */
const MAX_REFUSAL_BYTES = 4096;

/**
 * Sends `text` to `url` (`method`, `contentType`).
 * @throws Error naming the URL (without its user, password and query string) and the cause: the
 * connection's failure, or the HTTP status with the start of the refusal's body, on one line.
 */
export async function sendText(
  url: string,
  method: 'POST' | 'PUT',
  contentType: string,
  text: string,
  timeoutMs = 10_000,
): Promise<void> {
  // fetch refuses a user and password in a URL, and its message would quote them.
  const target = new URL(url);
  const credentials =
    target.username || target.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`
      : undefined;
  target.username = '';
  target.password = '';
  const shown = shownUrl(target);
  let response: Response;
  try {
    response = await fetch(target, {
      method,
      headers: { 'content-type': contentType, ...(credentials ? { authorization: credentials } : {}) },
      body: text,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`${shown}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  if (!response.ok) {
    const body = oneLine((await startOf(response, MAX_REFUSAL_BYTES)).trim()).slice(0, 200);
    throw new Error(`${shown}: HTTP ${response.status}${body ? ` (${body})` : ''}`);
  }
  await response.body?.cancel();
}

/** The first `maxBytes` of a response's body (or a little more: whole chunks), the rest never read. */
async function startOf(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
