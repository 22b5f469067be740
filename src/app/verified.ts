/**
 * Re-performance from the mirror, the jobs of `ledger-recon verify`: a past night (`--run N`), a
 * period's close (`--close 2026-10`), and a night under other settings (`--run N --set
 * KEY=VALUE`). Each returns what it tells: whether it is identical, its lines for a person, its
 * problems (one line each, for stderr) and its JSON record.
 */
import { reperformNight, reperformPeriod, whatIfNight } from './verify.js';
import { CHECKS } from '../checks/index.js';
import { BOUNDED_CHECKS } from '../findings/redraft.js';
import { type Mirror, openForReading } from '../db/mirror.js';
import { mirrorSealProblems, type SealsHeldTo } from '../evidence/held.js';
import { statSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { ConfigError, LedgerReconError, MirrorError } from '../errors.js';
import { type LogHeld, verifyFolder } from '../evidence/verify.js';
import { readCheckpoints } from '../evidence/verify-log.js';
import { keyId, readKey } from '../evidence/sign.js';
import { checkCardProof } from '../evidence/prove.js';
import { readRegularFile } from '../paths.js';
import { BooksNotMatchable, NotReperformable, type Reperformance, type WhatIfSettings } from '../evidence/reperform.js';
import { formatCents, groupThousands } from '../money.js';
import { BOOKS_SETTINGS, whatIfSettingsOf } from './settings.js';

/** What a re-performance reads: the mirror at `db`, and what its seals are held to. */
export interface VerifySettings {
  db: string;
  held?: SealsHeldTo | undefined;
}

/** What a re-performance tells. */
export interface Verified {
  /** Identical, and every seal held: exit 0; otherwise 1. */
  identical: boolean;
  /** For a person (stdout). */
  lines: string[];
  /** What is not identical, one `ledger-recon: …` line each (stderr). */
  problems: string[];
  record: Record<string, unknown>;
}

/** The mirror's seals held to themselves and to what verify was given (evidence/held.ts), one line per problem. */
async function sealsHeld(mirror: Mirror, settings: VerifySettings): Promise<string[]> {
  return (await mirrorSealProblems(mirror, settings.held ?? {})).problems;
}

const lined = (problems: readonly string[]): string[] => problems.map((problem) => `ledger-recon: ${problem}`);

/**
 * `ledger-recon verify --close 2026-10`: the period's newest close re-performed over the mirror as
 * it stood at the sync that close read (rebuilt from its history), its roll-forwards compared
 * with the digest its manifest sealed, figure by figure with its workpapers' JSON when beside it.
 */
export async function verifyClose(label: string, settings: VerifySettings): Promise<Verified> {
  const mirror = await openForReading(settings.db, 'sync', 'current');
  try {
    const seals = await sealsHeld(mirror, settings);
    const { manifest, sync, result, figures, identical: same } = await reperformPeriod(mirror, label);
    const identical = same && seals.length === 0;
    const record = {
      identical,
      seals,
      close: label,
      syncRunId: sync,
      cutOff: manifest.cutOff,
      closes: result.closes,
      figures,
    };
    if (identical)
      return {
        identical,
        lines: [
          `re-performed the close of ${label} (sync ${sync}, data as of ${manifest.cutOff}): identical: closing outstanding ${closingLiability(result.rollForwards)}; ${result.closes ? 'ties out' : 'DOES NOT TIE OUT'} as sealed`,
        ],
        problems: [],
        record,
      };
    const why = same
      ? `the close of ${label} re-performs as the mirror's copy of its manifest says, but that copy is not held by the log: not identical (${seals.length} ${seals.length === 1 ? 'problem' : 'problems'} above)`
      : `the close of ${label} does not re-perform: its roll-forwards, computed again over the mirror's history at sync ${sync}, are not the ones its manifest sealed: the mirror's past was changed, or a record's history is missing`;
    return { identical, lines: [], problems: lined([...seals, why]), record };
  } finally {
    await mirror.close();
  }
}

/** A close's roll-forward, as the re-performance gives it. */
type PeriodRollForward = Awaited<ReturnType<typeof reperformPeriod>>['result']['rollForwards'][number];

/** The closing liability per currency (its programs added up), as the close's page 1 states it: USD 2,700.36, EUR 30.30. */
function closingLiability(rollForwards: readonly PeriodRollForward[]): string {
  const byCurrency = new Map<string, number>();
  for (const r of rollForwards) byCurrency.set(r.currency, (byCurrency.get(r.currency) ?? 0) + r.closingFromFlowsCents);
  if (byCurrency.size === 0) return 'none (no card in the period)';
  return [...byCurrency]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, cents]) => `${currency} ${groupThousands(formatCents(cents))}`)
    .join(', ');
}

