import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/db/mirror.js';
import { InterruptedError } from '../../src/errors.js';
import { reconcile } from '../../src/findings/reconcile.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices, type TestServices } from '../support/simulator.js';
import { mirrorAt, numberOfMirror, openMirrorAt } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let services: TestServices;
let mirror: Mirror;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-interrupted-check-'));
  services = await startServices({ size: 'small', seed: 5 });
  mirror = await openMirrorAt(mirrorAt(dir));
  await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
});
afterEach(async () => {
  await mirror.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a check told to stop', () => {
  it('stops at the next turn of its walk of the ledger (or between its checks), which lets the event loop turn, and records no run', async () => {
    const controller = new AbortController();
    // A timer fires only when the event loop turns: on SQLite, the walk's reads never wait on it.
    const timer = setTimeout(() => controller.abort(new InterruptedError('SIGINT', 'interrupted (SIGINT)')), 0);
    try {
      await expect(reconcile({ nowMs: testNow(), mirror, signal: controller.signal })).rejects.toBeInstanceOf(
        InterruptedError,
      );
    } finally {
      clearTimeout(timer);
    }
    expect(await numberOfMirror(mirrorAt(dir), "SELECT COUNT(*) FROM check_runs WHERE status = 'completed'")).toBe(0);
    // Not told to stop, it runs whole.
    const { summary } = await reconcile({ nowMs: testNow(), mirror, signal: new AbortController().signal });
    expect(summary.cards).toBe(await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM gift_cards'));
  });
});
