/**
 * The log's Merkle tree against RFC 6962's published test vectors (the Certificate Transparency
 * reference entries, roots, audit paths and consistency proofs), and as a property: every
 * entry's inclusion and every pair of sizes' consistency verify, and a changed entry or root
 * does not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  entryHash,
  inclusionProof,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/evidence/tlog.js';
import { runs } from '../support/property.js';

const ENTRIES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map((hex) => Buffer.from(hex, 'hex'));
const LEAVES = ENTRIES.map((entry) => entryHash(entry));
/** The root of the first n entries, n = 0…8. */
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
/** [entry index from 0, tree size, audit path]. */
const INCLUSION: [number, number, string[]][] = [
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
/** [first size, second size, consistency proof]. */
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
const hex = (hashes: readonly Buffer[]) => hashes.map((h) => h.toString('hex'));
const root = (n: number) => Buffer.from(ROOTS[n]!, 'hex');

describe('the log tree (RFC 6962 test vectors)', () => {
  it('gives the published root of every size from 0 to 8', () => {
    for (let n = 0; n <= 8; n += 1) expect(treeHash(LEAVES.slice(0, n)).toString('hex'), `size ${n}`).toBe(ROOTS[n]);
  });

  it('makes and checks the published audit paths', () => {
    for (const [index, size, path] of INCLUSION) {
      const proof = inclusionProof(LEAVES.slice(0, size), index);
      expect(hex(proof), `entry ${index} of ${size}`).toEqual(path);
      expect(verifyInclusion(LEAVES[index]!, index, size, proof, root(size))).toBe(true);
      expect(verifyInclusion(LEAVES[index]!, index, size, proof, root(size - 1))).toBe(false);
      expect(verifyInclusion(LEAVES[(index + 1) % size]!, index, size, proof, root(size))).toBe(false);
    }
  });

  it('makes and checks the published consistency proofs', () => {
    for (const [first, second, path] of CONSISTENCY) {
      const proof = consistencyProof(LEAVES.slice(0, second), first);
      expect(hex(proof), `${first} to ${second}`).toEqual(path);
      expect(verifyConsistency(first, second, proof, root(first), root(second))).toBe(true);
      if (first !== second) expect(verifyConsistency(first, second, proof, root(first), root(second - 1))).toBe(false);
    }
  });
});

describe('the log tree (property)', () => {
  const logs = fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: 1, maxLength: 40 });

  it('proves every entry in every tree and no changed one', () => {
    fc.assert(
      fc.property(logs, (entries) => {
        const leaves = entries.map((e) => entryHash(Buffer.from(e)));
        const top = treeHash(leaves);
        leaves.forEach((leaf, index) => {
          const proof = inclusionProof(leaves, index);
          expect(verifyInclusion(leaf, index, leaves.length, proof, top)).toBe(true);
          expect(
            verifyInclusion(
              entryHash(Buffer.concat([Buffer.from(entries[index]!), Buffer.from('x')])),
              index,
              leaves.length,
              proof,
              top,
            ),
          ).toBe(false);
        });
      }),
      runs(30),
    );
  });

  it('proves every smaller tree the start of the larger, and not one with a changed entry', () => {
    fc.assert(
      fc.property(logs, (entries) => {
        const leaves = entries.map((e) => entryHash(Buffer.from(e)));
        const top = treeHash(leaves);
        for (let size = 1; size <= leaves.length; size += 1) {
          const proof = consistencyProof(leaves, size);
          const start = treeHash(leaves.slice(0, size));
          expect(verifyConsistency(size, leaves.length, proof, start, top)).toBe(true);
          const changed = [entryHash('changed'), ...leaves.slice(1, size)];
          if (size < leaves.length)
            expect(verifyConsistency(size, leaves.length, proof, treeHash(changed), top)).toBe(false);
        }
      }),
      runs(30),
    );
  });
});
