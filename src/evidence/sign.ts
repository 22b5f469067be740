/**
 * Signing a manifest (optional, `--sign-key FILE`): an in-toto Statement whose subjects are the
 * sealed output files with their SHA-256 and whose predicate is the manifest, in a DSSE envelope
 * signed with an Ed25519 key (Node's crypto), written beside the manifest as
 * `…-evidence.dsse.json`. `verify --public-key FILE` checks it. The private key is read from its
 * file when a seal is made and goes nowhere else: not the mirror, a log or a report.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { oneLine } from '../log.js';
import { readRegularFile } from '../paths.js';
import { canonicalJson } from './canonical.js';
import { sha256Hex } from '../hash.js';
import type { SealedManifest } from './manifest.js';

/** DSSE's payload type of an in-toto Statement. */
export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** What the predicate is: a ledger-recon evidence manifest (its `format` names the version). */
export const PREDICATE_TYPE = 'https://ledger-recon.dev/evidence-manifest/v1';

/** A key file is a few hundred bytes of PEM. */
const MAX_KEY_BYTES = 16 * 1024;

export interface DsseEnvelope {
  payloadType: string;
  /** The Statement's JSON, base64. */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

interface Statement {
  _type: string;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: SealedManifest;
}

/** DSSE's pre-authentication encoding: what is signed, so the type cannot be swapped. */
function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${payload.length} `, 'utf8'),
    payload,
  ]);
}

/** A public key's ID: the SHA-256 of its DER (SubjectPublicKeyInfo), as `verify` prints it. */
export function keyId(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' }));
}

/** Reads an Ed25519 key (PEM) from `path`. @throws ConfigError naming `flag` when it is not one. */
export function readKey(path: string, flag: string, kind: 'private' | 'public'): KeyObject {
  // A key given where its path belongs (LEDGER_RECON_SIGN_KEY holding the PEM) is never echoed back.
  if (path.includes('-----BEGIN'))
    throw new ConfigError(
      flag,
      `${flag}${flag === '--sign-key' ? ' (or LEDGER_RECON_SIGN_KEY)' : ''} holds a key, not a path: put the key in a file${kind === 'private' ? ' only you can read (chmod 600)' : ''} and give its path (the value is not shown)`,
    );
  const pem = readRegularFile(path, flag, MAX_KEY_BYTES);
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch {
    throw new ConfigError(
      flag,
      `${flag} ${path}: not an Ed25519 ${kind} key in PEM: make one with \`openssl genpkey -algorithm ed25519 -out signing.pem\`${kind === 'public' ? ' and give its public half (`openssl pkey -in signing.pem -pubout`)' : ''}`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new ConfigError(
      flag,
      `${flag} ${path}: a ${key.asymmetricKeyType} key; the evidence is signed with Ed25519 keys`,
    );
  return key;
}

/**
 * The private key that signs the evidence (`--sign-key`), read from its path; a key other
 * users can read is no longer the signer's alone: `warn` is told so, with the fix.
 * @throws ConfigError as {@link readKey}.
 */
export function readSigningKey(path: string, warn: (text: string) => void): KeyObject {
  const key = readKey(path, '--sign-key', 'private');
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0)
    warn(
      `warning: --sign-key ${oneLine(path)} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}), who could sign evidence as you: chmod 600 ${oneLine(path)}`,
    );
  return key;
}

/** The manifest signed: an in-toto Statement in a DSSE envelope. */
export function signManifest(manifest: SealedManifest, privateKey: KeyObject): DsseEnvelope {
  const statement: Statement = {
    _type: STATEMENT_TYPE,
    subject: manifest.outputs.map((output) => ({ name: output.file, digest: { sha256: output.sha256 } })),
    predicateType: PREDICATE_TYPE,
    predicate: manifest,
  };
  const payload = Buffer.from(canonicalJson(statement), 'utf8');
  return {
    payloadType: PAYLOAD_TYPE,
    payload: payload.toString('base64'),
    signatures: [
      { keyid: keyId(privateKey), sig: sign(null, pae(PAYLOAD_TYPE, payload), privateKey).toString('base64') },
    ],
  };
}

/**
 * What an envelope says of the manifest beside it, checked without a key: whether the manifest
 * it carries is that one. A manifest sealed again after it was signed (its envelope left beside
 * it) is named, with or without the public key. @returns the problem, or null.
 */
export function envelopeDisagrees(envelope: unknown, manifest: SealedManifest): string | null {
  const e = envelope as Partial<DsseEnvelope> | null;
  if (!e || e.payloadType !== PAYLOAD_TYPE || typeof e.payload !== 'string')
    return 'not a DSSE envelope of an in-toto Statement';
  let statement: Statement;
  try {
    statement = JSON.parse(Buffer.from(e.payload, 'base64').toString('utf8')) as Statement;
  } catch {
    return 'its payload is not JSON';
  }
  if (statement._type !== STATEMENT_TYPE || statement.predicateType !== PREDICATE_TYPE)
    return 'its Statement is not of a ledger-recon evidence manifest';
  if (canonicalJson(statement.predicate) !== canonicalJson(manifest))
    return 'it signs another manifest than the one beside it: the manifest was sealed again after it was signed, or the envelope is another';
  return null;
}

/**
 * Whether `envelope` is `manifest` signed by `publicKey`: a signature by that key over the
 * payload, a Statement whose predicate is this manifest and whose subjects are its outputs.
 * @returns why not, or null when it holds.
 */
export function envelopeProblem(envelope: unknown, manifest: SealedManifest, publicKey: KeyObject): string | null {
  const e = envelope as Partial<DsseEnvelope> | null;
  if (!e || e.payloadType !== PAYLOAD_TYPE || typeof e.payload !== 'string' || !Array.isArray(e.signatures))
    return 'not a DSSE envelope of an in-toto Statement';
  const payload = Buffer.from(e.payload, 'base64');
  const id = keyId(publicKey);
  const signed = e.signatures.some(
    (s) =>
      typeof s?.sig === 'string' &&
      (s.keyid === undefined || s.keyid === id) &&
      verify(null, pae(PAYLOAD_TYPE, payload), publicKey, Buffer.from(s.sig, 'base64')),
  );
  if (!signed) return `no signature by the key ${id.slice(0, 16)}… holds: signed by another key, or changed since`;
  const disagrees = envelopeDisagrees(envelope, manifest);
  if (disagrees !== null) return disagrees;
  const statement = JSON.parse(payload.toString('utf8')) as Statement;
  const subjects = canonicalJson(statement.subject);
  const outputs = canonicalJson(manifest.outputs.map((o) => ({ name: o.file, digest: { sha256: o.sha256 } })));
  if (subjects !== outputs) return "its subjects are not the manifest's outputs";
  return null;
}
