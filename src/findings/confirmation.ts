/**
 * What the confirmation pass means, decided from what it re-read (pure). Per card: confirmed
 * (it reads as the sync read it), moved (another balance or status; a new version alone is not: its
 * time-sensitive breaks are in flight), or not re-readable. Per listed entry: a read by ID
 * that answers 404 or other figures under the same identity is the service disagreeing with
 * itself, which is a break (GC_LEDGER_REWRITTEN), never "in flight".
 */
import { type Drafted, CHECKS } from '../checks/index.js';
import { cardRef, entryRef } from '../checks/refs.js';
import type { EntryFigures, EntryReread, RereadRequest, Rereads } from '../sync/confirm.js';
import { sha256Hex } from '../hash.js';

export type CardVerdict =
  | { verdict: 'confirmed' }
  | { verdict: 'moved'; detail: string }
  | { verdict: 'not re-readable'; detail: string };

export interface Confirmation {
  cards: ReadonlyMap<string, CardVerdict>;
  /** Breaks the re-read itself revealed. */
  drafts: Drafted[];
}

/** The cards behind every gift card error, and the entries those errors name. */
export function confirmationRequest(drafted: readonly Drafted[]): RereadRequest {
  const cards = new Set<string>();
  const entries = new Set<string>();
  for (const { check, draft } of drafted) {
    if (check.severity !== 'error' || !check.code.startsWith('GC_') || draft.giftCardId === undefined) continue;
    cards.add(draft.giftCardId);
    for (const record of draft.records) if (record.type === 'giftCardTransaction') entries.add(record.id);
  }
  return { cards: [...cards].sort(), entries: [...entries].sort() };
}

/** The confirmation's answers as one text (in ID order, each object built in one order: one text for one set of answers), digested. */
export function rereadsDigest(rereadsJson: string): string {
  return sha256Hex(rereadsJson);
}

/** Decides each re-read card's verdict and the breaks the re-read entries reveal. */
export function judge(rereads: Rereads): Confirmation {
  const cards = new Map<string, CardVerdict>();
  for (const { giftCardId, mirrored, read } of rereads.cards) {
    if (read.kind === 'unreadable')
      cards.set(giftCardId, { verdict: 'not re-readable', detail: `the card did not read back by ID: ${read.reason}` });
    else if (read.kind === 'not found')
      cards.set(
        giftCardId,
        mirrored
          ? { verdict: 'not re-readable', detail: 'reading the card by ID answers 404' }
          : { verdict: 'confirmed' },
      );
    else if (!mirrored)
      cards.set(giftCardId, { verdict: 'moved', detail: 'the card reads by ID now, though the sync did not find it' });
    else {
      const now = read.record;
      // Money or status: a new version alone (a touch that moved nothing) is not a move.
      const moved = now.remainingCents !== mirrored.remainingCents || now.status !== mirrored.status;
      cards.set(
        giftCardId,
        moved
          ? {
              verdict: 'moved',
              detail: `the card reads version ${now.version}, ${now.status}, remaining ${cents(now.remainingCents)} (the sync read version ${mirrored.version}, ${mirrored.status}, ${cents(mirrored.remainingCents)})`,
            }
          : { verdict: 'confirmed' },
      );
    }
  }
  return { cards, drafts: rereads.entries.flatMap(disagreement) };
}

const cents = (value: number | null): string => (value === null ? 'off the cent' : `${value} cents`);

const FIELDS: readonly (keyof EntryFigures)[] = [
  'giftCardId',
  'type',
  'amountCents',
  'beforeCents',
  'afterCents',
  'createdAtMs',
];

/** A listed entry that reads otherwise by ID: the service disagrees with itself. */
function disagreement({ transactionId, mirrored, read }: EntryReread): Drafted[] {
  // An entry the list no longer returns is GC_LEDGER_REWRITTEN's already; a 404 confirms it.
  if (!mirrored || mirrored.vanishedSyncRunId !== null || read.kind === 'unreadable') return [];
  const card = mirrored.giftCardId;
  const base = {
    entityType: 'giftCardTransaction' as const,
    entityId: transactionId,
    giftCardId: card,
    records: [cardRef(card), entryRef(transactionId)],
  };
  if (read.kind === 'not found') {
    return [
      {
        check: CHECKS.GC_LEDGER_REWRITTEN,
        draft: {
          ...base,
          identity: ['read by ID', 'not found'],
          message: `entry ${transactionId} of card ${card} is in the service's ledger list, but reading it by ID answers 404 — the service disagrees with itself; ask it which is true`,
        },
      },
    ];
  }
  const differing = FIELDS.filter((field) => read.record[field] !== mirrored[field]);
  if (differing.length === 0) return [];
  return [
    {
      check: CHECKS.GC_LEDGER_REWRITTEN,
      draft: {
        ...base,
        identity: ['read by ID', 'differs'],
        message: `entry ${transactionId} of card ${card} reads by ID with other figures than the ledger list gave (${differing.join(', ')}) — the service disagrees with itself about an immutable entry; both answers are evidence`,
      },
    },
  ];
}
