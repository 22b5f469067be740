/**
 * Checkpoints of the log of seals, in the C2SP formats other transparency tools read:
 * `tlog-checkpoint` (the origin, the tree size and the root hash, one line each) as a
 * `signed-note` (a signature line per key: an em dash, the key's name, base64 of its 4-byte ID
 * and the Ed25519 signature of the text), and `tlog-cosignature` (a witness's timestamped
 * signature over `cosignature/v1`, the time and the checkpoint's text). Keys are the Ed25519
 * keys the evidence is signed with (PEM files, sign.ts).
 */
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { sha256Bytes } from '../hash.js';

/** What a checkpoint says: which log, how many leaves, their root. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
}

/** A checkpoint as read: what it says, its text (the signed bytes) and its signature lines. */
export interface CheckpointNote extends Checkpoint {
  text: string;
  signatures: { name: string; keyId: Buffer; signature: Buffer }[];
}

/** signed-note's signature types: an Ed25519 note signature, a timestamped Ed25519 cosignature. */
const ED25519 = 0x01;
const COSIGNATURE = 0x04;
/** The largest checkpoint read: three lines and a few signatures. */
export const MAX_CHECKPOINT_BYTES = 64 * 1024;

/** An Ed25519 key's 32 bytes (RFC 8032), from a private or public key. */
function rawPublicKey(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const x = publicKey.export({ format: 'jwk' }).x;
  if (typeof x !== 'string') throw new Error('not an Ed25519 key');
  return Buffer.from(x, 'base64url');
}

/** signed-note's key ID: SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]. */
export function noteKeyId(name: string, key: KeyObject, type: number = ED25519): Buffer {
  return sha256Bytes(
    Buffer.concat([Buffer.from(`${name}\n`, 'utf8'), Buffer.from([type]), rawPublicKey(key)]),
  ).subarray(0, 4);
}

/** The checkpoint's text: origin, size and base64 root, each ending in a newline. */
export function checkpointText({ origin, size, root }: Checkpoint): string {
  return `${origin}\n${size}\n${root.toString('base64')}\n`;
}

function signatureLine(name: string, bytes: Buffer): string {
  return `\u2014 ${name} ${bytes.toString('base64')}\n`;
}

/**
 * The checkpoint as a note, signed by the log's key when one is given (its name is the
 * origin). Unsigned, it is the text alone: a witness's cosignature or the folder's manifests
 * are then what vouch for it.
 */
export function checkpointNote(checkpoint: Checkpoint, key?: KeyObject): string {
  const text = checkpointText(checkpoint);
  return key ? `${text}\n${noteSignature(text, checkpoint.origin, key)}` : text;
}

/** signed-note's Ed25519 signature line of `text` by `key` under `name`. */
export function noteSignature(text: string, name: string, key: KeyObject): string {
  return signatureLine(name, Buffer.concat([noteKeyId(name, key), sign(null, Buffer.from(text, 'utf8'), key)]));
}

/** Whether one of `signatures` is `key`'s (under `name`) over `text`. */
export function noteSignedBy(
  text: string,
  signatures: CheckpointNote['signatures'],
  name: string,
  key: KeyObject,
): boolean {
  const id = noteKeyId(name, key);
  return signatures.some(
    (s) =>
      s.name === name &&
      s.keyId.equals(id) &&
      s.signature.length === 64 &&
      verify(null, Buffer.from(text, 'utf8'), key, s.signature),
  );
}

/** What a cosigner signs: the header, the time, the checkpoint's text. */
function cosignedMessage(text: string, time: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${time}\n${text}`, 'utf8');
}

/** The note with a witness's cosignature (its name, its key, the time in seconds) added. */
export function cosign(note: CheckpointNote, name: string, key: KeyObject, timeSeconds: number): string {
  const stamp = Buffer.alloc(8);
  stamp.writeBigUInt64BE(BigInt(timeSeconds));
  const signature = sign(null, cosignedMessage(note.text, timeSeconds), key);
  const lines = note.signatures.map((s) => signatureLine(s.name, Buffer.concat([s.keyId, s.signature])));
  lines.push(signatureLine(name, Buffer.concat([noteKeyId(name, key, COSIGNATURE), stamp, signature])));
  return `${note.text}\n${lines.join('')}`;
}

/** A key name as signed-note allows: not empty, no space, no plus. */
export function validKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name);
}

/**
 * Reads a checkpoint note. @returns it, or why it is not one (one phrase: "its size is not a
 * number", …).
 */
export function parseCheckpoint(note: string): CheckpointNote | { problem: string } {
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note))
    return { problem: 'it holds control characters, which no checkpoint does' };
  const blank = note.lastIndexOf('\n\n');
  const text = blank === -1 ? note : note.slice(0, blank + 1);
  const signatureText = blank === -1 ? '' : note.slice(blank + 2);
  const [origin, size, root] = text.split('\n');
  if (!origin || !text.endsWith('\n')) return { problem: 'its first line (the origin) is missing' };
  if (size === undefined || !/^(0|[1-9]\d{0,15})$/.test(size))
    return { problem: 'its second line (the tree size) is not a number' };
  const rootBytes = Buffer.from(root ?? '', 'base64');
  if (rootBytes.length !== 32 || rootBytes.toString('base64') !== root)
    return { problem: 'its third line (the root hash) is not 32 bytes of base64' };
  const signatures: CheckpointNote['signatures'] = [];
  for (const line of signatureText.split('\n').filter((l) => l !== '')) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
    const bytes = match ? Buffer.from(match[2]!, 'base64') : Buffer.alloc(0);
    if (!match || bytes.length < 5) return { problem: `a signature line is not "— name base64": ${line.slice(0, 60)}` };
    signatures.push({ name: match[1]!, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) });
  }
  return { origin, size: Number(size), root: rootBytes, text, signatures };
}

/** Whether the log's key (named by the origin) signed the note. */
export function signedByLog(note: CheckpointNote, key: KeyObject): boolean {
  return noteSignedBy(note.text, note.signatures, note.origin, key);
}

/** The witness's cosignature on the note that holds: its name and time (seconds), or undefined. */
export function cosignedBy(note: CheckpointNote, key: KeyObject): { name: string; time: number } | undefined {
  for (const s of note.signatures) {
    if (s.signature.length !== 72 || !s.keyId.equals(noteKeyId(s.name, key, COSIGNATURE))) continue;
    const time = Number(s.signature.readBigUInt64BE(0));
    if (verify(null, cosignedMessage(note.text, time), key, s.signature.subarray(8))) return { name: s.name, time };
  }
  return undefined;
}
