/**
 * A Merkle tree over records in ID order, built as the records stream by (memory: one hash per
 * level), so one record's inclusion can be proved with a path of hashes instead of the whole
 * population. Leaves are SHA-256 of 0x00 ‖ the record's canonical bytes, inner nodes SHA-256 of
 * 0x01 ‖ left ‖ right (the prefixes keep a leaf from passing for a node). Where a level has an
 * odd node out, it is carried up unchanged (as RFC 6962 splits: the left subtree is the largest
 * power of two), so the root of n leaves is the same whichever way it is computed.
 */
import { sha256Bytes, sha256Hex } from '../hash.js';

/** The prefix of an inner node's bytes (a leaf's is 0x00, written as the text's first character). */
const NODE = Buffer.from([1]);

/** The leaf hash of a record's canonical text. */
export function leafHash(canonical: string): Buffer {
  return sha256Bytes(`\u0000${canonical}`);
}

/** An inner node's bytes, written in place: 0x01 ‖ left ‖ right (a node hashed a million times a night allocates nothing). */
const NODE_BYTES = Buffer.alloc(65, 1);

function nodeHash(left: Buffer, right: Buffer): Buffer {
  if (left.length !== 32 || right.length !== 32) return sha256Bytes(Buffer.concat([NODE, left, right]));
  left.copy(NODE_BYTES, 1);
  right.copy(NODE_BYTES, 33);
  return sha256Bytes(NODE_BYTES);
}

/** The root of an empty population. */
export const EMPTY_ROOT = sha256Hex('');

/** Builds a root from leaves added in order: a stack of complete subtrees, largest first. */
export class MerkleBuilder {
  /** Complete subtrees: [hash, number of leaves (a power of two)], sizes strictly decreasing. */
  readonly #stack: [Buffer, number][] = [];
  #leaves = 0;

  add(leaf: Buffer): void {
    let node = leaf;
    let size = 1;
    for (let top = this.#stack.at(-1); top && top[1] === size; top = this.#stack.at(-1)) {
      this.#stack.pop();
      node = nodeHash(top[0], node);
      size *= 2;
    }
    this.#stack.push([node, size]);
    this.#leaves += 1;
  }

  get leaves(): number {
    return this.#leaves;
  }

  /** The root, in hex: the complete subtrees folded from the right. */
  root(): string {
    if (this.#stack.length === 0) return EMPTY_ROOT;
    let node = this.#stack.at(-1)![0];
    for (let i = this.#stack.length - 2; i >= 0; i -= 1) node = nodeHash(this.#stack[i]![0], node);
    return node.toString('hex');
  }
}

/** One step of an inclusion proof: a sibling hash and the side it sits on. */
export interface ProofStep {
  side: 'left' | 'right';
  hash: string;
}

/** The root of leaves[from, to) by the same shape as {@link MerkleBuilder}. */
function rootOf(leaves: readonly Buffer[], from: number, to: number): Buffer {
  if (to - from === 1) return leaves[from]!;
  const split = from + largestPowerOfTwoBelow(to - from);
  return nodeHash(rootOf(leaves, from, split), rootOf(leaves, split, to));
}

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The path proving leaf `index` is in the tree of `leaves` (for a population small enough to hold). */
export function inclusionProof(leaves: readonly Buffer[], index: number): ProofStep[] {
  const steps: ProofStep[] = [];
  let from = 0;
  let to = leaves.length;
  while (to - from > 1) {
    const split = from + largestPowerOfTwoBelow(to - from);
    if (index < split) {
      steps.push({ side: 'right', hash: rootOf(leaves, split, to).toString('hex') });
      to = split;
    } else {
      steps.push({ side: 'left', hash: rootOf(leaves, from, split).toString('hex') });
      from = split;
    }
  }
  return steps.reverse();
}

/** Whether `leaf` with its `proof` gives `root`. */
export function provesInclusion(leaf: Buffer, proof: readonly ProofStep[], root: string): boolean {
  let node = leaf;
  for (const step of proof) {
    const sibling = Buffer.from(step.hash, 'hex');
    node = step.side === 'left' ? nodeHash(sibling, node) : nodeHash(node, sibling);
  }
  return node.toString('hex') === root;
}
