/**
 * The population's leaves kept from the night before (#62, point 6): the evidence's Merkle tree
 * hashes every card with its entries (population.ts), about a second per 100,000 cards. A card
 * that has not moved since keeps its leaf: its own figures and its number of entries are what
 * its kept `stamp` says, and none of its entries was mirrored (`firstSyncRunId`) or rewritten
 * or found vanished (`gift_card_transaction_versions`) after the sync its leaf was made at.
 * Only the others are hashed again. The kept leaves are read in the walk's order beside it
 * (cards by ID, compared as the walk orders them), a batch at a time.
 */
import type { Mirror } from '../db/mirror.js';
import { leafHash } from './merkle.js';
import { type KeptLeaf, LedgerStore } from './store.js';
import { canonicalCard, cardFigures } from './population.js';
import type { CardLedger } from './types.js';
import type { WalkedCard } from './walk.js';

/** What must not have changed for a card's leaf to stand: its own figures and how many entries it has. */
export function stampOf({ card, entries }: CardLedger): string {
  return JSON.stringify([...cardFigures(card), entries.length]);
}

export class LeafKeeper {
  readonly #kept: AsyncGenerator<KeptLeaf[]>;
  #buffer: KeptLeaf[] = [];
  #at = 0;
  #done = false;
  /** Per card, the newest sync that rewrote or found vanished one of its entries after the oldest kept leaf. */
  readonly #rewritten: ReadonlyMap<string, number>;
  /** The sync the walk reads as of: the leaves made now are as of it. */
  readonly #syncRunId: number;
  /** Leaves made again (new, or moved): to keep. */
  readonly made: KeptLeaf[] = [];
  /** Cards kept that the walk no longer hands out: to let go. */
  readonly gone: string[] = [];
  /** How many leaves were kept and how many made again. */
  reused = 0;

  constructor(kept: AsyncGenerator<KeptLeaf[]>, rewritten: ReadonlyMap<string, number>, syncRunId: number) {
    this.#kept = kept;
    this.#rewritten = rewritten;
    this.#syncRunId = syncRunId;
  }

  /** Reads the kept leaves on to card `giftCardId` (the last of the walk's batch) before the batch is tallied. */
  async readTo(giftCardId: string): Promise<void> {
    while (!this.#done && (this.#buffer.length === this.#at || this.#buffer.at(-1)!.giftCardId < giftCardId)) {
      const next = await this.#kept.next();
      if (next.done) this.#done = true;
      else {
        this.#buffer = [...this.#buffer.slice(this.#at), ...next.value];
        this.#at = 0;
      }
    }
  }

  /** The leaf of the walk's next card: kept when it has not moved, else made (and noted to keep). */
  leafOf(walked: WalkedCard): Buffer {
    const id = walked.card.giftCardId;
    while (this.#at < this.#buffer.length && this.#buffer[this.#at]!.giftCardId < id)
      this.gone.push(this.#buffer[this.#at++]!.giftCardId);
    const kept = this.#buffer[this.#at]?.giftCardId === id ? this.#buffer[this.#at++] : undefined;
    const stamp = stampOf(walked);
    if (kept && kept.stamp === stamp && !this.#movedSince(walked, kept.syncRunId)) {
      this.reused += 1;
      return Buffer.from(kept.leaf, 'hex');
    }
    const leaf = leafHash(canonicalCard(walked));
    this.made.push({ giftCardId: id, stamp, syncRunId: this.#syncRunId, leaf: leaf.toString('hex') });
    return leaf;
  }

  /** Whether an entry of the card was mirrored, rewritten or found vanished after sync `syncRunId`. */
  #movedSince(walked: WalkedCard, syncRunId: number): boolean {
    if ((this.#rewritten.get(walked.card.giftCardId) ?? 0) > syncRunId) return true;
    for (const entry of walked.entries) if (entry.firstSyncRunId > syncRunId) return true;
    return false;
  }

  /** After the walk: the kept leaves of cards past its last are gone too. */
  async finish(): Promise<void> {
    for (; this.#at < this.#buffer.length; this.#at += 1) this.gone.push(this.#buffer[this.#at]!.giftCardId);
    for await (const batch of this.#kept) for (const row of batch) this.gone.push(row.giftCardId);
    this.#buffer = [];
    this.#at = 0;
  }
}

/** A keeper of the mirror's kept leaves for a walk as of sync `syncRunId`. */
export async function leafKeeperOf(mirror: Mirror, syncRunId: number): Promise<LeafKeeper> {
  const store = new LedgerStore(mirror);
  return new LeafKeeper(store.keptLeaves(), await store.rewrittenSinceKept(), syncRunId);
}

/** After the walk: keeps the leaves made again and lets go of the cards gone. */
export async function keepLeaves(mirror: Mirror, keeper: LeafKeeper): Promise<void> {
  await keeper.finish();
  await new LedgerStore(mirror).keepLeaves(keeper.made, keeper.gone);
}