/** What the verify line says of the books' checks re-performed: over how many books rows, or that there were none. */
function booksReperformed({ booksFindings, booksRows }: Reperformance): string {
  if (booksFindings === undefined) return '';
  if (!booksRows) return ", the books' checks (no books had been imported by then: nothing to match)";
  return `, the ${booksFindings.toLocaleString('en-US')} findings of the books' checks over its ${booksRows.toLocaleString('en-US')} books rows matched again`;
}

/** Items as a sentence lists them: "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The --set values read. @throws ConfigError naming the one that cannot be. */
export function whatIfOf(pairs: readonly string[]): WhatIfSettings {
  try {
    return whatIfSettingsOf(pairs);
  } catch (error) {
    throw new ConfigError('--set', (error as Error).message);
  }
}

/** `verify --run N --set KEY=VALUE…`: what would change under other settings; the sealed night is untouched. */
export async function whatIfRun(checkRunId: number, pairs: readonly string[], db: string): Promise<Verified> {
  const settings = whatIfOf(pairs);
  const mirror = await openForReading(db, 'run', 'current');
  try {
    const result = await whatIfNight(mirror, checkRunId, settings).catch((error: unknown) => {
      if (error instanceof BooksNotMatchable) {
        const books = pairs.map((pair) => pair.split('=')[0]!).find((key) => BOOKS_SETTINGS.includes(key));
        throw new ConfigError('--set', `--set ${books}: ${error.message}, so it shapes nothing verify re-performs`);
      }
      throw error instanceof NotReperformable ? new MirrorError(error.message) : error;
    });
    const lines = [
      `what if check run ${checkRunId} had run with ${pairs.join(', ')} (the sealed night is unchanged):`,
      ...result.appear.map((f) => `  + ${f.code} ${f.record} (${f.severity}), fingerprint ${f.fingerprint}`),
      ...result.disappear.map((f) => `  - ${f.code} ${f.record} (${f.severity}), fingerprint ${f.fingerprint}`),
      ...(result.appear.length + result.disappear.length === 0 ? ['  the findings: the same'] : []),
      `  verdict ${result.verdict.stated} → ${result.verdict.whatIf}; exit code ${result.exitCode.stated} → ${result.exitCode.whatIf}`,
      ...(settings.materiality
        ? [
            `  material: ${result.material.length} open ${result.material.length === 1 ? 'finding' : 'findings'}${result.material.map((f) => `; ${f.code} ${f.currency} ${formatCents(f.stakeCents)}`).join('')}`,
          ]
        : []),
    ];
    return { identical: true, lines, problems: [], record: { whatIf: pairs, ...result } };
  } finally {
    await mirror.close();
  }
}

/**
 * `ledger-recon verify --run N`: re-performs check run N's ledger population from the mirror's
 * history and compares it with what its manifest sealed. One line per difference; exit 1 when
 * anything differs.
 */
