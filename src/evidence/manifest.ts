/**
 * The evidence manifest of a night or a close (docs/evidence.md): what tool and settings made it,
 * the population it was computed from, digests of its findings and figures, each output file's
 * SHA-256, and the previous manifest's digest, so the mirror's nights and closes form one chain.
 * Written beside the outputs (`…-evidence.json`) and kept in the mirror.
 */
import { basename } from 'node:path';
import type { Mirror } from '../db/mirror.js';
import type { CheckRunRow, FindingsStore } from '../findings/store.js';
import { summaryOf } from '../findings/store.js';
import type { ConfirmationReads } from '../findings/summary.js';
import { leafHash, MerkleBuilder } from '../ledger/merkle.js';
import type { LedgerPopulation } from '../ledger/population.js';
import { canonicalJson, fileDigest } from './canonical.js';
import { sha256Hex } from '../hash.js';
import { EvidenceStore, type RecordRow } from './store.js';
import { toolIdentity, type ToolIdentity } from './tool.js';

export const MANIFEST_FORMAT = 'ledger-recon-evidence/1';

/** A resource other than the ledger: its records in ID order, their Merkle root, and its controls per currency. */
export interface RecordsPopulation {
  records: number;
  merkleRoot: string;
  /** Σ the records' amount per currency (order totals, wallet balances), in cents; none for coupons. */
  totalsCents: Record<string, number>;
}

export interface OutputFile {
  /** Its name, beside the manifest. */
  file: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  kind: 'run' | 'close';
  /** What it seals: `check run 3`, `close 2026-10`. */
  subject: string;
  /** Its place in the mirror's chain, from 1, and the digest of the manifest before it (null for the first). */
  sequence: number;
  previous: string | null;
  /** The mirror's identity: SHA-256 of whom it reads (services and client IDs), one chain per mirror. */
  mirror: string;
  tool: ToolIdentity;
  /** The settings that shape the figures (never a secret). */
  settings: Record<string, unknown>;
  /** Every figure is as of this instant (UTC). */
  cutOff: string;
  merchantId: string | null;
  population: {
    giftCards?: LedgerPopulation;
    coupons?: RecordsPopulation;
    dpOrders?: RecordsPopulation;
    dpWallets?: RecordsPopulation;
  };
  /** What the confirmation pass re-read by ID, and the SHA-256 of its answers (a run with one). */
  confirmation?: ConfirmationReads;
  /** The books files the night's matching read: the newest version of each by then (SHA-256). */
  books: { kind: string; source: string; sha256: string }[];
  /** SHA-256 of the canonical JSON of the findings (by fingerprint) and of the figures. */
  digests: Record<string, string>;
  outputs: OutputFile[];
}

/** A manifest as written: its fields and the SHA-256 of their canonical JSON. */
export type SealedManifest = Manifest & { digest: string };

/** The digest of a manifest: SHA-256 of its canonical JSON, its own digest aside. */
export function manifestDigest(manifest: Manifest | SealedManifest): string {
  const { digest: _digest, ...fields } = manifest as SealedManifest;
  return sha256Hex(canonicalJson(fields));
}

export async function recordsPopulation(batches: AsyncIterable<RecordRow[]>): Promise<RecordsPopulation> {
  const merkle = new MerkleBuilder();
  const totals = new Map<string, number>();
  for await (const batch of batches)
    for (const row of batch) {
      merkle.add(leafHash(`${row.id}\n${row.raw}`));
      if (row.currency !== null && row.cents !== null)
        totals.set(row.currency, (totals.get(row.currency) ?? 0) + Number(row.cents));
    }
  const currencies = [...totals.keys()].sort();
  return {
    records: merkle.leaves,
    merkleRoot: merkle.root(),
    totalsCents: Object.fromEntries(currencies.map((c) => [c, totals.get(c)!])),
  };
}

/** What every manifest of a mirror shares: its place in the chain, its mirror, its tool. */
async function chained(
  mirror: Mirror,
  kind: Manifest['kind'],
  subject: string,
): Promise<Pick<Manifest, 'format' | 'kind' | 'subject' | 'sequence' | 'previous' | 'mirror' | 'tool'>> {
  const store = new EvidenceStore(mirror);
  const newest = await store.newest();
  return {
    format: MANIFEST_FORMAT,
    kind,
    subject,
    sequence: (newest?.sequence ?? 0) + 1,
    previous: newest?.digest ?? null,
    mirror: sha256Hex(canonicalJson((await store.identity()) ?? [])),
    tool: toolIdentity(),
  };
}

