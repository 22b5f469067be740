/**
 * The Pushgateway push in-process, against a small HTTP server on 127.0.0.1 that records what
 * it was sent: the grouping key goes on the path, before a query string (a proxy's token);
 * no line shows the user, the password or the query string; a refusal's body is read to a bound.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { pushMetrics, pushUrl } from '../../src/app/metrics.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((closed) => (server ? server.close(() => closed()) : closed()));
  server = undefined;
});

/** A server answering each request with `answer`; the requests it saw, their bodies read. */
async function gateway(
  answer: (request: IncomingMessage, response: import('node:http').ServerResponse) => void,
): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  server = createServer((request, response) => {
    seen.push(request);
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((listening) => server!.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

describe('the push URL', () => {
  it('puts the grouping key on the path and keeps a query string after it', () => {
    const url = new URL(pushUrl('https://gw.example:9091/push/?token=t0k3n', 'merchant-a'));
    expect(url.pathname).toBe(
      `/push/metrics/job/ledger_recon/mirror@base64/${Buffer.from('merchant-a').toString('base64url')}`,
    );
    expect(url.search).toBe('?token=t0k3n');
    expect(pushUrl('http://gw:9091/metrics/job/nightly?x=1', 'm')).toBe('http://gw:9091/metrics/job/nightly?x=1');
  });
});

describe('a push', () => {
  it("reaches the grouping key's path with the query string, and names neither the token nor the password when refused", async () => {
    const { url, seen } = await gateway((_request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end('text format parsing error in line 1\n\u001b[2J');
    });
    const withSecrets = `${url.replace('//', '//monitor:Push-Secret-81@')}/?token=t0k3n-secret`;
    const refused = pushMetrics(pushUrl(withSecrets, 'm'), 'ledger_recon_up 1\n');
    await expect(refused).rejects.toThrow(
      `${url}/metrics/job/ledger_recon/mirror@base64/bQ?…: HTTP 400 (text format parsing error in line 1\\n\\u001b[2J)`,
    );
    const message = await refused.catch((error: Error) => error.message);
    expect(message).not.toMatch(/t0k3n|Push-Secret-81|monitor/);
    expect(seen[0]?.url).toBe('/metrics/job/ledger_recon/mirror@base64/bQ?token=t0k3n-secret');
    expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('monitor:Push-Secret-81').toString('base64')}`);
  });

  it("reads a refusal's body only to a bound, however large the body is", async () => {
    let sent = 0;
    const { url } = await gateway((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Writes for as long as the reader reads: a body without end, unless the push stops reading.
      const more = (): void => {
        while (!response.destroyed && response.write(chunk)) sent += chunk.length;
        if (!response.destroyed) response.once('drain', more);
      };
      response.on('close', () => response.removeAllListeners('drain'));
      more();
    });
    await expect(pushMetrics(`${url}/metrics/job/x`, 'ledger_recon_up 1\n')).rejects.toThrow(/: HTTP 500 \(x{200}\)$/);
    // What reached the push is what the kernel's buffers held when it stopped reading: megabytes at most, never the body.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});
