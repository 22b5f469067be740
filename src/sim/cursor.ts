import { createHmac, randomBytes } from 'node:crypto';

/**
 * Opaque, signed cursors: base64url of the list and the last sequence served, with an
 * HMAC so a made-up or damaged cursor is refused (400) as the real services do.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  encode(list: string, lastSeq: number): string {
    const body = Buffer.from(JSON.stringify({ l: list, s: lastSeq })).toString('base64url');
    return `${body}.${this.#sign(body)}`;
  }

  /** @returns the last sequence served, or undefined when the cursor is not one of ours for `list`. */
  decode(list: string, cursor: string): number | undefined {
    const [body, signature, ...rest] = cursor.split('.');
    if (!body || !signature || rest.length > 0 || signature !== this.#sign(body)) return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { l?: unknown; s?: unknown };
      return parsed.l === list && typeof parsed.s === 'number' && Number.isInteger(parsed.s) ? parsed.s : undefined;
    } catch {
      return undefined;
    }
  }

  #sign(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url').slice(0, 22);
  }
}
