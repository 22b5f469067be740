/**
 * The population's leaves kept from the night before (#62, point 6): the evidence's Merkle tree
 * hashes every card with its entries (population.ts), about a second per 100,000 cards. A card
 * that has not moved since keeps its leaf: after the sync its leaf was made at, no sync changed
 * its snapshot (`gift_card_history`), mirrored an entry of it (`firstSyncRunId`), or rewrote or
 * found vanished one (`gift_card_transaction_versions`), and it has the number of entries its
 * kept `stamp` says. Only the others are hashed again. The kept leaves are read in the walk's
 * order beside it (cards by ID, compared as the walk orders them), a batch at a time.
 */
import type { Mirror } from '../db/mirror.js';
import { leafHash } from './merkle.js';
import { type KeptLeaf, LedgerStore } from './store.js';
import { canonicalCard } from './population.js';
import type { CardLedger } from './types.js';
import type { WalkedCard } from './walk.js';

/**
 * What the walk itself checks of a kept leaf: the card's number of entries. Its figures and its
 * entries are otherwise held to the syncs' own marks: a card snapshot that changed has a history
 * row of its sync, an entry mirrored its first sync, an entry rewritten or found vanished a
 * version of its sync. (A mirror written by hand, outside a sync, is not: its night's population
 * then states the mirror as the syncs made it, and re-performing that night names the difference.)
 */
export function stampOf({ entries }: CardLedger): string {
  return String(entries.length);
}

/**
 * The leaves a walk made again (new cards, moved ones), held compactly until the walk ends (a
 * SQLite connection writes nothing while its walk reads): the IDs, their stamps, and the leaves
 * side by side in one buffer, 32 bytes each. A first night holds every card's.
 */
export class MadeLeaves {
  readonly ids: string[] = [];
  readonly stamps: string[] = [];
  #leaves = Buffer.alloc(32 * 1024);

  add(id: string, stamp: string, leaf: Buffer): void {
    const at = this.ids.length * 32;
    if (at + 32 > this.#leaves.length) {
      const grown = Buffer.alloc(this.#leaves.length * 2);
      this.#leaves.copy(grown);
      this.#leaves = grown;
    }
    leaf.copy(this.#leaves, at);
    this.ids.push(id);
    this.stamps.push(stamp);
  }

  /** The leaf of the `i`th card made, hex. */
  leaf(i: number): string {
    return this.#leaves.toString('hex', i * 32, i * 32 + 32);
  }
}

export class LeafKeeper {
  readonly #kept: AsyncGenerator<KeptLeaf[]>;
  #buffer: KeptLeaf[] = [];
  #at = 0;
  #done = false;
  /** Per card, the newest sync that changed its snapshot or rewrote or found vanished one of its entries, after the oldest kept leaf. */
  readonly #rewritten: ReadonlyMap<string, number>;
  /** The sync the walk reads as of: the leaves made now are as of it. */
  readonly syncRunId: number;
  /** Leaves made again (new, or moved): to keep. */
  readonly made = new MadeLeaves();
  /** Cards kept that the walk no longer hands out: to let go. */
  readonly gone: string[] = [];
  /** How many kept leaves stood. */
  reused = 0;

  constructor(kept: AsyncGenerator<KeptLeaf[]>, rewritten: ReadonlyMap<string, number>, syncRunId: number) {
    this.#kept = kept;
    this.#rewritten = rewritten;
    this.syncRunId = syncRunId;
  }

  /** Reads the kept leaves on to card `giftCardId` (the last of the walk's batch) before the batch is tallied. */
  async readTo(giftCardId: string): Promise<void> {
    while (!this.#done && (this.#buffer.length === this.#at || this.#buffer.at(-1)![0] < giftCardId)) {
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
    while (this.#at < this.#buffer.length && this.#buffer[this.#at]![0] < id)
      this.gone.push(this.#buffer[this.#at++]![0]);
    const kept = this.#buffer[this.#at]?.[0] === id ? this.#buffer[this.#at++] : undefined;
    const stamp = stampOf(walked);
    if (kept && kept[1] === stamp && !this.#movedSince(walked, Number(kept[2]))) {
      this.reused += 1;
      return Buffer.from(kept[3], 'hex');
    }
    const leaf = leafHash(canonicalCard(walked));
    this.made.add(id, stamp, leaf);
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
    for (; this.#at < this.#buffer.length; this.#at += 1) this.gone.push(this.#buffer[this.#at]![0]);
    for await (const batch of this.#kept) for (const row of batch) this.gone.push(row[0]);
    this.#buffer = [];
    this.#at = 0;
  }
}

/** A keeper of the mirror's kept leaves for a walk as of sync `syncRunId`. */
export async function leafKeeperOf(mirror: Mirror, syncRunId: number): Promise<LeafKeeper> {
  const store = new LedgerStore(mirror);
  return new LeafKeeper(store.keptLeaves(), await store.movedSinceKept(), syncRunId);
}

/** After the walk: keeps the leaves made again and lets go of the cards gone. */
export async function keepLeaves(mirror: Mirror, keeper: LeafKeeper): Promise<void> {
  await keeper.finish();
  await new LedgerStore(mirror).keepLeaves(keeper.made, keeper.syncRunId, keeper.gone);
}
