/**
 * What a run's one walk made of every card's ledger, kept for its report: the Card
 * reconciliation and Refunds by reference sheets write it beside each card's snapshot and do not
 * walk the ledger again. Kept by position in the walk's order (cards by ID), in chunks of
 * {@link CHUNK_CARDS} cards, each a compact record: for each card its debits, its refunds, its
 * number of entries, whether an amount was off the cent, a 32-bit hash of its ID that proves,
 * card by card, that the cards read back are the ones the walk summed, and its references with a
 * refund (the ledger stage's `refundGroupsOf`), deflated. A chunk at a time is read: a million
 * cards' figures never sit in memory whole, and the run holds them deflated until it is recorded.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AnyColumn } from 'drizzle-orm';
import type { Mirror } from '../db/mirror.js';
import { giftCards } from '../db/schema.js';
import type { RowOf } from '../db/typed-rows.js';
import { MirrorError } from '../errors.js';
import type { Cents } from '../money.js';
import type { CardSums } from './state.js';
import { cardSums } from './state.js';
import { LedgerStore } from './store.js';
import { type RefundGroup, refundGroupsOf } from './references.js';
import type { CardLedger, CardSnapshot } from './types.js';
import { CARD_COLUMNS, snapshotOf } from './walk.js';

/** Cards a chunk holds (the last holds the rest): 16,384 take 475 KB, and their references with a refund. */
export const CHUNK_CARDS = 16_384;
/** The record's layout version, its first four bytes: a record of another layout is not read. */
const LAYOUT = 2;
/**
 * Bytes a card takes in the columns: debits and refunds (float64, whole cents), entries, the ID's
 * hash and its number of references with a refund (uint32), off the cent (uint8).
 */
const CARD_BYTES = 8 + 8 + 4 + 4 + 4 + 1;
/** Layout, cards, and the bytes of the references that follow the columns (uint32 each). */
const HEADER_BYTES = 12;
/** Bytes a reference takes after its ID: debits and refunds (uint32), flags (uint8), their sums (float64); its refunds' IDs follow. */
const GROUP_BYTES = 4 + 4 + 1 + 8 + 8;
/** A reference's flags: its debits' or its refunds' sum is unknown (an amount off the cent). */
const DEBITED_UNKNOWN = 1;
const REFUNDED_UNKNOWN = 2;

/** FNV-1a over the ID's UTF-16 code units: a card read back in another card's place shows. */
function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A growing little-endian record of the references with a refund, written in walk order. */
class GroupWriter {
  #bytes = Buffer.alloc(64 * 1024);
  #at = 0;

  /** Writes one reference: its ID, counts, flags, sums and its refunds' IDs. */
  write(group: RefundGroup): void {
    this.#text(group.referenceId);
    this.#room(GROUP_BYTES);
    this.#at = this.#bytes.writeUInt32LE(group.debits, this.#at);
    this.#at = this.#bytes.writeUInt32LE(group.refunds, this.#at);
    const flags =
      (group.debitedCents === null ? DEBITED_UNKNOWN : 0) | (group.refundedCents === null ? REFUNDED_UNKNOWN : 0);
    this.#at = this.#bytes.writeUInt8(flags, this.#at);
    this.#at = this.#bytes.writeDoubleLE(group.debitedCents ?? 0, this.#at);
    this.#at = this.#bytes.writeDoubleLE(group.refundedCents ?? 0, this.#at);
    for (const id of group.refundIds) this.#text(id);
  }

  /** What was written, copied out; the writer starts again empty. */
  take(): Buffer {
    const out = Buffer.from(this.#bytes.subarray(0, this.#at));
    this.#at = 0;
    return out;
  }

  #text(text: string): void {
    const n = Buffer.byteLength(text, 'utf8');
    this.#room(4 + n);
    this.#at = this.#bytes.writeUInt32LE(n, this.#at);
    this.#at += this.#bytes.write(text, this.#at, 'utf8');
  }