/** Each output's name, size and SHA-256. */
export async function outputsOf(paths: readonly string[]): Promise<OutputFile[]> {
  const outputs: OutputFile[] = [];
  for (const path of paths) outputs.push({ file: basename(path), ...(await fileDigest(path)) });
  return outputs;
}

/**
 * The manifest as sealed into the mirror's chain: its place and digest. A manifest equal to one
 * already in the chain but for its place (the same outputs of the same run written again) is
 * that one, not a new link (`stored` says so). Nothing is written: the manifest's file is
 * written and synced first, then {@link appendSeal} links it, so a seal whose file could not be
 * written leaves no place in the chain that no file fills.
 */
export async function sealedOf(
  mirror: Mirror,
  manifest: Manifest,
): Promise<{ sealed: SealedManifest; stored: boolean }> {
  const store = new EvidenceStore(mirror);
  for (const stored of await store.bySubject(manifest.subject)) {
    const before = JSON.parse(stored.manifestJson) as SealedManifest;
    const again: Manifest = { ...manifest, sequence: before.sequence, previous: before.previous };
    if (manifestDigest(again) === before.digest) return { sealed: before, stored: true };
  }
  return { sealed: { ...manifest, digest: manifestDigest(manifest) }, stored: false };
}

/** Links a sealed manifest (its file written) into the mirror's chain: the log's next leaf. */
export async function appendSeal(mirror: Mirror, sealed: SealedManifest, nowMs: number): Promise<void> {
  await new EvidenceStore(mirror).append(
    {
      sequence: sealed.sequence,
      kind: sealed.kind,
      subject: sealed.subject,
      digest: sealed.digest,
      previousDigest: sealed.previous,
      manifestJson: canonicalJson(sealed),
    },
    nowMs,
  );
}

/** The manifest of a check run whose outputs are `paths`. */
export async function runManifest(
  mirror: Mirror,
  findings: FindingsStore,
  run: CheckRunRow,
  paths: readonly string[],
): Promise<Manifest> {
  const summary = summaryOf(run);
  const store = new EvidenceStore(mirror);
  const { findings: found } = await findings.findingsAndHeld(run);
  const canonicalFindings = found
    .map((f) => ({
      fingerprint: f.fingerprint,
      code: f.code,
      severity: f.severity,
      state: f.state,
      entity: `${f.entityType} ${f.entityId}`,
      currency: f.currency,
      unit: f.unit,
      expected: f.expected,
      actual: f.actual,
      stakeCents: f.stakeCents,
      acceptance: f.acceptance?.note ?? null,
    }))
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
  return {
    ...(await chained(mirror, 'run', `check run ${run.checkRunId}`)),
    settings: JSON.parse(run.optionsJson) as Record<string, unknown>,
    cutOff: summary.asOf,
    merchantId: summary.merchantId,
    population: {
      ...(summary.population ? { giftCards: summary.population } : {}),
      coupons: await recordsPopulation(store.coupons(summary.syncRunId)),
      dpOrders: await recordsPopulation(store.orders(summary.syncRunId)),
      dpWallets: await recordsPopulation(store.wallets(summary.syncRunId)),
    },
    ...(summary.confirmation ? { confirmation: summary.confirmation } : {}),
    books: await store.booksFiles(summary.booksThroughFileId),
    digests: {
      findings: sha256Hex(canonicalJson(canonicalFindings)),
      rollForward: sha256Hex(canonicalJson(summary.rollForward)),
      ...(summary.monthToDate ? { monthToDate: sha256Hex(canonicalJson(summary.monthToDate)) } : {}),
    },
    outputs: await outputsOf(paths),
  };
}

/** The manifest of a period close whose outputs are `paths`. */
export async function closeManifest(
  mirror: Mirror,
  close: {
    label: string;
    asOfMs: number;
    merchantId: string | null;
    settings: Record<string, unknown>;
    figures: unknown;
    /** The liability workpaper's figures (report/liability-sheets.ts liabilityJson): sealed as a digest of their own. */
    liability?: unknown;
  },
  paths: readonly string[],
): Promise<Manifest> {
  return {
    ...(await chained(mirror, 'close', `close ${close.label}`)),
    settings: close.settings,
    cutOff: new Date(close.asOfMs).toISOString(),
    merchantId: close.merchantId,
    population: {},
    books: [],
    digests: {
      rollForward: sha256Hex(canonicalJson(close.figures)),
      ...(close.liability !== undefined ? { liability: sha256Hex(canonicalJson(close.liability)) } : {}),
    },
    outputs: await outputsOf(paths),
  };
}