export async function verifyNight(checkRunId: number, settings: VerifySettings): Promise<Verified> {
  const mirror = await openForReading(settings.db, 'run', 'current');
  try {
    const seals = await sealsHeld(mirror, settings);
    const result = await reperformNight(mirror, checkRunId);
    const p = result.population;
    const identical = result.differences.length === 0 && seals.length === 0;
    // A night older than the mirror's versions of its coupons and orders compares its wallets alone.
    const lists =
      result.listsKeptSince === undefined
        ? 'coupons, DP orders and wallets'
        : `DP wallets (its coupons and orders predate sync ${result.listsKeptSince}, from which the mirror keeps them as of each sync)`;
    // The checks over the lists, re-performed over them as of the night's sync where the mirror keeps them.
    const checked = `${result.listFindings === undefined ? '' : ', the findings of the checks over coupons, DP orders and wallets'}${result.booksKept ? ", the books' checks' findings over the books matched again" : ''}`;
    const record = {
      identical,
      seals,
      checkRunId,
      syncRunId: result.syncRunId,
      cutOff: result.cutOff,
      reperformed: `the gift card ledger population (counts, control totals per currency, Merkle root), the card checks' findings${checked}, their standing, the nightly roll-forward and the month to date; the ${lists} as of its sync (counts, totals, Merkle roots)`,
      cardFindings: result.cardFindings,
      ...(result.listFindings !== undefined ? { listFindings: result.listFindings } : {}),
      ...(result.booksFindings !== undefined ? { booksFindings: result.booksFindings } : {}),
      ...(result.booksRows !== undefined ? { booksRows: result.booksRows } : {}),
      population: p,
      rollForward: result.rollForward,
      differences: result.differences,
      rewrittenAfter: result.rewrittenAfter,
      rejectionsKept: result.rejectionsKept,
      confirmationKept: result.confirmationKept,
      booksKept: result.booksKept,
      ...(result.listsKeptSince !== undefined ? { listsKeptSince: result.listsKeptSince } : {}),
    };
    // The gift card query checks re-performed, and what is not yet, for this night.
    const queried = [
      ...BOUNDED_CHECKS,
      ...(result.confirmationKept ? [CHECKS.GC_IN_FLIGHT] : []),
      ...(result.rejectionsKept ? [CHECKS.SYNC_REJECTED_RECORD] : []),
    ].map((check) => check.code);
    const notYet = [
      ...(result.booksKept
        ? []
        : [
            "the findings of the books' checks (the night predates the mirror keeping which books its matching read, or its coupons and orders as of its sync, or its matching failed)",
          ]),
      ...(result.confirmationKept
        ? []
        : [
            "of GC_IN_FLIGHT (the night predates the mirror keeping its confirmation's answers, not only their count and digest: migration 0023)",
          ]),
      ...(result.rejectionsKept
        ? []
        : [
            'of SYNC_REJECTED_RECORD (its sync predates the quarantine keeping each sync that rejected a record: migration 0022)',
          ]),
    ];
    const rewritten =
      result.rewrittenAfter > 0
        ? `; ${result.rewrittenAfter} of its entries were rewritten by the service since, and read as they are now`
        : '';
    if (identical)
      return {
        identical,
        problems: [],
        record,
        lines: [
          `re-performed check run ${checkRunId} (sync ${result.syncRunId}, data as of ${result.cutOff}): identical: ${p.cards.toLocaleString('en-US')} cards, ${p.entries.toLocaleString('en-US')} entries, Merkle root ${p.merkleRoot}${rewritten}`,
          `re-performed: the gift card ledger population, the card checks' ${result.cardFindings.toLocaleString('en-US')} findings (with ${listed(queried.map((code) => `${code}'s`))})${result.listFindings === undefined ? '' : `, the ${result.listFindings.toLocaleString('en-US')} findings of the checks over coupons, DP orders and wallets`}${booksReperformed(result)} and their standing${result.confirmationKept ? ", the confirmation's answers judged again" : ''}, the nightly roll-forward, the month to date and the ${lists} as of its sync${notYet.length === 0 ? '' : `; not yet: ${listed(notYet)}`}`,
        ],
      };
    const { differences } = result;
    const why =
      differences.length === 0
        ? [
            `check run ${checkRunId} re-performs as the mirror's copy of its manifest says, but that copy is not held by the log: not identical (${seals.length} ${seals.length === 1 ? 'problem' : 'problems'} above)`,
          ]
        : [
            ...differences.map((difference) => `check run ${checkRunId}: ${difference}`),
            `check run ${checkRunId} does not re-perform: its ledger, as the mirror's history rebuilds it, does not give what the night sealed and stated (${differences.length} ${differences.length === 1 ? 'figure' : 'figures'})${rewritten}: the mirror's past was changed, or a record's history is missing`,
          ];
    return { identical, lines: [], problems: lined([...seals, ...why]), record };
  } finally {
    await mirror.close();
  }
}

/** `n` things, as a person counts them: 1 manifest, 2 manifests, 1,204 sealed files. */
function counted(n: number, thing: string): string {
  return `${n.toLocaleString('en-US')} ${thing}${n === 1 ? '' : 's'}`;
}

/**
 * The job of `ledger-recon verify [--dir FOLDER]`: offline, with no mirror and no services, every
 * evidence manifest in the folder, the files each names and the chain between them.
 * @throws ConfigError when `dir` is not a folder.
 */
