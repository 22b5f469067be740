import { inspect } from 'node:util';

/**
 * A client secret. It prints as "[redacted]" through String(), JSON.stringify and
 * util.inspect, so a secret that slips into a log line or an error shows nothing.
 * The HTTP layer calls {@link Secret.reveal} only to set the request header.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}