  #room(n: number): void {
    if (this.#at + n <= this.#bytes.length) return;
    const grown = Buffer.alloc(Math.max(this.#bytes.length * 2, this.#at + n));
    this.#bytes.copy(grown, 0, 0, this.#at);
    this.#bytes = grown;
  }
}

/** One chunk's record, as the run keeps it: how many cards it holds, and the record, deflated. */
export interface KeptRecord {
  cards: number;
  record: Buffer;
}

/**
 * Collects each walked card's sums and references with a refund, in walk order, a chunk's
 * record at a time: `kept()` is what the run keeps.
 */
export class CardSumsTally {
  readonly #chunks: KeptRecord[] = [];
  #count = 0;
  #debited = new Float64Array(CHUNK_CARDS);
  #refunded = new Float64Array(CHUNK_CARDS);
  #entries = new Uint32Array(CHUNK_CARDS);
  #hashes = new Uint32Array(CHUNK_CARDS);
  #groups = new Uint32Array(CHUNK_CARDS);
  #unknown = new Uint8Array(CHUNK_CARDS);
  readonly #references = new GroupWriter();

  /** Adds the next card of the walk. */
  add(walked: CardLedger): void {
    const sums = cardSums(walked.entries);
    const at = this.#count++ % CHUNK_CARDS;
    this.#debited[at] = sums.debitedCents;
    this.#refunded[at] = sums.refundedCents;
    this.#entries[at] = sums.entries;
    this.#hashes[at] = idHash(walked.card.giftCardId);
    this.#unknown[at] = sums.unknownAmount ? 1 : 0;
    // Most cards have no refund: they are not grouped at all.
    const groups = walked.entries.some((e) => e.type === 'REFUND') ? refundGroupsOf(walked.entries) : [];
    this.#groups[at] = groups.length;
    for (const group of groups) this.#references.write(group);
    if (at === CHUNK_CARDS - 1) this.#chunks.push(this.#record(CHUNK_CARDS));
  }

  /** What the run keeps: the number of cards, and their records, a chunk each. */
  kept(): { cards: number; chunks: KeptRecord[] } {
    const rest = this.#count % CHUNK_CARDS;
    return { cards: this.#count, chunks: rest === 0 ? [...this.#chunks] : [...this.#chunks, this.#record(rest)] };
  }

  /** A chunk's record of its first `n` cards: a header, each column in turn, then their references, little-endian. */
  #record(n: number): KeptRecord {
    const references = this.#references.take();
    const out = Buffer.alloc(HEADER_BYTES + n * CARD_BYTES + references.length);
    out.writeUInt32LE(LAYOUT, 0);
    out.writeUInt32LE(n, 4);
    out.writeUInt32LE(references.length, 8);
    let at = HEADER_BYTES;
    for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(this.#debited[i]!, at);
    for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(this.#refunded[i]!, at);
    for (let i = 0; i < n; i++, at += 4) out.writeUInt32LE(this.#entries[i]!, at);
    for (let i = 0; i < n; i++, at += 4) out.writeUInt32LE(this.#hashes[i]!, at);
    for (let i = 0; i < n; i++, at += 4) out.writeUInt32LE(this.#groups[i]!, at);
    out.set(this.#unknown.subarray(0, n), at);
    references.copy(out, at + n);
    // Deflated, the run holds and keeps a third of it (the report bench's million cards: 51 MB
    // raw, 19 MB deflated in 0.7 s of the walk; inflated again in 0.2 s). Deflated on the thread
    // pool instead, the check peaked 30 MB higher (374-376 MB against 342-348 MB), no faster.
    return { cards: n, record: deflateRawSync(out, { level: 1 }) };
  }
}

/** One chunk's record read back: the sums of the card at each of its positions, and its references with a refund. */
export class KeptChunk {
  readonly count: number;
  readonly #record: Buffer;
  /** Where each card's references start in the record (found once, on the first asked for). */
  #starts: Uint32Array | null = null;

  /** @returns null for a record of another layout or length: its sums are not read. */
  static of(deflated: Buffer): KeptChunk | null {
    let record: Buffer;
    try {
      record = inflateRawSync(deflated);
    } catch {
      return null;
    }
    if (record.length < HEADER_BYTES || record.readUInt32LE(0) !== LAYOUT) return null;
    const count = record.readUInt32LE(4);
    const references = record.readUInt32LE(8);
    return record.length === HEADER_BYTES + count * CARD_BYTES + references ? new KeptChunk(record, count) : null;
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
      unknownAmount: r[HEADER_BYTES + n * 28 + at] === 1,
    };
  }

  /** How many references with a refund the card at `at` has. */
  refundGroupCount(at: number): number {
    return this.#record.readUInt32LE(HEADER_BYTES + this.count * 24 + at * 4);
  }

  /** The references with a refund of the card at `at`, in ledger order. */
  refundGroupsAt(at: number): RefundGroup[] {
    const groups = this.refundGroupCount(at);
    if (groups === 0) return [];
    let offset = this.#startsOf()[at]!;
    const r = this.#record;
    const text = (): string => {
      const n = r.readUInt32LE(offset);
      offset += 4 + n;
      return r.toString('utf8', offset - n, offset);
    };
    const out: RefundGroup[] = [];
    for (let g = 0; g < groups; g++) {
      const referenceId = text();
      const debits = r.readUInt32LE(offset);
      const refunds = r.readUInt32LE(offset + 4);
      const flags = r[offset + 8]!;
      const debited = r.readDoubleLE(offset + 9) as Cents;
      const refunded = r.readDoubleLE(offset + 17) as Cents;
      offset += GROUP_BYTES;
      const refundIds: string[] = [];
      for (let i = 0; i < refunds; i++) refundIds.push(text());
      out.push({
        referenceId,
        debits,
        refunds,
        debitedCents: flags & DEBITED_UNKNOWN ? null : debited,
        refundedCents: flags & REFUNDED_UNKNOWN ? null : refunded,
        refundIds,
      });
    }
    return out;
  }

  /** Each card's first reference's offset, found by stepping over the references once. */
  #startsOf(): Uint32Array {
    if (this.#starts !== null) return this.#starts;
    const r = this.#record;
    const starts = new Uint32Array(this.count);
    let offset = HEADER_BYTES + this.count * CARD_BYTES;
    const skipText = (): void => {
      offset += 4 + r.readUInt32LE(offset);
    };
    for (let card = 0; card < this.count; card++) {
      starts[card] = offset;
      for (let g = this.refundGroupCount(card); g > 0; g--) {
        skipText();
        const refunds = r.readUInt32LE(offset + 4);
        offset += GROUP_BYTES;
        for (let i = 0; i < refunds; i++) skipText();
      }
    }
    this.#starts = starts;
    return starts;
  }
}

/** A run's kept sums, as its store reads them back: how many cards, and each chunk's record by number. */
export interface KeptCardSums {
  checkRunId: number;
  cards: number;
  chunk(index: number): Promise<Buffer>;
}

/** A card's row as read (its ID first), and where its figures were kept: its chunk, and where in it. */
interface KeptAt<Row> {
  row: Row;
  chunk: KeptChunk;
  at: number;
}

/** The columns the Refunds sheet reads of a card beside its kept references. */
const ID_AND_CURRENCY = [giftCards.giftCardId, giftCards.currency] as const;

/**
 * Every card as the mirror holds it now (the `columns` of its row, its ID first), in the walk's
 * order, with where the run kept its figures (`kept`): the cards' rows alone are read, never
 * their entries. `only`: a JSON array of card IDs, to hand out those cards alone (their
 * positions found from the IDs of all, their rows read alone; a chunk is read only when a card
 * wanted is in it).
 * @throws MirrorError when the mirror holds other cards than the run summed, before any is handed out.
 */
async function* keptInWalkOrder<C extends readonly [typeof giftCards.giftCardId, ...AnyColumn[]]>(
  mirror: Mirror,
  kept: KeptCardSums,
  columns: C,
  only?: string,
): AsyncGenerator<Array<KeptAt<RowOf<C>>>> {
  const store = new LedgerStore(mirror);
  const refused = (why: string): MirrorError => new MirrorError(`${why}; write the report again after the next run`);
  const changed = (why: string): MirrorError =>
    refused(`${why}: the mirror's cards changed after check run ${kept.checkRunId}`);
  const count = await store.cardCount();
  if (count !== kept.cards) throw changed(`the mirror holds ${count} cards where the check run summed ${kept.cards}`);
  let position = 0;
  let chunk: KeptChunk | null = null;
  let chunkIndex = -1;
  /** Reads the chunk that holds position `at`. */
  const load = async (at: number): Promise<void> => {
    chunkIndex = Math.floor(at / CHUNK_CARDS);
    chunk = KeptChunk.of(await kept.chunk(chunkIndex));
    if (chunk === null)
      throw refused(
        `the figures check run ${kept.checkRunId} kept for cards ${at + 1} on are of a layout this version cannot read`,
      );
  };
  /** Where the figures at position `at` are, in the chunk loaded, once the card there is shown to be `id`. */
  const keptAt = (at: number, id: string): { chunk: KeptChunk; at: number } => {
    if (!chunk!.holds(at % CHUNK_CARDS, id))
      throw changed(`card ${id} is not the card the check run summed at position ${at + 1} of ${kept.cards}`);
    return { chunk: chunk!, at: at % CHUNK_CARDS };
  };
  const inChunk = (at: number): boolean => Math.floor(at / CHUNK_CARDS) === chunkIndex;
  if (only === undefined) {
    for await (const rows of store.cards(columns, true)) {
      const out: Array<KeptAt<RowOf<C>>> = [];
      for (const row of rows) {
        const at = position++;
        if (!inChunk(at)) await load(at);
        out.push({ row, ...keptAt(at, row[0] as string) });
      }
      yield out;
    }
    return;
  }
  // A few cards (a sheet's flagged or printed ones): their positions from the IDs of all (a
  // million in 1.0 s, against 3.7 s for the Card sheet's columns), their rows read alone, in the
  // same order.
  const wanted = store.cards(columns, true, only);
  try {
    let next: Array<RowOf<C>> = [];
    let taken = 0;
    let allTaken = false;
    for await (const ids of store.cards([giftCards.giftCardId] as const, true)) {
      const out: Array<KeptAt<RowOf<C>>> = [];
      for (const [id] of ids) {
        const at = position++;
        if (taken === next.length) {
          const batch = await wanted.next();
          allTaken = batch.done === true;
          if (allTaken) break;
          next = batch.value as Array<RowOf<C>>;
          taken = 0;
        }
        if (next[taken]![0] !== id) continue;
        if (!inChunk(at)) await load(at);
        out.push({ row: next[taken++]!, ...keptAt(at, id) });
      }
      if (out.length > 0) yield out;
      if (allTaken) return;
    }
    const left = next[taken] ?? (await wanted.next()).value?.[0];
    if (left !== undefined) throw changed(`card ${left[0]} is not where the check run summed it`);
  } finally {
    await wanted.return(undefined);
  }
}

/**
 * Every card as the mirror holds it now, in the walk's order, with the sums the run kept for it.
 * `only`: a JSON array of card IDs, to hand out those alone.
 * @throws MirrorError when the mirror holds other cards than the run summed, before any is handed out.
 */
export async function* cardsWithKeptSums(
  mirror: Mirror,
  kept: KeptCardSums,
  only?: string,
): AsyncGenerator<Array<{ card: CardSnapshot; sums: CardSums }>> {
  for await (const batch of keptInWalkOrder(mirror, kept, CARD_COLUMNS, only))
    yield batch.map(({ row, chunk, at }) => ({ card: snapshotOf(row), sums: chunk.at(at) }));
}

/**
 * The cards with a reference with a refund (their ID and currency), as the mirror holds them
 * now, in the walk's order, with those references as the run kept them. `only`: a JSON array of
 * card IDs, to hand out those alone.
 * @throws MirrorError when the mirror holds other cards than the run summed, before any is handed out.
 */
export async function* cardsWithKeptRefunds(
  mirror: Mirror,
  kept: KeptCardSums,
  only?: string,
): AsyncGenerator<Array<{ giftCardId: string; currency: string; groups: RefundGroup[] }>> {
  for await (const batch of keptInWalkOrder(mirror, kept, ID_AND_CURRENCY, only)) {
    const out: Array<{ giftCardId: string; currency: string; groups: RefundGroup[] }> = [];
    for (const { row, chunk, at } of batch)
      if (chunk.refundGroupCount(at) > 0)
        out.push({ giftCardId: row[0], currency: row[1], groups: chunk.refundGroupsAt(at) });
    if (out.length > 0) yield out;
  }
}
