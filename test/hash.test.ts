/**
 * src/hash.ts: SHA-256 of a text's UTF-8 bytes, the same digest createHash makes (the mirror's
 * hashes, fingerprints and sealed digests were made with it), for any text.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Bytes, sha256Hex } from '../src/hash.js';

describe('sha256', () => {
  it('gives the standard digests', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("is createHash's digest of the text's UTF-8 bytes, as text or bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const expected = createHash('sha256').update(text, 'utf8').digest();
        expect(sha256Hex(text)).toBe(expected.toString('hex'));
        expect(sha256Bytes(text).equals(expected)).toBe(true);
        expect(sha256Hex(Buffer.from(text, 'utf8'))).toBe(expected.toString('hex'));
      }),
    );
  });
});
