import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorHolder, openForReading, openMirror } from '../../src/db/mirror.js';
import { Random } from '../../src/sim/random.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { BACKENDS } from '../support/backends.js';
import { mirrorPicture, pictureOf, truthPicture } from '../support/mirror.js';

let sim: Simulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // Slow responses stretch the sync over about a second, so a kill lands mid-walk.
  sim = await startSimulator({
    seed: 41,
    size: 'small',
    plant: true,
    faults: { rate: 0.6, kinds: ['slow'], slowMs: 60 },
  });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-crash-'));
  env = simulatorEnv(sim);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(BACKENDS)('a sync killed with SIGKILL at random moments ($name)', (backend) => {
  it.skipIf(!backend.available)(
    'completes on the next run with the mirror equal to the ground truth, and intact',
    async () => {
      const location = backend.location();
      const db = backend.name === 'sqlite' ? join(dir, 'crash', 'crash.db') : location.db;
      const random = new Random(20261122);
      let kills = 0;
      for (let round = 0; round < 12 && kills < 6; round += 1) {
        const delay = random.int(150, 700); // the CLI needs ~150 ms to start
        const killed = await runCli(['sync', '--db', db, '--json', ...(round % 2 === 1 ? ['--full'] : [])], env, {
          killAfterMs: delay,
        });
        if (killed.signal === 'SIGKILL') kills += 1;
        const rerun = await runCli(['sync', '--db', db, '--json'], env);
        // A kill inside the first sync's ledger load is said on one line: its indexes are built first.
        expect(rerun.stderr).toMatch(
          /^(ledger-recon: a first sync stopped while loading the ledger: building its indexes over [\d,]+ entries first \(about 2\.5 s a million\)\n)?$/,
        );
        expect(rerun.status).toBe(0);
        expect(JSON.parse(rerun.stdout)).toMatchObject({ completed: true });
        const mirror = await openForReading(db);
        try {
          expect(await mirror.integrity()).toBe('ok');
          expect(await pictureOf(mirror)).toEqual(truthPicture(sim.truth()));
          expect(
            await mirror.connection.pluck<number>("SELECT COUNT(*) FROM sync_runs WHERE status = 'running'").get(),
          ).toBe(0);
        } finally {
          await mirror.close();
        }
        expect(await mirrorHolder(db)).toBeUndefined();
        if (backend.name === 'sqlite') expect(existsSync(`${db}.lock`)).toBe(false);
      }
      expect(kills).toBe(6);
      await location.cleanup();
    },
    120_000,
  );
});

describe('an incremental sync killed with SIGKILL after the services moved', () => {
  it('leaves no snapshot older than its ledger: the next sync reads every such card again, and every remainingBalance equals the service', async () => {
    const moving = await startSimulator({
      seed: 42,
      size: 'small',
      faults: { rate: 0.6, kinds: ['slow'], slowMs: 40 },
    });
    try {
      const env = simulatorEnv(moving);
      const db = join(dir, 'incremental', 'incremental.db');
      const first = await runCli(['sync', '--db', db, '--json'], env);
      expect(first.status, first.stderr).toBe(0);
      const random = new Random(20261125);
      let kills = 0;
      for (let round = 0; round < 10 && kills < 6; round += 1) {
        moving.applyActivity(400);
        // The services keep moving while the killed sync reads them, and stand still for the next.
        const live = setInterval(() => moving.applyActivity(3), 2);
        const killed = await runCli(['sync', '--db', db, '--json'], env, { killAfterMs: random.int(150, 600) }).finally(
          () => clearInterval(live),
        );
        if (killed.signal === 'SIGKILL') kills += 1;
        const rerun = await runCli(['sync', '--db', db, '--json'], env);
        expect(rerun.status, rerun.stderr).toBe(0);
        const mirror = openMirror(db);
        try {
          expect(mirror.sqlite.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
          const picture = mirrorPicture(mirror.sqlite);
          const truth = truthPicture(moving.truth());
          const stale = Object.entries(truth.giftCards).filter(
            ([id, figures]) =>
              JSON.stringify(picture.giftCards[id]?.slice(0, 3)) !== JSON.stringify(figures.slice(0, 3)),
          );
          expect(
            stale.map(([id]) => id),
            `round ${round}`,
          ).toEqual([]);
        } finally {
          mirror.close();
        }
        const check = await runCli(['check', '--db', db, '--json'], env);
        expect(JSON.parse(check.stdout), `round ${round}: ${check.stdout}`).toMatchObject({
          verdict: 'RECONCILED',
          bySeverity: { error: 0, warning: 0 },
        });
      }
      expect(kills).toBeGreaterThanOrEqual(4);
    } finally {
      await moving.close();
    }
  }, 180_000);
});
