/**
 * The simulator as a job: both services served on 127.0.0.1 from the settings a command gives
 * (a size, faults, live activity), the planted breaks' manifest and the merchant's books written
 * beside it, what it says of itself, and the control lines a benchmark drives it with.
 */
import { ConfigError } from '../errors.js';
import { outputTarget, writeAtomically } from '../paths.js';
import { FAULT_KINDS, type FaultKind } from '../sim/faults.js';
import { AGED_CARDS, SIZE_PRESETS, type SizePreset, type WorldSize } from '../sim/generator.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/simulator.js';

export interface SimulateOptions {
  seed: number;
  port: number;
  dpPort: number;
  /** The export lines alone. */
  quiet?: boolean;
  size: string;
  cards?: number;
  entriesPerCard?: number;
  coupons?: number;
  orders?: number;
  products?: number;
  plant?: boolean;
  manifest?: string;
  /** Write the merchant's own exports (and their maps) into this folder. */
  books?: string;
  cardList: string;
  faults?: number;
  faultKinds?: string;
  retryAfter?: number;
  slowMs?: number;
  maxInFlight?: number;
  live?: number;
  latency?: number;
  control?: boolean;
}

/** Turns the command's flags into simulator options. @throws ConfigError on a bad value. */
export function simulatorOptions(options: SimulateOptions): SimulatorOptions {
  if (!(options.size in SIZE_PRESETS))
    throw new ConfigError('--size', `--size must be one of ${Object.keys(SIZE_PRESETS).join(', ')}`);
  const size: Partial<WorldSize> = {
    ...SIZE_PRESETS[options.size as SizePreset],
    agedCards: AGED_CARDS[options.size as SizePreset],
  };
  for (const key of ['cards', 'entriesPerCard', 'coupons', 'orders', 'products'] as const) {
    const value = options[key];
    if (value !== undefined) size[key] = value;
  }
  if (options.cardList !== 'full' && options.cardList !== 'minimal')
    throw new ConfigError('--card-list', '--card-list must be full or minimal');
  const kinds = options.faultKinds?.split(',').map((k) => k.trim()) ?? [...FAULT_KINDS];
  const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new ConfigError(
      '--fault-kinds',
      `--fault-kinds: unknown ${unknown.join(', ')}; known: ${FAULT_KINDS.join(', ')}`,
    );
  return {
    seed: options.seed,
    port: options.port,
    dpPort: options.dpPort,
    size,
    plant: options.plant ?? false,
    cardListShape: options.cardList,
    faults: {
      rate: options.faults ?? 0,
      kinds: kinds as FaultKind[],
      ...(options.retryAfter !== undefined ? { retryAfterSeconds: options.retryAfter } : {}),
      ...(options.slowMs !== undefined ? { slowMs: options.slowMs } : {}),
      ...(options.maxInFlight !== undefined ? { maxInFlight: options.maxInFlight } : {}),
    },
    ...(options.live !== undefined ? { live: { intervalMs: options.live } } : {}),
    ...(options.latency !== undefined ? { latencyMs: options.latency } : {}),
  };
}

/**
 * Starts the simulator, writes its manifest (`--manifest`) and the merchant's books (`--books`).
 * @returns it, and its lines: what it serves, where, and the credentials to export.
 * @throws ConfigError for a port in use or a manifest on standard output.
 */
export async function serveSimulator(options: SimulateOptions): Promise<{ sim: Simulator; lines: string[] }> {
  const sim = await startSimulator(simulatorOptions(options)).catch(
    (error: NodeJS.ErrnoException & { port?: number }) => {
      if (error.code !== 'EADDRINUSE') throw error;
      throw new ConfigError(
        '--port',
        `port ${error.port ?? options.port} on 127.0.0.1 is in use (another simulator, or another program): give --port and --dp-port other ports, or 0 for free ones`,
      );
    },
  );
  try {
    if (options.manifest) {
      const target = outputTarget('--manifest', options.manifest);
      if (target.kind === 'stdout')
        throw new ConfigError(
          '--manifest',
          "--manifest -: standard output carries the simulator's lines: give --manifest a file",
        );
      writeAtomically(target.path, `${JSON.stringify(sim.manifest, null, 2)}\n`);
    }
    if (options.books) sim.writeBooks(options.books);
  } catch (error) {
    await sim.close();
    throw error;
  }
  return { sim, lines: describe(sim, options) };
}

/**
 * A benchmark's control line: `activity N` applies N legal operations at once and answers
 * `applied N`; `latency MS` sets the delay before every answer and answers `latency MS`.
 * @returns the answer, or undefined for a line it does not know.
 */
export function controlAnswer(sim: Simulator, line: string): string | undefined {
  const match = /^activity (\d+)$/.exec(line);
  if (match) {
    const applied = sim.applyActivity(Number(match[1])).length;
    // Under --expose-gc, settle the heap first: a multi-GB world mid-collection would
    // otherwise slow the next reads and be mistaken for the client's cost.
    (globalThis as { gc?: () => void }).gc?.();
    return `applied ${applied}`;
  }
  const latency = /^latency (\d+)$/.exec(line);
  if (latency) {
    sim.latencyMs = Number(latency[1]);
    return `latency ${sim.latencyMs}`;
  }
  return undefined;
}

function describe(sim: Simulator, options: SimulateOptions): string[] {
  const truth = sim.truth();
  const { giftcard, dp } = sim.credentials;
  const lines = [
    `ledger-recon simulator, seed ${sim.seed}: ${truth.giftCards.length} gift cards, ${truth.transactions.length} ledger entries, ${truth.coupons.length} coupons, ${truth.orders.length} DP orders`,
    sim.manifest.breaks.length > 0
      ? `planted: ${sim.manifest.breaks.length} breaks and ${sim.manifest.lookAlikes.length} legal look-alikes${options.manifest ? ` (manifest: ${options.manifest})` : ''}`
      : 'planted: nothing (add --plant)',
    ...(options.books
      ? [
          `the merchant's books: ${options.books} (tenders, coupon uses, DP purchases, each with its map; ${sim.manifest.books.breaks.length} book breaks planted with --plant)`,
        ]
      : []),
    '',
    `gift card service         ${sim.giftcardUrl}`,
    `delivery partner service  ${sim.dpUrl}`,
    '',
    'Demo credentials (simulator only):',
    `export GIFTCARD_API_URL=${sim.giftcardUrl}`,
    `export GIFTCARD_CLIENT_ID=${giftcard.clientId}`,
    `export GIFTCARD_CLIENT_SECRET=${giftcard.clientSecret}`,
    `export DP_API_URL=${sim.dpUrl}`,
    `export DP_CLIENT_ID=${dp.clientId}`,
    `export DP_CLIENT_SECRET=${dp.clientSecret}`,
    '',
    'Serving until Ctrl-C.',
  ];
  return lines;
}
