import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/db/mirror.js';
import { Random } from '../../src/sim/random.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { mirrorPicture, truthPicture } from '../support/mirror.js';


let sim: Simulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // Slow responses stretch the sync over about a second, so a kill lands mid-walk.
  sim = await startSimulator({ seed: 41, size: 'small', plant: true, faults: { rate: 0.6, kinds: ['slow'], slowMs: 60 } });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-crash-'));
  env = simulatorEnv(sim);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a sync killed with SIGKILL at random moments', () => {
  it('completes on the next run with the mirror equal to the ground truth, and intact', async () => {
    const db = join(dir, 'crash.db');
    const random = new Random(20261122);
    let kills = 0;
    for (let round = 0; round < 12 && kills < 6; round += 1) {
      const delay = random.int(150, 700); // the CLI needs ~150 ms to start
      const killed = await runCli(['sync', '--db', db, '--json', ...(round % 2 === 1 ? ['--full'] : [])], env, { killAfterMs: delay });
      if (killed.signal === 'SIGKILL') kills += 1;
      const rerun = await runCli(['sync', '--db', db, '--json'], env);
      expect(rerun.stderr).toBe('');
      expect(rerun.status).toBe(0);
      expect(JSON.parse(rerun.stdout)).toMatchObject({ completed: true });
      const mirror = openMirror(db);
      try {
        expect(mirror.sqlite.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
        expect(mirrorPicture(mirror.sqlite)).toEqual(truthPicture(sim.truth()));
        expect(mirror.sqlite.prepare("SELECT COUNT(*) FROM sync_runs WHERE status = 'running'").pluck().get()).toBe(0);
      } finally {
        mirror.close();
      }
      expect(existsSync(`${db}.lock`)).toBe(false);
    }
    expect(kills).toBe(6);
  }, 120_000);
});
