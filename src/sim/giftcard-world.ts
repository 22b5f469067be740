import { Collection, type Sequenced } from './collection.js';
import { sha256, type Random } from './random.js';

/** Money inside the simulator is integer cents; the wire gets cents / 100. */
export const wire = (cents: number): number => cents / 100;
export const iso = (ms: number): string => new Date(ms).toISOString();
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface CardTemplate {
  id: string;
  programId: string;
  currency: string;
  denominations: readonly number[];
  minRedemption: number;
  allowPartial: boolean;
  validityDays: number;
}

export interface CardWire {
  giftCardId: string;
  merchantId: string;
  programId: string;
  giftCardTemplateId: string;
  codeHash: string;
  cardNumberHash?: string;
  pinHash?: string;
  status: string;
  currency: string;
  initialBalance: number;
  remainingBalance: number;
  issuedAt: string;
  expiresAt: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  [extra: string]: unknown;
}

export interface EntryWire {
  transactionId: string;
  giftCardId: string;
  type: string;
  amount: number;
  balanceBefore: number;
  balanceAfter: number;
  referenceId: string;
  idempotencyKey: string;
  createdAt: string;
  [extra: string]: unknown;
}

export interface CouponWire {
  couponId: string;
  merchantId: string;
  programId: string;
  couponTemplateId: string;
  codeHash: string;
  status: string;
  redemptionCount: number;
  usageLimitTotal: number;
  expiresAt: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  [extra: string]: unknown;
}

export interface SimCard extends Sequenced {
  /** Merchant whose client lists and reads this card. */
  owner: string;
  record: CardWire;
  template: CardTemplate;
  /** Balance in cents as the service holds it. */
  balance: number;
  expiresAtMs: number;
  createdAtMs: number;
  /** Per referenceId: cents debited and refunded, for the refund rule. */
  refs: Map<string, { debited: number; refunded: number }>;
  /** False for a card the service has lost (an orphaned ledger points at it). */
  findable: boolean;
  /** The hourly expiry job passes this card by (a planted control failure). */
  skipExpiryJob: boolean;
  /** Planted breaks and look-alikes: live activity leaves the card alone. */
  pinned: boolean;
}

export interface SimEntry extends Sequenced {
  owner: string;
  record: EntryWire;
  createdAtMs: number;
  /** Removed from the ledger (a planted gap, or a vanished entry between syncs). */
  deleted: boolean;
  /** Still listed, but reading it by ID answers 404: the service disagreeing with itself. */
  hiddenById?: boolean;
}

export interface SimCoupon extends Sequenced {
  owner: string;
  record: CouponWire;
  createdAtMs: number;
  pinned: boolean;
  /** No longer returned by the service (a coupon that vanished between syncs). */
  deleted?: boolean;
}

interface Pending<T> {
  id: string;
  at: number;
  order: number;
  item: Omit<T, 'seq'>;
}

export interface EntryOptions {
  referenceId?: string;
  idempotencyKey?: string;
}

/**
 * The gift card service's state: cards, the ledger and coupons, per merchant. Operations
 * follow the spec's rules (debit within balance and template minimum, refunds only against
 * earlier debits under the same reference, VOID/EXPIRE close the card); planted breaks use
 * {@link GiftCardWorld.writeEntry} to bend them on purpose.
 *
 * While `building`, records are held back and committed in time order by {@link finalize};
 * afterwards every write is committed at once at the head of its list.
 */
export class GiftCardWorld {
  readonly cards = new Collection<SimCard>();
  readonly entries = new Collection<SimEntry>();
  readonly coupons = new Collection<SimCoupon>();
  #building = true;
  /** The hour the expiry job last ran for. */
  #expiryRanFor = Number.NEGATIVE_INFINITY;
  #order = 0;
  readonly #pendingCards: Pending<SimCard>[] = [];
  readonly #pendingEntries: Pending<SimEntry>[] = [];
  readonly #pendingCoupons: Pending<SimCoupon>[] = [];
  readonly #buildingCards = new Map<string, SimCard>();
  #referenceCounter = 0;
  /** Every code this world issued, by its SHA-256 (the services publish only the hash): what the merchant's own books may name. */
  readonly codes = new Map<string, string>();

  constructor(readonly random: Random) {}

  /** A new code of `length` characters, kept; returns its SHA-256 as the services publish it. */
  newCode(length: number): string {
    const code = this.random.code(length);
    const hash = sha256(code);
    this.codes.set(hash, code);
    return hash;
  }

