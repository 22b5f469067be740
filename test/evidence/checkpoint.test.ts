/**
 * Checkpoints in the C2SP formats: the signed-note signature against Go's published note (the
 * PeterNeumann key of golang.org/x/mod/sumdb/note), a checkpoint signed and read back, a
 * witness's cosignature, and what a changed note or another key gives.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkpointNote,
  cosign,
  cosignedBy,
  noteKeyId,
  noteSignature,
  noteSignedBy,
  parseCheckpoint,
  signedByLog,
  type CheckpointNote,
} from '../../src/evidence/checkpoint.js';
import { entryHash, treeHash } from '../../src/evidence/tlog.js';

/** Go's example: the signer key's seed (after its type byte) and the note it signs. */
const PETER_SEED = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
const PETER_TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIGNATURE =
  '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';

const fromSeed = (seed: Buffer) =>
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });

const read = (note: string): CheckpointNote => {
  const parsed = parseCheckpoint(note);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};

describe('signed notes (C2SP signed-note)', () => {
  it("signs Go's published note byte for byte and checks it", () => {
    const key = fromSeed(PETER_SEED);
    expect(noteKeyId('PeterNeumann', key).toString('hex')).toBe('c74f20a3');
    expect(noteSignature(PETER_TEXT, 'PeterNeumann', key)).toBe(PETER_SIGNATURE);
    const bytes = Buffer.from(PETER_SIGNATURE.split(' ')[2]!, 'base64');
    const signatures = [{ name: 'PeterNeumann', keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) }];
    expect(noteSignedBy(PETER_TEXT, signatures, 'PeterNeumann', createPublicKey(key))).toBe(true);
    expect(noteSignedBy(`${PETER_TEXT} `, signatures, 'PeterNeumann', createPublicKey(key))).toBe(false);
  });
});

describe('checkpoints (C2SP tlog-checkpoint, tlog-cosignature)', () => {
  const log = generateKeyPairSync('ed25519');
  const witness = generateKeyPairSync('ed25519');
  const checkpoint = {
    origin: 'ledger-recon.local/log/0123456789abcdef',
    size: 3,
    root: treeHash(['a', 'b', 'c'].map((e) => entryHash(e))),
  };

  it("is the origin, size and root, signed by the log's key", () => {
    const note = checkpointNote(checkpoint, log.privateKey);
    expect(note.split('\n').slice(0, 4)).toEqual([checkpoint.origin, '3', checkpoint.root.toString('base64'), '']);
    const parsed = read(note);
    expect(parsed).toMatchObject({ origin: checkpoint.origin, size: 3 });
    expect(parsed.root.equals(checkpoint.root)).toBe(true);
    expect(signedByLog(parsed, log.publicKey)).toBe(true);
    expect(signedByLog(parsed, witness.publicKey)).toBe(false);
    expect(signedByLog(read(note.replace('\n3\n', '\n4\n')), log.publicKey)).toBe(false);
  });

  it("carries a witness's cosignature, which holds for its key and the time it states", () => {
    const signed = read(checkpointNote(checkpoint, log.privateKey));
    const cosigned = read(cosign(signed, 'auditor.example/witness', witness.privateKey, 1_790_000_000));
    expect(cosigned.signatures).toHaveLength(2);
    expect(signedByLog(cosigned, log.publicKey)).toBe(true);
    expect(cosignedBy(cosigned, witness.publicKey)).toEqual({ name: 'auditor.example/witness', time: 1_790_000_000 });
    expect(cosignedBy(cosigned, log.publicKey)).toBeUndefined();
    const moved = read(cosign(signed, 'auditor.example/witness', witness.privateKey, 1).replace('\n3\n', '\n2\n'));
    expect(cosignedBy(moved, witness.publicKey)).toBeUndefined();
  });

  it('names what is wrong with a text that is no checkpoint', () => {
    expect(parseCheckpoint('origin\nthree\nAAAA\n')).toEqual({
      problem: 'its second line (the tree size) is not a number',
    });
    expect(parseCheckpoint('origin\n3\nAAAA\n')).toEqual({
      problem: 'its third line (the root hash) is not 32 bytes of base64',
    });
    expect(parseCheckpoint('origin\u0007\n3\n')).toMatchObject({
      problem: expect.stringMatching(/control characters/),
    });
    const note = checkpointNote(checkpoint, log.privateKey);
    expect(parseCheckpoint(`${note}not a signature\n`)).toMatchObject({
      problem: expect.stringMatching(/signature line/),
    });
  });
});
