/**
 * The Merkle tree of a transparency log as RFC 6962 (section 2.1) and RFC 9162 (section 2.1)
 * define it: leaf hashes SHA-256(0x00 ‖ entry), inner nodes SHA-256(0x01 ‖ left ‖ right), the
 * left subtree the largest power of two below the size. Inclusion proofs (an entry is in a tree
 * of a size) and consistency proofs (a tree of one size is the start of a larger one) are made
 * and checked by the RFCs' algorithms, so any RFC 6962 verifier agrees with ours
 * (test/evidence/tlog.test.ts holds them to the published test vectors).
 *
 * The log of a mirror is small (one leaf per seal: a night, a report written again, a close),
 * so trees are computed from the whole list of leaf hashes.
 */
import { sha256Bytes } from '../hash.js';

/** The hash of a log entry: SHA-256(0x00 ‖ its bytes). */
export function entryHash(entry: Buffer | string): Buffer {
  const bytes = typeof entry === 'string' ? Buffer.from(entry, 'utf8') : entry;
  return sha256Bytes(Buffer.concat([Buffer.from([0]), bytes]));
}

function node(left: Buffer, right: Buffer): Buffer {
  return sha256Bytes(Buffer.concat([Buffer.from([1]), left, right]));
}

/** The largest power of two below `n` (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]): the root of the tree of `leaves` (leaf hashes). The empty tree's is SHA-256 of nothing. */
export function treeHash(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha256Bytes(Buffer.alloc(0));
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return node(treeHash(leaves.slice(0, k)), treeHash(leaves.slice(k)));
}

/** PATH(m, D[n]): the audit path of leaf `index` in the tree of `leaves`, nearest sibling first. */
export function inclusionProof(leaves: readonly Buffer[], index: number): Buffer[] {
  if (index < 0 || index >= leaves.length) throw new RangeError(`leaf ${index} is not in a tree of ${leaves.length}`);
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return index < k
    ? [...inclusionProof(leaves.slice(0, k), index), treeHash(leaves.slice(k))]
    : [...inclusionProof(leaves.slice(k), index - k), treeHash(leaves.slice(0, k))];
}

/** PROOF(m, D[n]): that the tree of the first `size` of `leaves` is the start of the tree of them all. */
export function consistencyProof(leaves: readonly Buffer[], size: number): Buffer[] {
  if (size < 0 || size > leaves.length) throw new RangeError(`a tree of ${size} is not within one of ${leaves.length}`);
  if (size === 0) return [];
  return subproof(size, leaves, true);
}

function subproof(m: number, leaves: readonly Buffer[], whole: boolean): Buffer[] {
  if (m === leaves.length) return whole ? [] : [treeHash(leaves)];
  const k = split(leaves.length);
  return m <= k
    ? [...subproof(m, leaves.slice(0, k), whole), treeHash(leaves.slice(k))]
    : [...subproof(m - k, leaves.slice(k), false), treeHash(leaves.slice(0, k))];
}

const odd = (n: number): boolean => n % 2 === 1;

/** RFC 9162 2.1.3.2: whether `leaf` is entry `index` of the tree of `size` whose root is `root`. */
export function verifyInclusion(
  leaf: Buffer,
  index: number,
  size: number,
  proof: readonly Buffer[],
  root: Buffer,
): boolean {
  if (index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = node(p, r);
      if (!odd(fn)) while (!odd(fn) && fn !== 0) [fn, sn] = [fn >>> 1, sn >>> 1];
    } else r = node(r, p);
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 2.1.4.2: whether the tree of `first` leaves with root `firstRoot` is the start of the one of `second` with `secondRoot`. */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Buffer[],
  firstRoot: Buffer,
  secondRoot: Buffer,
): boolean {
  if (first < 0 || first > second) return false;
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  if (first === 0) return proof.length === 0;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) [fn, sn] = [fn >>> 1, sn >>> 1];
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if (!odd(fn)) while (!odd(fn) && fn !== 0) [fn, sn] = [fn >>> 1, sn >>> 1];
    } else sr = node(sr, c);
    [fn, sn] = [fn >>> 1, sn >>> 1];
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}
