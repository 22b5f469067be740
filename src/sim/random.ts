import { hash } from 'node:crypto';

/**
 * A seeded pseudo-random source (sfc32): the same seed gives the same world, so a test or
 * a bug report can name its data by seed.
 */
export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = seed >>> 0;
    for (let i = 0; i < 15; i += 1) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#a >>>= 0;
    this.#b >>>= 0;
    this.#c >>>= 0;
    this.#d >>>= 0;
    let t = (this.#a + this.#b) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#d = (this.#d + 1) | 0;
    t = (t + this.#d) | 0;
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** A version-4-shaped UUID drawn from this source. */
  uuid(): string {
    const a = this.#word();
    const b = this.#word();
    const c = this.#word();
    const d = this.#word();
    const variant = '89ab'[this.int(0, 3)] ?? '8';
    return `${a}-${b.slice(0, 4)}-4${b.slice(5)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.#word();
    return out.slice(0, length);
  }

  /** Eight hex digits. */
  #word(): string {
    return Math.floor(this.next() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  }

  /** A code of upper-case letters and digits. */
  code(length: number): string {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    let out = '';
    for (let i = 0; i < length; i += 1) out += alphabet[this.int(0, alphabet.length - 1)];
    return out;
  }

  digits(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += String(this.int(0, 9));
    return out;
  }
}

/** The simulated services' own SHA-256 (the simulator imports nothing of the pipeline, src/hash.ts included). */
export function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}
