/**
 * The sums a run's one walk made of every card's ledger, kept for its report: the Card
 * reconciliation sheet writes them beside each card's snapshot and does not walk the ledger
 * again. Kept by position in the walk's order (cards by ID), in chunks of {@link CHUNK_CARDS}
 * cards, each a compact record: for each card its debits, its refunds, its number of entries,
 * whether an amount was off the cent, and a 32-bit hash of its ID that proves, card by card,
 * that the cards read back are the ones the walk summed. A chunk at a time is held, written or
 * read: a million cards' sums never sit in memory whole.
 */
import type { Mirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import type { Cents } from '../money.js';
import type { CardSums } from './state.js';
import { cardSums } from './state.js';
import { LedgerStore } from './store.js';
import type { CardLedger, CardSnapshot } from './types.js';
import { CARD_COLUMNS, snapshotOf } from './walk.js';

/** Cards a chunk holds (the last holds the rest): 16,384 take 400 KB. */
export const CHUNK_CARDS = 16_384;
/** The record's layout version, its first four bytes: a record of another layout is not read. */
const LAYOUT = 1;
/** Bytes a card takes: debits and refunds (float64, whole cents), entries and the ID's hash (uint32), off the cent (uint8). */
const CARD_BYTES = 8 + 8 + 4 + 4 + 1;
const HEADER_BYTES = 8;

/** FNV-1a over the ID's UTF-16 code units: a card read back in another card's place shows. */
function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Collects each walked card's sums in walk order, a chunk's record at a time: `kept()` is what the run keeps. */
export class CardSumsTally {
  readonly #chunks: Buffer[] = [];
  #count = 0;
  #debited = new Float64Array(CHUNK_CARDS);
  #refunded = new Float64Array(CHUNK_CARDS);
  #entries = new Uint32Array(CHUNK_CARDS);
  #hashes = new Uint32Array(CHUNK_CARDS);
  #unknown = new Uint8Array(CHUNK_CARDS);

  /** Adds the next card of the walk. */
  add(walked: CardLedger): void {
    const sums = cardSums(walked.entries);
    const at = this.#count++ % CHUNK_CARDS;
    this.#debited[at] = sums.debitedCents;
    this.#refunded[at] = sums.refundedCents;
    this.#entries[at] = sums.entries;
    this.#hashes[at] = idHash(walked.card.giftCardId);
    this.#unknown[at] = sums.unknownAmount ? 1 : 0;
    if (at === CHUNK_CARDS - 1) this.#chunks.push(this.#record(CHUNK_CARDS));
  }

  /** What the run keeps: the number of cards, and their records, a chunk each. */
  kept(): { cards: number; chunks: Buffer[] } {
    const rest = this.#count % CHUNK_CARDS;
    return { cards: this.#count, chunks: rest === 0 ? [...this.#chunks] : [...this.#chunks, this.#record(rest)] };
  }

  /** A chunk's record of its first `n` cards: a header (layout, count), then each column in turn, little-endian. */
  #record(n: number): Buffer {
    const out = Buffer.alloc(HEADER_BYTES + n * CARD_BYTES);
    out.writeUInt32LE(LAYOUT, 0);
    out.writeUInt32LE(n, 4);
    let at = HEADER_BYTES;
    for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(this.#debited[i]!, at);
    for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(this.#refunded[i]!, at);
    for (let i = 0; i < n; i++, at += 4) out.writeUInt32LE(this.#entries[i]!, at);
    for (let i = 0; i < n; i++, at += 4) out.writeUInt32LE(this.#hashes[i]!, at);
    out.set(this.#unknown.subarray(0, n), at);
    return out;
  }
}

/** One chunk's record read back: the sums of the card at each of its positions. */
export class KeptChunk {
  readonly count: number;
  readonly #record: Buffer;

  /** @returns null for a record of another layout or length: its sums are not read. */
  static of(record: Buffer): KeptChunk | null {
    if (record.length < HEADER_BYTES || record.readUInt32LE(0) !== LAYOUT) return null;
    const count = record.readUInt32LE(4);
    return record.length === HEADER_BYTES + count * CARD_BYTES ? new KeptChunk(record, count) : null;
  }

  private constructor(record: Buffer, count: number) {
    this.#record = record;
    this.count = count;
  }

  /** Whether the card at `at` (within the chunk) is the card of ID `giftCardId`, by its hash. */
  holds(at: number, giftCardId: string): boolean {
    return at < this.count && this.#record.readUInt32LE(HEADER_BYTES + this.count * 20 + at * 4) === idHash(giftCardId);
  }

  /** The sums of the card at `at` within the chunk. */
  at(at: number): CardSums {
    const n = this.count;
    const r = this.#record;
    return {
      debitedCents: r.readDoubleLE(HEADER_BYTES + at * 8) as Cents,
      refundedCents: r.readDoubleLE(HEADER_BYTES + n * 8 + at * 8) as Cents,
      entries: r.readUInt32LE(HEADER_BYTES + n * 16 + at * 4),
      unknownAmount: r[HEADER_BYTES + n * 24 + at] === 1,
    };
  }
}

/** A run's kept sums, as its store reads them back: how many cards, and each chunk's record by number. */
export interface KeptCardSums {
  checkRunId: number;
  cards: number;
  chunk(index: number): Promise<Buffer>;
}

/**
 * Every card as the mirror holds it now, in the walk's order, with the sums a run kept for it
 * (`kept`): the cards' rows alone are read, never their entries. `only`: a JSON array of card
 * IDs, to hand out those cards alone (still read in order: a card's sums are found by position;
 * a chunk is read only when a card wanted is in it).
 * @throws MirrorError when the mirror holds other cards than the run summed, before any is handed out.
 */
export async function* cardsWithKeptSums(
  mirror: Mirror,
  kept: KeptCardSums,
  only?: string,
): AsyncGenerator<Array<{ card: CardSnapshot; sums: CardSums }>> {
  const store = new LedgerStore(mirror);
  const changed = (why: string): MirrorError =>
    new MirrorError(
      `${why}: the mirror's cards changed after check run ${kept.checkRunId}; write the report again after the next run`,
    );
  const count = await store.cardCount();
  if (count !== kept.cards) throw changed(`the mirror holds ${count} cards where the check run summed ${kept.cards}`);
  const wanted = only === undefined ? null : new Set<string>(JSON.parse(only) as string[]);
  let position = 0;
  let chunk: KeptChunk | null = null;
  let chunkIndex = -1;
  for await (const rows of store.cards(CARD_COLUMNS, true)) {
    const out: Array<{ card: CardSnapshot; sums: CardSums }> = [];
    for (const row of rows) {
      const at = position++;
      if (wanted !== null && !wanted.has(row[0])) continue;
      const index = Math.floor(at / CHUNK_CARDS);
      if (index !== chunkIndex) {
        chunk = KeptChunk.of(await kept.chunk(index));
        chunkIndex = index;
        if (chunk === null)
          throw changed(`the sums kept for cards ${at + 1} on are of a layout this version cannot read`);
      }
      if (!chunk!.holds(at % CHUNK_CARDS, row[0]))
        throw changed(`card ${row[0]} is not the card the check run summed at position ${at + 1} of ${kept.cards}`);
      out.push({ card: snapshotOf(row), sums: chunk!.at(at % CHUNK_CARDS) });
    }
    if (out.length > 0) yield out;
  }
}
