import { generateAged } from './aged.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CursorCodec } from './cursor.js';
import { DpWorld, type OrderWire, type ProductWire, type WalletWire } from './dp-world.js';
import { handleDpRequest, type DpApiClient } from './dp-routes.js';
import { FaultPlan, type FaultKind, type FaultOptions } from './faults.js';
import {
  cardTemplates,
  generateDp,
  generateMerchant,
  SIZE_PRESETS,
  type SizePreset,
  type WorldSize,
} from './generator.js';
import { handleGiftCardRequest, type GiftCardApiClient } from './giftcard-routes.js';
import { GiftCardWorld, HOUR, iso, wire, type CardWire, type CouponWire, type EntryWire } from './giftcard-world.js';
import { applyActivity, type ActivityContext, type ActivityKind } from './live-activity.js';
import { plantBreaks, type Manifest } from './planted-breaks.js';
import { emptyBooksPlan, plantBooks } from './books-plants.js';
import { writeBooksExport } from './books-export.js';
import { Random } from './random.js';
import type { SimResponse } from './routes.js';

export interface SimulatorOptions {
  seed?: number;
  size?: SizePreset | Partial<WorldSize>;
  /** Plant every single-sync break and the legal look-alikes (default false). */
  plant?: boolean;
  /** Element shape of GET /v1/giftCards: full records or {giftCardId, status}. */
  cardListShape?: 'full' | 'minimal';
  faults?: FaultOptions;
  /** Apply one legal operation every `intervalMs` while serving. */
  live?: { intervalMs: number };
  /** Ports on 127.0.0.1; 0 (default) picks free ones. */
  port?: number;
  dpPort?: number;
  /** Keep a log of every request (for tests). */
  recordRequests?: boolean;
  /** Every answer waits this long before it is sent, like a network round trip (default 0). */
  latencyMs?: number;
  /** The simulator's "now" for generation (default the clock's time). */
  nowMs?: number;
  /**
   * The simulator's clock: the time live activity, the expiry job and the balance breaks are
   * stamped with (default Date.now). A test that moves a world through nights sets it.
   */
  clock?: () => number;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export interface RequestRecord {
  service: 'giftcard' | 'dp';
  method: string;
  path: string;
  query: string;
  startedAt: number;
  status: number;
  fault: FaultKind | undefined;
}

/** What our client should read: exactly the records the services hold for it. */
export interface GroundTruth {
  merchantId: string;
  dpId: string;
  giftCards: CardWire[];
  transactions: EntryWire[];
  coupons: CouponWire[];
  wallets: WalletWire[];
  products: ProductWire[];
  orders: OrderWire[];
}

export interface Simulator {
  giftcardUrl: string;
  dpUrl: string;
  credentials: {
    giftcard: Credentials;
    dp: Credentials;
    /** Another merchant's active client: sees only its own records. */
    otherMerchant: Credentials;
    /** A deactivated client (403 USER_INACTIVE). */
    inactive: Credentials;
    /** Another delivery partner: our DP ID is FORBIDDEN to it. */
    otherDp: Credentials;
  };
  seed: number;
  manifest: Manifest;
  faults: FaultPlan;
  /** Every request, when `recordRequests` was set. */
  requests: RequestRecord[];
  /** Non-GET requests received: the tool must send none. */
  writeAttempts: number;
  /** Largest `limit` any request asked for (NaN-free; 0 when none). */
  maxLimitRequested: number;
  /** The delay before every answer, in ms; may be changed while serving. */
  latencyMs: number;
  truth(): GroundTruth;
  /**
   * Writes the merchant's own exports of the services as they stand now (tenders, coupon uses,
   * DP purchases, each with its mapping file) into `dir`, with the planted book breaks.
   * @returns the paths written.
   */
  writeBooks(dir: string): string[];
  /** Applies `count` legal operations now, as live activity would. */
  applyActivity(count: number): ActivityKind[];
  /**
   * The services' own scheduled work at the clock's time, as a healthy service does it every
   * hour: cards and coupons past their expiry are expired, and orders confirmed over an hour ago
   * are fulfilled. A world moved through days by its clock stays legal.
   * @returns how many records it changed.
   */
  runServiceJobs(): number;
  mutate: Mutations;
  /** Stops live activity, keeping the services up. */
  stopLive(): void;
  close(): Promise<void>;
}

/** Changes between syncs that only a second sync can reveal. */
export interface Mutations {
  /** Rewrites a ledger entry in place (GC_LEDGER_REWRITTEN). */
  rewriteEntry(transactionId: string, fields: Partial<EntryWire>): void;
  /** Removes a ledger entry from the service (GC_LEDGER_REWRITTEN, vanished). */
  removeEntry(transactionId: string): void;
  /** Restores a removed entry. */
  restoreEntry(transactionId: string): void;
  /** Keeps an entry in the ledger list but answers 404 when it is read by ID. */
  hideEntryById(transactionId: string): void;
  /**
   * Commits a new entry on a card at `atMs` (which may lie in the past: an entry committed
   * late), moving the card's balance as the service would. `beforeCents` other than the card's
   * balance plants a chain gap. Returns the entry's ID.
   */
  writeEntry(
    giftCardId: string,
    entry: { type: 'DEBIT' | 'REFUND'; amountCents: number; atMs: number; referenceId?: string; beforeCents?: number },
  ): string;
  /** Takes a coupon out of the service's answers, or puts it back. */
  setCouponListed(couponId: string, listed: boolean): void;
  /** Takes an order out of the service's answers. */
  removeOrder(orderID: string): void;
  /** Edits an order's record as the service would send it (malformed fields included). */
  editOrder(orderID: string, edit: (record: OrderWire) => void): void;
  /** Lowers a coupon's redemption count (CV_COUNTER_REGRESSED). */
  setCoupon(couponId: string, fields: Partial<CouponWire>): void;
  /** Moves a wallet's balance with no order behind it (DP_WALLET_DRIFT). */
  moveWallet(walletID: string, deltaCents: number): void;
  /** Sets fields of a card's record. */
  setCard(giftCardId: string, fields: Partial<CardWire>): void;
  /**
   * A balance break (GC_BALANCE_MISMATCH, GC_LEDGER_TAIL_MISMATCH): the card's remainingBalance
   * is left `offByCents` away from its ledger, after a DEBIT of `debitCents` committed now when
   * given (a break that arrives with a new entry). The card takes no live activity from then on.
   */
  breakBalance(giftCardId: string, break_: { offByCents: number; debitCents?: number }): void;
  /** Repairs a balance break without a ledger entry: the remainingBalance is its ledger's again (a new version). */
  repairBalance(giftCardId: string): void;
}

/** Both services' worlds as the seed and options make them, planted or not, with the manifest of what was planted. */
function generateWorlds(options: SimulatorOptions) {
  const seed = options.seed ?? 1;
  const nowMs = options.nowMs ?? (options.clock ?? Date.now)();
  const random = new Random(seed);
  const size: WorldSize = {
    ...SIZE_PRESETS.small,
    ...(typeof options.size === 'string' ? SIZE_PRESETS[options.size] : options.size),
  };

  const merchantId = random.uuid();
  const otherMerchantId = random.uuid();
  const dpId = 'DP-DEMO-0001';
  const otherDpId = 'DP-OTHER-0002';
  const credentials: Simulator['credentials'] = {
    giftcard: { clientId: random.uuid(), clientSecret: `gcs_${random.hex(32)}` },
    otherMerchant: { clientId: random.uuid(), clientSecret: `gcs_${random.hex(32)}` },
    inactive: { clientId: random.uuid(), clientSecret: `gcs_${random.hex(32)}` },
    dp: { clientId: dpId, clientSecret: `dps_${random.hex(32)}` },
    otherDp: { clientId: otherDpId, clientSecret: `dps_${random.hex(32)}` },
  };

  const gc = new GiftCardWorld(random);
  const dp = new DpWorld(dpId, random);
  const otherDp = new DpWorld(otherDpId, random);
  const templates = cardTemplates(random);
  generateMerchant({ gc, dp, random, nowMs, merchantId, templates }, size);
  generateMerchant(
    { gc, dp, random, nowMs, merchantId: otherMerchantId, templates: cardTemplates(random) },
    { ...size, cards: Math.max(3, Math.ceil(size.cards / 20)), coupons: Math.max(2, Math.ceil(size.coupons / 20)) },
  );
  const products = generateDp({ dp, random, nowMs }, size);
  generateDp({ dp: otherDp, random, nowMs }, { products: 2, orders: 3 });
  const plantContext = { gc, dp, random, nowMs, merchantId, templates, otherMerchantId, products };
  const planted = options.plant ? plantBreaks(plantContext) : { breaks: [], lookAlikes: [] };
  const booksPlan = options.plant ? plantBooks(plantContext) : emptyBooksPlan();
  generateAged(gc, merchantId, size.agedCards ?? 0, seed, nowMs);
  gc.runExpiryJob(nowMs);
  gc.finalize();
  dp.finalize();
  otherDp.finalize();
  const manifest: Manifest = {
    seed,
    generatedAt: iso(nowMs),
    ...planted,
    books: { breaks: booksPlan.breaks, lookAlikes: booksPlan.lookAlikes },
  };
  return {
    seed,
    merchantId,
    otherMerchantId,
    dpId,
    otherDpId,
    credentials,
    gc,
    dp,
    otherDp,
    products,
    manifest,
    booksPlan,
  };
}

type Worlds = ReturnType<typeof generateWorlds>;

/** What the gift card service holds for our merchant, and the DP service for our DP ID: the tests' ground truth. */
function groundTruthOf({ merchantId, dpId, gc, dp }: Worlds): GroundTruth {
  return {
    merchantId,
    dpId,
    giftCards: gc.cards.items
      .filter((c) => c.owner === merchantId && c.findable)
      .map((c) => c.record)
      .reverse(),
    transactions: gc.entries.items
      .filter((e) => e.owner === merchantId && !e.deleted)
      .map((e) => e.record)
      .reverse(),
    coupons: gc.coupons.items
      .filter((c) => c.owner === merchantId && !c.deleted)
      .map((c) => c.record)
      .reverse(),
    wallets: dp.wallets.map((w) => w.record),
    products: dp.products.items.map((p) => p.record).reverse(),
    orders: dp.orders.items
      .filter((o) => !o.deleted)
      .map((o) => o.record)
      .reverse(),
  };
}

/**
 * Starts the simulator of both services on 127.0.0.1.
 * @returns the base URLs, credentials, ground truth and planted-break manifest, and close().
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clock = clockOf(options);
  const worlds = generateWorlds(options);
  const { seed, gc, dp, products } = worlds;
  const faults = new FaultPlan(options.faults ?? {}, new Random(seed ^ 0x5eed));
  const activity: ActivityContext = { gc, dp, products, random: new Random(seed ^ 0xac7) };
  let timer: NodeJS.Timeout | undefined;
  const servers: Server[] = [];
  const sim: Simulator = {
    giftcardUrl: '',
    dpUrl: '',
    credentials: worlds.credentials,
    seed,
    manifest: worlds.manifest,
    faults,
    requests: [],
    writeAttempts: 0,
    maxLimitRequested: 0,
    latencyMs: options.latencyMs ?? 0,
    truth: () => structuredClone(groundTruthOf(worlds)),
    writeBooks: (dir) => {
      const truth = groundTruthOf(worlds);
      const { merchantId } = worlds;
      const { giftCards, transactions, coupons, orders } = truth;
      return writeBooksExport(
        dir,
        { merchantId, giftCards, transactions, coupons, orders, codes: gc.codes },
        worlds.booksPlan,
      );
    },
    applyActivity: (count) => {
      const done: ActivityKind[] = [];
      for (let i = 0; i < count * 5 && done.length < count; i += 1) {
        const kind = applyActivity(activity, clock());
        if (kind) done.push(kind);
      }
      return done;
    },
    runServiceJobs: () => runServiceJobs(gc, dp, clock()),
    mutate: mutations(gc, dp, clock),
    stopLive: () => {
      if (timer) clearInterval(timer);
    },
    close: async () => {
      if (timer) clearInterval(timer);
      await Promise.all(servers.map(closeServer));
    },
  };
  servers.push(...(await serve(sim, worlds, options)));
  timer = options.live ? setInterval(() => applyActivity(activity, clock()), options.live.intervalMs) : undefined;
  timer?.unref();
  return sim;
}

/** The services' clock: the one they were given (a test's, a bench's), else the system's (`ledger-recon simulate`). */
const clockOf = (options: SimulatorOptions): (() => number) => options.clock ?? Date.now;

/** The services' own jobs at `atMs`: cards and coupons expire, and orders older than an hour are fulfilled. */
function runServiceJobs(gc: GiftCardWorld, dp: DpWorld, atMs: number): number {
  let changed = gc.runExpiryJob(atMs) + gc.expireCoupons(atMs);
  for (const order of dp.orders.items) {
    if (order.pinned || order.record.status !== 'CONFIRMED' || order.createdAtMs > atMs - HOUR) continue;
    dp.fulfil(order, atMs);
    changed += 1;
  }
  return changed;
}

/** Both services listening on 127.0.0.1, their URLs set on `sim`; a port taken stops both. */
async function serve(sim: Simulator, worlds: Worlds, options: SimulatorOptions): Promise<Server[]> {
  const cursors = new CursorCodec();
  const { gc, dp, otherDp, merchantId, otherMerchantId, dpId, otherDpId, credentials } = worlds;
  const gcClients: GiftCardApiClient[] = [
    { ...credentials.giftcard, merchantId, active: true },
    { ...credentials.otherMerchant, merchantId: otherMerchantId, active: true },
    { ...credentials.inactive, merchantId, active: false },
  ];
  const gcState = { world: gc, clients: gcClients, cursors, cardListShape: options.cardListShape ?? 'full' } as const;
  const dpState = {
    worlds: new Map([
      [dpId, dp],
      [otherDpId, otherDp],
    ]),
    clients: [credentials.dp, credentials.otherDp] satisfies DpApiClient[],
    cursors,
  };
  const route = (service: Service, method: string, url: URL, req: IncomingMessage): SimResponse =>
    service === 'giftcard'
      ? handleGiftCardRequest(gcState, method, url, req.headers)
      : handleDpRequest(dpState, method, url, req.headers);
  const handler = requestHandler(sim, options, route);
  const gcServer = createServer(handler('giftcard'));
  const dpServer = createServer(handler('dp'));
  const listening = await Promise.allSettled([
    listen(gcServer, options.port ?? 0),
    listen(dpServer, options.dpPort ?? 0),
  ]);
  const refused = listening.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (refused) {
    // The one that did listen lets go too: a port taken must not leave a half-started simulator serving.
    await Promise.all([gcServer, dpServer].filter((server) => server.listening).map(closeServer));
    throw refused.reason;
  }
  sim.giftcardUrl = `http://127.0.0.1:${(gcServer.address() as AddressInfo).port}`;
  sim.dpUrl = `http://127.0.0.1:${(dpServer.address() as AddressInfo).port}`;
  return [gcServer, dpServer];
}

type Service = 'giftcard' | 'dp';
type Route = (service: Service, method: string, url: URL, req: IncomingMessage) => SimResponse;

/** Each service's request handler: the route's answer, or the fault the plan draws, after the latency. */
function requestHandler(sim: Simulator, options: SimulatorOptions, route: Route) {
  const { faults } = sim;
  const clock = clockOf(options);
  const inFlight = { giftcard: 0, dp: 0 };
  return (service: Service) => (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const startedAt = clock();
    const method = req.method ?? 'GET';
    if (method !== 'GET') sim.writeAttempts += 1;
    const limit = Number(url.searchParams.get('limit'));
    if (Number.isFinite(limit) && limit > sim.maxLimitRequested) sim.maxLimitRequested = limit;
    inFlight[service] += 1;
    const cap = faults.options.maxInFlight;
    const fault = cap !== undefined && inFlight[service] > cap ? 'throttle' : faults.next(service, url.pathname);
    const log = (status: number): void => {
      if (options.recordRequests)
        sim.requests.push({ service, method, path: url.pathname, query: url.search, startedAt, status, fault });
    };
    res.on('close', () => {
      inFlight[service] -= 1;
    });
    req.resume();
    const respond = (): void =>
      answer(
        fault,
        service,
        faults.options,
        res,
        () => {
          const response = route(service, method, url, req);
          log(response.status);
          return response;
        },
        log,
        clock,
      );
    if (sim.latencyMs > 0) setTimeout(respond, sim.latencyMs);
    else respond();
  };
}

/** Sends the route's answer, or what the fault makes of it. */
function answer(
  fault: FaultKind | undefined,
  service: Service,
  options: FaultOptions,
  res: ServerResponse,
  routed: () => SimResponse,
  log: (status: number) => void,
  clock: () => number,
): void {
  const send = (): void => {
    const response = routed();
    sendJson(res, response.status, response.body);
  };
  switch (fault) {
    case undefined:
      return send();
    case 'slow':
      setTimeout(send, options.slowMs ?? 300);
      return;
    case 'throttle': {
      const seconds = options.retryAfterSeconds ?? 1;
      const retryAfter = options.retryAfterAsDate ? new Date(clock() + seconds * 1000).toUTCString() : String(seconds);
      log(429);
      const body =
        service === 'giftcard'
          ? { success: false, errCode: 'TOO_MANY_REQUESTS', message: 'rate limit exceeded' }
          : { error: 'rate limit exceeded', errCode: 'TOO_MANY_REQUESTS' };
      return sendJson(res, 429, body, { 'retry-after': retryAfter });
    }
    case 'error500':
      log(500);
      return sendJson(
        res,
        500,
        service === 'giftcard'
          ? { success: false, errCode: 'INTERNAL_SERVER_ERROR', message: 'platform fault' }
          : { error: 'internal error', errCode: 'INTERNAL_SERVER_ERROR' },
      );
    case 'html503':
      log(503);
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
      return;
    case 'reset':
      log(0);
      res.req.socket.destroy();
      return;
    case 'truncate': {
      const response = routed();
      const text = JSON.stringify(response.body);
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      return;
    }
  }
}

function mutations(gc: GiftCardWorld, dp: DpWorld, clock: () => number): Mutations {
  /** A lookup by ID in one of the worlds' collections that throws when the ID is unknown. */
  const finder =
    <T>(items: { get(id: string): T | undefined }, what: string) =>
    (id: string): T => {
      const found = items.get(id);
      if (!found) throw new Error(`no ${what} ${id}`);
      return found;
    };
  const entry = finder(gc.entries, 'ledger entry');
  const coupon = finder(gc.coupons, 'coupon');
  const order = finder(dp.orders, 'order');
  const card = finder(gc.cards, 'card');
  return {
    rewriteEntry: (id, fields) => Object.assign(entry(id).record, fields),
    removeEntry: (id) => {
      entry(id).deleted = true;
    },
    restoreEntry: (id) => {
      entry(id).deleted = false;
    },
    hideEntryById: (id) => {
      entry(id).hiddenById = true;
    },
    writeEntry: (id, { type, amountCents, atMs, referenceId, beforeCents }) => {
      const found = card(id);
      const before = beforeCents ?? found.balance;
      const after = type === 'DEBIT' ? before - amountCents : before + amountCents;
      return gc.writeEntry(found, atMs, {
        type,
        amount: amountCents,
        before,
        after,
        referenceId: referenceId ?? `ORDER-LATE-${id.slice(0, 8)}-${atMs}`,
      }).record.transactionId;
    },
    setCouponListed: (id, listed) => {
      coupon(id).deleted = !listed;
    },
    editOrder: (id, edit) => edit(order(id).record),
    removeOrder: (id) => {
      order(id).deleted = true;
    },
    setCoupon: (id, fields) => {
      Object.assign(coupon(id).record, fields);
    },
    moveWallet: (walletID, deltaCents) => {
      const wallet = dp.wallets.find((w) => w.record.walletID === walletID);
      if (!wallet) throw new Error(`no wallet ${walletID}`);
      dp.moveWallet(wallet, deltaCents);
    },
    setCard: (id, fields) => {
      const found = card(id);
      Object.assign(found.record, fields);
      if (fields.remainingBalance !== undefined) found.balance = Math.round(fields.remainingBalance * 100);
    },
    breakBalance: (id, { offByCents, debitCents }) => {
      const found = card(id);
      found.pinned = true;
      const atMs = clock();
      if (debitCents !== undefined) gc.debit(found, atMs, debitCents);
      // The ledger keeps its balance (found.balance); only the card's own figure is off.
      found.record.remainingBalance = wire(found.balance + offByCents);
      found.record.version += 1;
      found.record.updatedAt = iso(atMs);
    },
    repairBalance: (id) => {
      const found = card(id);
      found.record.remainingBalance = wire(found.balance);
      found.record.version += 1;
      found.record.updatedAt = iso(clock());
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
