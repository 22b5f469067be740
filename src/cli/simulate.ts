import { outputTarget, writeAtomically } from '../paths.js';
import { FAULT_KINDS, type FaultKind } from '../sim/faults.js';
import { AGED_CARDS, SIZE_PRESETS, type SizePreset, type WorldSize } from '../sim/generator.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../sim/simulator.js';
import { ConfigError } from '../errors.js';

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
  write?: (text: string) => void;
  /** Resolves when the simulator should stop (default: SIGINT or SIGTERM). */
  until?: Promise<void>;
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

/** `ledger-recon simulate`: serves both services on loopback until stopped. */
export async function simulate(options: SimulateOptions): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const sim = await startSimulator(simulatorOptions(options)).catch(
    (error: NodeJS.ErrnoException & { port?: number }) => {
      if (error.code !== 'EADDRINUSE') throw error;
      throw new ConfigError(
        '--port',
        `port ${error.port ?? options.port} on 127.0.0.1 is in use (another simulator, or another program): give --port and --dp-port other ports, or 0 for free ones`,
      );
    },
  );
  if (options.manifest) {
    const target = outputTarget('--manifest', options.manifest);
    const text = `${JSON.stringify(sim.manifest, null, 2)}\n`;
    if (target.kind === 'stdout')
      throw new ConfigError(
        '--manifest',
        "--manifest -: standard output carries the simulator's lines: give --manifest a file",
      );
    writeAtomically(target.path, text);
  }
  if (options.books) sim.writeBooks(options.books);
  // --quiet: the six export lines alone, for `ledger-recon simulate --quiet > sim.env` and a script.
  const described = describe(sim, options);
  write(
    options.quiet
      ? `${described
          .split('\n')
          .filter((line) => line.startsWith('export '))
          .join('\n')}\n`
      : described,
  );
  if (options.control) listenForControl(sim, write);
  await (options.until ?? untilSignal());
  await sim.close();
  // The control channel would keep the process alive after the servers closed.
  if (options.control) process.stdin.destroy();
}

/**
 * For benchmarks driving a simulator in another process: each line `activity N` on stdin
 * applies N legal operations at once and answers `applied N`; `latency MS` sets the delay
 * before every answer and answers `latency MS`.
 */
function listenForControl(sim: Simulator, write: (text: string) => void): void {
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      const match = /^activity (\d+)$/.exec(line);
      if (match) {
        const applied = sim.applyActivity(Number(match[1])).length;
        // Under --expose-gc, settle the heap first: a multi-GB world mid-collection would
        // otherwise slow the next reads and be mistaken for the client's cost.
        (globalThis as { gc?: () => void }).gc?.();
        write(`applied ${applied}\n`);
      }
      const latency = /^latency (\d+)$/.exec(line);
      if (latency) {
        sim.latencyMs = Number(latency[1]);
        write(`latency ${sim.latencyMs}\n`);
      }
      newline = buffered.indexOf('\n');
    }
  });
}

function describe(sim: Simulator, options: SimulateOptions): string {
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
  return `${lines.join('\n')}\n`;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
