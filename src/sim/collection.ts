/**
 * A simulator list: records in commit order, each with a sequence number, served newest
 * first with keyset pagination ("after seq S"), so a page boundary does not move when new
 * records arrive at the head during a walk, which is what makes a list a snapshot.
 */
export interface Sequenced {
  seq: number;
}

export interface SeqPage<T> {
  items: T[];
  /** Sequence of the last item served, for the next cursor. */
  lastSeq: number | undefined;
  hasMore: boolean;
}

export class Collection<T extends Sequenced> {
  readonly items: T[] = [];
  readonly byId = new Map<string, T>();
  #nextSeq = 1;

  /** Appends a record at the head (newest), stamping the same object with the next sequence number. */
  add(id: string, item: Omit<T, 'seq'>): T {
    const full = item as T;
    full.seq = this.#nextSeq;
    this.#nextSeq += 1;
    this.items.push(full);
    this.byId.set(id, full);
    return full;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  /**
   * Newest first, starting below `beforeSeq` (undefined: from the newest), keeping only
   * the records `visible` accepts. A `limit` of -1 returns everything.
   */
  page(beforeSeq: number | undefined, limit: number, visible: (item: T) => boolean): SeqPage<T> {
    let index = beforeSeq === undefined ? this.items.length - 1 : this.#lastIndexBelow(beforeSeq);
    const items: T[] = [];
    for (; index >= 0 && (limit === -1 || items.length < limit); index -= 1) {
      const item = this.items[index];
      if (item && visible(item)) items.push(item);
    }
    let hasMore = false;
    for (; index >= 0; index -= 1) {
      const item = this.items[index];
      if (item && visible(item)) {
        hasMore = true;
        break;
      }
    }
    return { items, lastSeq: items.at(-1)?.seq, hasMore };
  }

  /** Index of the last record whose seq is below `seq` (items are in ascending seq). */
  #lastIndexBelow(seq: number): number {
    let low = 0;
    let high = this.items.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const item = this.items[mid];
      if (item !== undefined && item.seq < seq) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return found;
  }
}
