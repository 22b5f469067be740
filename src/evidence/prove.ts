/**
 * Proof of one card, for sampling (#62, point 5): auditors test by sampling. `ledger-recon prove
 * --run N --card ID` writes a small JSON file holding the card's sealed state at the night's
 * cut-off (its record and every entry, the text the population's leaf hashes), its inclusion
 * proof in the night's population root, the night's manifest (which states that root), and the
 * manifest's inclusion proof in the log. `verify --proof FILE --checkpoint FILE` checks it with
 * no mirror and no services: the leaf gives the population root, the manifest its own digest and
 * the checkpoint's root.
 */
import { findingsStore } from '../findings/store.js';
import type { Mirror } from '../db/mirror.js';
import { canonicalCard } from '../ledger/population.js';
import { walkCardLedgersAsOf } from '../ledger/walk.js';
import { formatCents } from '../money.js';
import { type CheckpointNote, cosignedBy, signedByLog } from './checkpoint.js';
import type { KeyObject } from 'node:crypto';
import { logOrigin, manifestLeaf } from './log.js';
import { manifestDigest, type SealedManifest } from './manifest.js';
import { NotReperformable, refuseRebound } from './reperform.js';
import { EvidenceStore } from './store.js';
import { entryHash, inclusionProof, treeHash, verifyInclusion } from './tlog.js';

export const PROOF_FORMAT = 'ledger-recon-card-proof/1';

export interface CardProof {
  format: typeof PROOF_FORMAT;
  /** The card as the night sealed it: the canonical text of its record and entries (its leaf's bytes). */
  card: { giftCardId: string; canonical: string };
  /** Its place among the night's cards (in ID order) and the path to the population's root. */
  population: { index: number; size: number; proof: string[] };
  /** The night's manifest, whole: it states the population's root and count. */
  manifest: SealedManifest;
  /** The manifest's place in the log and the path to the log's root at `size` seals. */
  log: { origin: string; index: number; size: number; proof: string[] };
}

/** What a card's canonical text says, as an auditor reads it (population.ts's canonicalCard, field by field). */
export interface CardStated {
  giftCardId: string;
  status: string;
  currency: string;
  /** The remaining balance the service stated, as a decimal; null when off the cent. */
  remaining: string | null;
  entries: number;
}

/** Reads a canonical card text (population.ts's canonicalCard) back into what it states. */
export function cardStated(canonical: string): CardStated {
  const [giftCardId, , status, currency, , , , remainingCents, , entries] = JSON.parse(canonical) as unknown[];
  return {
    giftCardId: String(giftCardId),
    status: String(status),
    currency: String(currency),
    remaining: typeof remainingCents === 'number' ? formatCents(remainingCents) : null,
    entries: Array.isArray(entries) ? entries.length : 0,
  };
}

/**
 * The proof that card `giftCardId` is, as it stood, in check run `checkRunId`'s sealed
 * population, and that the night's manifest is in the log at `logSize` seals (default: all the
 * mirror holds). @throws NotReperformable when the mirror cannot give it (no such run or card,
 * a rebound mirror, a past that no longer gives the sealed root).
 */
export async function proveCard(
  mirror: Mirror,
  checkRunId: number,
  giftCardId: string,
  logSize?: number,
): Promise<CardProof> {
  const run = await findingsStore(mirror).history.completedRun(checkRunId);
  if (!run || run.syncRunId === null)
    throw new NotReperformable(
      `check run ${checkRunId} is not a completed run of this mirror: see \`ledger-recon history\``,
    );
  await refuseRebound(mirror, `check run ${checkRunId}`, run.syncRunId);
  const store = new EvidenceStore(mirror);
  const seals = await store.all();
  const sealedAt = seals.findLastIndex((row) => row.subject === `check run ${checkRunId}`);
  if (sealedAt === -1) throw new NotReperformable(`check run ${checkRunId} was never sealed: write its report first`);
  const size = logSize ?? seals.length;
  if (size <= sealedAt || size > seals.length)
    throw new NotReperformable(
      `the log at ${size} seals does not hold check run ${checkRunId}'s seal (place ${sealedAt + 1} of ${seals.length})`,
    );
  const manifest = JSON.parse(seals[sealedAt]!.manifestJson) as SealedManifest;
  const leaves: Buffer[] = [];
  let index = -1;
  let canonical = '';
  for await (const batch of walkCardLedgersAsOf(mirror, run.syncRunId))
    for (const walked of batch) {
      const text = canonicalCard(walked);
      if (walked.card.giftCardId === giftCardId) {
        index = leaves.length;
        canonical = text;
      }
      leaves.push(entryHash(text));
    }
  if (index === -1)
    throw new NotReperformable(`gift card ${giftCardId} is not among check run ${checkRunId}'s ${leaves.length} cards`);
  const root = treeHash(leaves).toString('hex');
  if (root !== manifest.population.giftCards?.merkleRoot)
    throw new NotReperformable(
      `check run ${checkRunId}'s cards, as the mirror's history rebuilds them, no longer give the root its manifest sealed: the mirror's past was changed (\`ledger-recon verify --run ${checkRunId}\` names how)`,
    );
  const logLeaves = seals.slice(0, size).map((row) => entryHash(row.manifestJson));
  return {
    format: PROOF_FORMAT,
    card: { giftCardId, canonical },
    population: { index, size: leaves.length, proof: inclusionProof(leaves, index).map((h) => h.toString('hex')) },
    manifest,
    log: {
      origin: logOrigin(seals[0]!.digest),
      index: sealedAt,
      size,
      proof: inclusionProof(logLeaves, sealedAt).map((h) => h.toString('hex')),
    },
  };
}