  /** Issues a card from a template at `atMs` with the template's (or the given) face value. */
  issueCard(owner: string, template: CardTemplate, atMs: number, initial?: number): SimCard {
    const giftCardId = this.random.uuid();
    const face = initial ?? this.random.pick(template.denominations);
    const expiresAtMs = atMs + template.validityDays * DAY;
    const withNumber = this.random.chance(0.5);
    const record: CardWire = {
      giftCardId,
      merchantId: owner,
      programId: template.programId,
      giftCardTemplateId: template.id,
      codeHash: this.newCode(16),
      ...(withNumber ? { cardNumberHash: sha256(this.random.digits(16)), pinHash: sha256(this.random.digits(6)) } : {}),
      status: 'ACTIVE',
      currency: template.currency,
      initialBalance: wire(face),
      remainingBalance: wire(face),
      issuedAt: iso(atMs),
      expiresAt: iso(expiresAtMs),
      version: 0,
      createdAt: iso(atMs),
      updatedAt: iso(atMs),
    };
    const card: Omit<SimCard, 'seq'> = {
      owner,
      record,
      template,
      balance: face,
      expiresAtMs,
      createdAtMs: atMs,
      refs: new Map(),
      findable: true,
      skipExpiryJob: false,
      pinned: false,
    };
    if (this.#building) {
      const held = { ...card, seq: 0 };
      this.#pendingCards.push({ id: giftCardId, at: atMs, order: this.#order++, item: held });
      this.#buildingCards.set(giftCardId, held);
      return held;
    }
    return this.cards.add(giftCardId, card);
  }

  /** All cards, including those still held back while building. */
  allCards(): Iterable<SimCard> {
    return this.#building ? this.#buildingCards.values() : this.cards.items;
  }

  isOpen(card: SimCard, atMs: number): boolean {
    return card.record.status === 'ACTIVE' && atMs < card.expiresAtMs;
  }

  /** Whether the service would accept a debit of `amount` cents now. */
  canDebit(card: SimCard, atMs: number, amount: number): boolean {
    if (!this.isOpen(card, atMs) || amount <= 0 || amount > card.balance) return false;
    if (amount < card.template.minRedemption) return false;
    return card.template.allowPartial || amount === card.balance;
  }

  /** Cents still refundable under a reference. */
  refundable(card: SimCard, referenceId: string): number {
    const ref = card.refs.get(referenceId);
    return ref ? ref.debited - ref.refunded : 0;
  }

  newReference(): string {
    this.#referenceCounter += 1;
    return `ORD-${String(this.#referenceCounter).padStart(7, '0')}`;
  }

  debit(card: SimCard, atMs: number, amount: number, options: EntryOptions = {}): SimEntry {
    const referenceId = options.referenceId ?? this.newReference();
    const ref = card.refs.get(referenceId) ?? { debited: 0, refunded: 0 };
    ref.debited += amount;
    card.refs.set(referenceId, ref);
    return this.writeEntry(card, atMs, {
      type: 'DEBIT',
      amount,
      after: card.balance - amount,
      referenceId,
      ...pickKey(options),
    });
  }

  refund(card: SimCard, atMs: number, amount: number, referenceId: string, options: EntryOptions = {}): SimEntry {
    const ref = card.refs.get(referenceId) ?? { debited: 0, refunded: 0 };
    ref.refunded += amount;
    card.refs.set(referenceId, ref);
    return this.writeEntry(card, atMs, {
      type: 'REFUND',
      amount,
      after: card.balance + amount,
      referenceId,
      ...pickKey(options),
    });
  }

  /** VOID: status INACTIVE; the amount sent is ignored (and recorded as sent). */
  void(card: SimCard, atMs: number, ignoredAmount = 0): SimEntry {
    return this.writeEntry(card, atMs, {
      type: 'VOID',
      amount: ignoredAmount,
      after: card.balance,
      referenceId: `VOID-${card.record.giftCardId.slice(0, 8)}`,
      status: 'INACTIVE',
    });
  }

  /** EXPIRE (by a caller or the hourly job): status EXPIRED, balance unchanged. */
  expire(card: SimCard, atMs: number, referenceId = 'EXPIRY-JOB'): SimEntry {
    return this.writeEntry(card, atMs, {
      type: 'EXPIRE',
      amount: 0,
      after: card.balance,
      referenceId,
      status: 'EXPIRED',
    });
  }