export async function verifyFolderAt(dir: string, publicKey?: KeyObject, held?: LogHeld): Promise<Verified> {
  let folder = false;
  try {
    folder = statSync(dir).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder)
    throw new ConfigError(
      '--dir',
      `--dir ${dir}: not a folder: give the folder that holds the outputs and their …-evidence.json`,
    );
  const result = await verifyFolder(dir, publicKey, held);
  const identical = result.manifests > 0 && result.problems.length === 0;
  const record = {
    ok: identical,
    dir,
    manifests: result.manifests,
    files: result.files,
    signed: result.signed,
    problems: result.problems,
    ...(result.log ? { log: result.log } : {}),
    revisions: result.revisions,
  };
  if (result.manifests === 0 && result.problems.length === 0)
    return {
      identical,
      lines: [],
      problems: [`ledger-recon: ${dir} holds no evidence manifest (…-evidence.json): nothing to verify`],
      record,
    };
  if (result.problems.length > 0)
    return {
      identical,
      lines: [],
      problems: lined([
        ...result.problems,
        `${dir}: ${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'} in ${counted(result.manifests, 'manifest')} and ${counted(result.files, 'sealed file')}`,
      ]),
      record,
    };
  const log = result.log;
  return {
    identical,
    problems: [],
    record,
    lines: [
      `verified ${dir}: ${counted(result.manifests, 'manifest')}, ${counted(result.files, 'sealed file')}, one unbroken chain per mirror${publicKey ? `, every manifest signed by the key ${keyId(publicKey).slice(0, 16)}…` : ''}${log ? `, the log's ${counted(log.size, 'seal')} all in the checkpoint${log.consistent > 0 ? `, which extends the ${counted(log.consistent, 'earlier checkpoint')}` : ''}${held?.witnessKey ? ', cosigned by the witness' : ''}` : ''}`,
      // Written again, never overwritten: each revision of a report or close, in the chain's order.
      ...result.revisions.map(
        ({ subject, manifests }) => `  ${subject} sealed ${manifests.length} times: ${manifests.join(', then ')}`,
      ),
    ],
  };
}

/** The largest proof read: a card's entries and two paths of hashes. */
const MAX_PROOF_BYTES = 16 * 1024 * 1024;

/**
 * The job of `verify --proof FILE --checkpoint FILE`: a card's proof checked against the newest
 * checkpoint the auditor holds, offline.
 * @throws ConfigError when the file is not JSON.
 */
export function verifyProofAt(path: string, held: LogHeld, publicKey?: KeyObject): Verified {
  let value: unknown;
  try {
    value = JSON.parse(readRegularFile(path, '--proof', MAX_PROOF_BYTES));
  } catch (error) {
    if (error instanceof LedgerReconError) throw error;
    throw new ConfigError('--proof', `--proof ${path}: not JSON: give the file \`ledger-recon prove\` wrote`);
  }
  const checkpoint = held.checkpoints.at(-1)!;
  const checked = checkCardProof(value, checkpoint.note, {
    ...(publicKey ? { logKey: publicKey } : {}),
    ...(held.witnessKey ? { witnessKey: held.witnessKey } : {}),
  });
  const identical = checked.problems.length === 0;
  const record = { ok: identical, proof: path, checkpoint: checkpoint.file, ...checked };
  if (!identical || !checked.card) return { identical: false, lines: [], problems: lined(checked.problems), record };
  const card = checked.card;
  return {
    identical,
    problems: [],
    record,
    lines: [
      `proven: gift card ${card.giftCardId} (${card.status}, ${card.remaining === null ? 'balance off the cent' : `${card.currency} ${card.remaining}`}, ${card.entries.toLocaleString('en-US')} ${card.entries === 1 ? 'entry' : 'entries'}) as ${checked.subject} sealed it at ${checked.cutOff}, in the log's checkpoint of ${counted(checkpoint.note.size, 'seal')}${publicKey ? ", signed by the log's key" : ''}${held.witnessKey ? ', cosigned by the witness' : ''}`,
    ],
  };
}

/** The checkpoints given (`--checkpoint`, repeatable), smallest first, and the witness's key. @throws ConfigError naming the flag. */
export function heldOf(
  checkpointPaths: readonly string[] | undefined,
  witnessKeyPath: string | undefined,
): LogHeld | undefined {
  const witnessKey = witnessKeyPath !== undefined ? readKey(witnessKeyPath, '--witness-key', 'public') : undefined;
  if (!checkpointPaths?.length) {
    if (witnessKey)
      throw new ConfigError('--witness-key', '--witness-key needs --checkpoint FILE: the checkpoint it cosigned');
    return undefined;
  }
  const checkpoints = checkpointPaths.flatMap((path) => {
    const read = readCheckpoints(path);
    if ('problem' in read) throw new ConfigError('--checkpoint', read.problem);
    return read;
  });
  checkpoints.sort((a, b) => a.note.size - b.note.size);
  return { checkpoints, ...(witnessKey ? { witnessKey } : {}) };
}
