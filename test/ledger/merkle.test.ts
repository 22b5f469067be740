import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_ROOT, inclusionProof, leafHash, MerkleBuilder, provesInclusion } from '../../src/ledger/merkle.js';

const rootOf = (records: readonly string[]): string => {
  const builder = new MerkleBuilder();
  for (const record of records) builder.add(leafHash(record));
  return builder.root();
};

describe('the population Merkle tree', () => {
  it('has a known root for nothing and differs for one record', () => {
    expect(rootOf([])).toBe(EMPTY_ROOT);
    expect(rootOf(['a'])).toBe(leafHash('a').toString('hex'));
    expect(rootOf(['a', 'b'])).not.toBe(rootOf(['b', 'a']));
  });

  it('proves every record in, and refuses a changed one (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 70 }), fc.nat(), (records, pick) => {
        const leaves = records.map(leafHash);
        const root = rootOf(records);
        const index = pick % records.length;
        const proof = inclusionProof(leaves, index);
        expect(provesInclusion(leaves[index]!, proof, root)).toBe(true);
        expect(provesInclusion(leafHash(`${records[index]}x`), proof, root)).toBe(false);
        expect(proof.length).toBeLessThanOrEqual(Math.ceil(Math.log2(records.length)));
      }),
    );
  });

  it('changes its root when a record is changed, added, dropped or moved (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 2, maxLength: 40 }), fc.nat(), (records, pick) => {
        const root = rootOf(records);
        const i = pick % records.length;
        expect(rootOf(records.map((r, k) => (k === i ? `${r}!` : r)))).not.toBe(root);
        expect(rootOf([...records, 'extra'])).not.toBe(root);
        expect(rootOf(records.filter((_, k) => k !== i))).not.toBe(root);
        expect(rootOf([...records.slice(1), records[0]!])).not.toBe(root);
      }),
    );
  });
});