  /**
   * Commits one ledger entry and the card change with it, as the service does atomically.
   * `before` defaults to the card's balance; planted breaks pass other figures.
   */
  writeEntry(
    card: SimCard,
    atMs: number,
    fields: {
      type: string;
      amount: number;
      after: number;
      before?: number;
      referenceId: string;
      idempotencyKey?: string;
      status?: string;
    },
  ): SimEntry {
    const record: EntryWire = {
      transactionId: this.random.uuid(),
      giftCardId: card.record.giftCardId,
      type: fields.type,
      amount: wire(fields.amount),
      balanceBefore: wire(fields.before ?? card.balance),
      balanceAfter: wire(fields.after),
      referenceId: fields.referenceId,
      idempotencyKey: fields.idempotencyKey ?? this.random.uuid(),
      createdAt: iso(atMs),
    };
    card.balance = fields.after;
    card.record.remainingBalance = wire(fields.after);
    card.record.version += 1;
    card.record.updatedAt = iso(atMs);
    if (fields.status) card.record.status = fields.status;
    return this.addEntry(card.owner, record, atMs);
  }

  /** Adds a ledger entry as given, without touching any card (orphans, planted rows). */
  addEntry(owner: string, record: EntryWire, atMs: number): SimEntry {
    const entry: SimEntry = { owner, record, createdAtMs: atMs, deleted: false, seq: 0 };
    if (this.#building)
      this.#pendingEntries.push({ id: record.transactionId, at: atMs, order: this.#order++, item: entry });
    else this.entries.add(record.transactionId, entry);
    return entry;
  }

  addCoupon(owner: string, record: CouponWire, atMs: number, pinned = false): SimCoupon {
    const coupon: SimCoupon = { owner, record, createdAtMs: atMs, pinned, seq: 0 };
    if (this.#building)
      this.#pendingCoupons.push({ id: record.couponId, at: atMs, order: this.#order++, item: coupon });
    else this.coupons.add(record.couponId, coupon);
    return coupon;
  }

  /** Commits everything built so far in time order (ties in the order they were written). */
  finalize(): void {
    if (!this.#building) return;
    this.#building = false;
    commitInOrder(this.#pendingCards, this.cards);
    commitInOrder(this.#pendingEntries, this.entries);
    commitInOrder(this.#pendingCoupons, this.coupons);
    this.#buildingCards.clear();
  }

  /**
   * The hourly expiry job as of `atMs`: every ACTIVE card past its expiry gets an EXPIRE
   * entry stamped at the first full hour after its expiry that is not in the future.
   */
  /** The coupons' expiry job: an unpinned ACTIVE coupon past its expiry becomes EXPIRED (a new version). @returns how many. */
  expireCoupons(atMs: number): number {
    let expired = 0;
    for (const coupon of this.coupons.items) {
      const record = coupon.record;
      if (coupon.pinned || record.status !== 'ACTIVE' || Date.parse(record.expiresAt) > atMs) continue;
      record.status = 'EXPIRED';
      record.version += 1;
      record.updatedAt = iso(atMs);
      expired += 1;
    }
    return expired;
  }

  runExpiryJob(atMs: number): number {
    const lastRun = Math.floor(atMs / HOUR) * HOUR;
    // Within one hour the job has nothing new to do: expiry dates do not move.
    if (lastRun === this.#expiryRanFor && !this.#building) return 0;
    this.#expiryRanFor = lastRun;
    let expired = 0;
    for (const card of this.allCards()) {
      if (card.record.status !== 'ACTIVE' || card.skipExpiryJob || card.expiresAtMs >= lastRun) continue;
      const runAt = Math.max(Math.ceil(card.expiresAtMs / HOUR) * HOUR, lastEntryMs(card));
      this.expire(card, this.#building ? runAt : atMs);
      expired += 1;
    }
    return expired;
  }
}

function pickKey(options: EntryOptions): { idempotencyKey?: string } {
  return options.idempotencyKey !== undefined ? { idempotencyKey: options.idempotencyKey } : {};
}

function lastEntryMs(card: SimCard): number {
  return Date.parse(card.record.updatedAt);
}

function commitInOrder<T extends Sequenced>(pending: Pending<T>[], collection: Collection<T>): void {
  pending.sort((a, b) => a.at - b.at || a.order - b.order);
  for (const { id, item } of pending) collection.add(id, item);
  pending.length = 0;
}
