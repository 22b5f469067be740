/**
 * Metrics for the job's monitor (operator issue, item 7): `run --push-metrics URL` against a real
 * Prometheus Pushgateway started here (Debian's prometheus-pushgateway), and `--metrics-file`
 * for node_exporter's textfile collector. Every figure equals the night's JSON record's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalTextCents } from '../../src/money.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { hasProgram } from '../support/programs.js';
import { testNow } from '../support/test-clock.js';
import { nightOf, testClock } from '../support/app.js';
import { reportNightMetrics } from '../../src/app/metrics.js';
import type { Config } from '../../src/config.js';
import { dpConfig, giftcardConfig } from '../support/simulator.js';

const HAS_PUSHGATEWAY = hasProgram('prometheus-pushgateway', 'prometheus-pushgateway');

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** One sample of the text format: its name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text-format page (comments left out). */
function samplesOf(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
      );
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

/** The value of the one sample named so whose labels include `labels`. */
function sampled(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

const cents = (text: string): number => {
  const parsed = decimalTextCents(text.replace(/,/g, ''));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.cents;
};

let dir: string;
let gateway: ChildProcess | undefined;
let gatewayUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-metrics-'));
  if (!HAS_PUSHGATEWAY) return;
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  gateway = spawn('prometheus-pushgateway', [`--web.listen-address=127.0.0.1:${port}`, '--persistence.file='], {
    stdio: 'ignore',
  });
  for (let tries = 0; ; tries += 1) {
    const ready = await fetch(`${gatewayUrl}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (tries > 100) throw new Error('the Pushgateway did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 30_000);

afterAll(() => {
  gateway?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** What the Pushgateway serves for this job and mirror. */
async function pushed(mirror: string): Promise<Sample[]> {
  const page = await (await fetch(`${gatewayUrl}/metrics`)).text();
  return samplesOf(page).filter((s) => s.labels['job'] === 'ledger_recon' && s.labels['mirror'] === mirror);
}

describe.runIf(HAS_PUSHGATEWAY)('run --push-metrics and --metrics-file', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: 'tiny', plant: true });
  });
  afterAll(async () => sim.close());

  it("pushes and writes the night's figures, equal to its JSON record; a failed night keeps the last success", async () => {
    const db = join(dir, 'planted', 'planted.db');
    const file = join(dir, 'textfile', 'ledger_recon.prom');
    mkdirSync(join(dir, 'textfile'));
    const before = Math.floor(testNow() / 1000);
    // The night in this process, then its metrics as `run --push-metrics URL --metrics-file FILE --json` reports them.
    const metered = async (config?: Config) => {
      const { result } = await nightOf(sim, db, join(dir, 'out'), config ? { config } : {});
      const warned: string[] = [];
      await reportNightMetrics(
        { pushMetrics: gatewayUrl, metricsFile: file, json: true },
        result.record,
        testClock,
        (line) => warned.push(line),
      );
      expect(warned).toEqual([]);
      return result.record;
    };
    const night = await metered();
    expect(night.exitCode).toBe(1);
    const record = night as unknown as {
      mirror: string;
      exitCode: number;
      bySeverity: Record<string, number>;
      moneyAtStake: Record<string, string>;
      liability: Record<string, { cardsRemaining: string; difference: string }>;
      sync: { records: Record<string, number>; quarantined: number };
      stagesMs: Record<string, number>;
    };

    for (const samples of [await pushed(record.mirror), samplesOf(readFileSync(file, 'utf8'))]) {
      expect(sampled(samples, 'ledger_recon_exit_code')).toBe(1);
      expect(sampled(samples, 'ledger_recon_verdict', { verdict: 'BREAKS' })).toBe(1);
      expect(sampled(samples, 'ledger_recon_last_success_timestamp_seconds')).toBeGreaterThanOrEqual(before);
      for (const [severity, count] of Object.entries(record.bySeverity))
        expect(sampled(samples, 'ledger_recon_findings', { severity })).toBe(count);
      expect(Object.keys(record.moneyAtStake).length).toBeGreaterThan(0);
      for (const [currency, amount] of Object.entries(record.moneyAtStake))
        expect(sampled(samples, 'ledger_recon_money_at_stake_cents', { currency })).toBe(cents(amount));
      for (const [currency, row] of Object.entries(record.liability)) {
        expect(sampled(samples, 'ledger_recon_liability_cents', { currency })).toBe(cents(row.cardsRemaining));
        expect(sampled(samples, 'ledger_recon_rollforward_difference_cents', { currency })).toBe(cents(row.difference));
      }
      for (const [resource, count] of Object.entries(record.sync.records))
        expect(sampled(samples, 'ledger_recon_records_read', { resource })).toBe(count);
      for (const stage of ['sync', 'check', 'report'])
        expect(sampled(samples, 'ledger_recon_duration_seconds', { stage })).toBeGreaterThanOrEqual(0);
    }
    const success = sampled(await pushed(record.mirror), 'ledger_recon_last_success_timestamp_seconds');

    // A night that cannot finish (the credentials are refused): exit 2, its failure pushed, the last success kept.
    const refused = { ...sim.credentials.giftcard, clientSecret: 'not-the-secret' };
    const failed = await metered({ giftcard: giftcardConfig(sim, refused), dp: dpConfig(sim) });
    expect(failed.exitCode).toBe(2);
    for (const samples of [await pushed(record.mirror), samplesOf(readFileSync(file, 'utf8'))]) {
      expect(sampled(samples, 'ledger_recon_exit_code')).toBe(2);
      expect(sampled(samples, 'ledger_recon_verdict', { verdict: 'FAILED' })).toBe(1);
      expect(sampled(samples, 'ledger_recon_verdict', { verdict: 'BREAKS' })).toBeUndefined();
      expect(sampled(samples, 'ledger_recon_last_failure_timestamp_seconds')).toBeGreaterThanOrEqual(before);
      expect(sampled(samples, 'ledger_recon_last_success_timestamp_seconds')).toBe(success);
    }
    expect(readFileSync(file, 'utf8')).not.toContain('not-the-secret');
  }, 120_000);

  it("keeps the night's exit code when the Pushgateway is down, with one line saying so", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const healthy = await startSimulator({ seed: 32, size: 'tiny' });
    try {
      // The night in this process, then its metrics pushed as `run --push-metrics URL` pushes them: what it warns.
      const pushedTo = async (url: string) => {
        const { result } = await nightOf(healthy, join(dir, 'healthy', 'healthy.db'), join(dir, 'healthy'));
        expect(result.record.exitCode).toBe(0);
        const warned: string[] = [];
        await reportNightMetrics({ pushMetrics: url }, result.record, testClock, (line) => warned.push(line));
        return warned;
      };
      const lines = (await pushedTo(closed)).join('').trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^ledger-recon: metrics not pushed to ${closed}/metrics/job/ledger_recon/mirror@base64/\\S+: ECONNREFUSED`,
        ),
      );
      expect(lines[0]).toContain("the night's result stands");
      // A Pushgateway behind Basic authentication: its password never printed.
      const guarded = closed.replace('//', '//monitor:Push-Secret-81@');
      const again = { stderr: (await pushedTo(guarded)).join('') };
      expect(again.stderr).toContain(`metrics not pushed to ${closed}/metrics/job/ledger_recon/`);
      expect(again.stderr).not.toMatch(/Push-Secret-81|monitor:/);
    } finally {
      await healthy.close();
    }
  }, 120_000);

  it('refuses a --metrics-file that is a folder before the night, and a --push-metrics that is not a URL', async () => {
    const folder = await runCli(
      ['run', '--db', join(dir, 'never', 'never.db'), '--metrics-file', dir, '--out', join(dir, 'never')],
      simulatorEnv(sim),
    );
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain(`--metrics-file ${dir}: a folder, not a file an output may replace`);
    // One JSON record a night on standard output: the metrics may not follow it there.
    const both = await runCli(['run', '--json', '--metrics-file', '-'], simulatorEnv(sim));
    expect(both.status).toBe(2);
    expect(both.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(both.stdout)).toMatchObject({ verdict: 'FAILED', error: { code: 'CONFIG' } });
    expect(both.stderr).toContain('--metrics-file - and --json both want standard output');
    const url = await runCli(['run', '--push-metrics', 'pushgateway:9091'], simulatorEnv(sim));
    expect(url.status).toBe(2);
    expect(url.stderr).toContain('--push-metrics needs an http:// or https:// URL');
  }, 60_000);
});