/** What a proof showed: the card as sealed and the night, or the problems, one line each. */
export interface ProofCheck {
  problems: string[];
  card?: CardStated;
  subject?: string;
  cutOff?: string;
}

const hashes = (hex: unknown): Buffer[] | null =>
  Array.isArray(hex) && hex.every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h))
    ? hex.map((h: string) => Buffer.from(h, 'hex'))
    : null;

/**
 * Checks a card's proof against a checkpoint the auditor holds (and the log's and a witness's
 * keys when given), with nothing else: no mirror, no services.
 */
export function checkCardProof(
  value: unknown,
  checkpoint: CheckpointNote,
  keys: { logKey?: KeyObject; witnessKey?: KeyObject } = {},
): ProofCheck {
  const proof = value as Partial<CardProof> | null;
  if (!proof || proof.format !== PROOF_FORMAT || !proof.card || !proof.population || !proof.manifest || !proof.log)
    return { problems: [`not a card proof of this tool (${PROOF_FORMAT})`] };
  const problems: string[] = [];
  const { card, population, manifest, log } = proof;
  const populationPath = hashes(population.proof);
  const logPath = hashes(log.proof);
  if (!populationPath || !logPath || typeof card.canonical !== 'string')
    return { problems: ['the proof is malformed: its paths are not SHA-256 hashes in hex'] };
  let stated: CardStated;
  try {
    stated = cardStated(card.canonical);
  } catch {
    return { problems: ["the card's sealed state is not a card's canonical text"] };
  }
  if (stated.giftCardId !== card.giftCardId)
    problems.push(`the sealed state is of card ${stated.giftCardId}, not ${card.giftCardId}`);
  if (manifestDigest(manifest) !== manifest.digest)
    problems.push("the night's manifest was changed: its contents no longer give its digest");
  const sealedRoot = manifest.population?.giftCards?.merkleRoot;
  if (
    !sealedRoot ||
    population.size !== manifest.population?.giftCards?.cards ||
    !verifyInclusion(
      entryHash(card.canonical),
      population.index,
      population.size,
      populationPath,
      Buffer.from(sealedRoot, 'hex'),
    )
  )
    problems.push(
      `card ${card.giftCardId}: its sealed state is not in the population of ${manifest.subject} (its leaf and path do not give the root the manifest sealed): the card's figures were changed, or the proof is of another night`,
    );
  if (log.origin !== checkpoint.origin)
    problems.push(`the proof is of the log ${log.origin}, the checkpoint of ${checkpoint.origin}`);
  else if (log.size !== checkpoint.size)
    problems.push(
      `the proof is of the log at ${log.size} seals, the checkpoint at ${checkpoint.size}: make the proof against this checkpoint (prove --checkpoint FILE)`,
    );
  else if (!verifyInclusion(manifestLeaf(manifest), log.index, log.size, logPath, checkpoint.root))
    problems.push(
      `${manifest.subject}'s manifest is not seal ${log.index + 1} of the log in the checkpoint: the manifest was sealed again or replaced`,
    );
  if (keys.logKey && !signedByLog(checkpoint, keys.logKey))
    problems.push("the checkpoint is not signed by the log's key (--public-key)");
  if (keys.witnessKey && !cosignedBy(checkpoint, keys.witnessKey))
    problems.push("the checkpoint is not cosigned by the witness's key (--witness-key)");
  return { problems, card: stated, subject: manifest.subject, cutOff: manifest.cutOff };
}
