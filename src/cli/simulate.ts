import { type SimulateOptions, controlAnswer, serveSimulator } from '../app/simulate.js';
import type { Simulator } from '../sim/simulator.js';

/** `ledger-recon simulate` (src/app/simulate.ts): serves both services on loopback until stopped. */
export async function simulate(
  options: SimulateOptions & {
    write?: (text: string) => void;
    /** Resolves when the simulator should stop (default: SIGINT or SIGTERM). */
    until?: Promise<void>;
  },
): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const { sim, lines } = await serveSimulator(options);
  // --quiet: the six export lines alone, for `ledger-recon simulate --quiet > sim.env` and a script.
  write(`${(options.quiet ? lines.filter((line) => line.startsWith('export ')) : lines).join('\n')}\n`);
  if (options.control) listenForControl(sim, write);
  await (options.until ?? untilSignal());
  await sim.close();
  // The control channel would keep the process alive after the servers closed.
  if (options.control) process.stdin.destroy();
}

/** For benchmarks driving a simulator in another process: a control line on stdin each, answered on stdout. */
function listenForControl(sim: Simulator, write: (text: string) => void): void {
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const answer = controlAnswer(sim, buffered.slice(0, newline).trim());
      if (answer !== undefined) write(`${answer}\n`);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
  });
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
