/**
 * Installed like a product (operator issue, item 2): the checkout packed and installed as a
 * package into a prefix of its own by the Dockerfile's own build steps (no Docker daemon needed),
 * then run as a server would: from another folder, with the mirror and the reports where
 * docs/install.md says (the user's data folder, or LEDGER_RECON_HOME on a volume), as the
 * image's non-root user when this test runs as root.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { cleanEnv, simulatorEnv, type CliResult } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** One instruction of a Dockerfile, its continuation lines joined. */
interface Instruction {
  keyword: string;
  argument: string;
}

/** The Dockerfile's stages, each a list of instructions (comments and blank lines left out). */
function dockerfileStages(): Instruction[][] {
  const joined = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const instruction = { keyword: match[1] ?? '', argument: (match[2] ?? '').trim() };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** Runs a program to its end, as `uid` when given. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number },
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** Whether any user may run `file`: every folder above it searchable by others, the file executable by them. */
function runnableByAnyone(file: string): boolean {
  const real = realpathSync(file);
  let folder = dirname(real);
  while (folder !== dirname(folder)) {
    if ((statSync(folder).mode & 0o001) === 0) return false;
    folder = dirname(folder);
  }
  return (statSync(real).mode & 0o005) === 0o005;
}

/** `env` without any location setting of this machine's, plus `extra`. */
function withoutLocations(env: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const { LEDGER_RECON_HOME: _home, LEDGER_RECON_DB: _db, LEDGER_RECON_OUT: _out, ...rest } = env;
  return { ...rest, ...extra };
}

const stages = dockerfileStages();
const [buildStage = [], runtimeStage = []] = stages;
const all = (stage: Instruction[], keyword: string) =>
  stage.filter((i) => i.keyword === keyword).map((i) => i.argument);
const envOf = (stage: Instruction[]): Record<string, string> =>
  Object.fromEntries(
    all(stage, 'ENV').flatMap((argument) =>
      [...argument.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
    ),
  );

let dir: string;
let prefix: string;
let sim: Simulator;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-install-'));
  // The image's user must read the installed package (mkdtemp makes a folder for its owner alone).
  chmodSync(dir, 0o755);
  prefix = join(dir, 'opt', 'ledger-recon');
  sim = await startSimulator({ seed: 7, size: 'tiny' });
  // The build stage as Docker would run it, in a build context of the test's own: what its COPY
  // lines copy from the checkout, into its WORKDIR (never the checkout itself: its `npm run build`
  // would rewrite the dist/ every other test's CLI runs from, mid-run), and /opt/ledger-recon in a
  // folder of the test's own. Its toolchain (apt-get) is this machine's; its `npm ci` is the
  // checkout's own node_modules, linked.
  const work = join(dir, 'build');
  mkdirSync(work);
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
  for (const copy of all(buildStage, 'COPY')) {
    const words = copy.split(/\s+/);
    const destination = words.pop() ?? '.';
    for (const source of words)
      cpSync(
        join(ROOT, source),
        destination.endsWith('/') ? join(work, destination, source) : join(work, destination),
        {
          recursive: true,
        },
      );
  }
  for (const step of all(buildStage, 'RUN')) {
    if (/^apt-get\b/.test(step) || /^npm ci\b/.test(step)) continue;
    const result = await run('sh', ['-c', step.replaceAll('/opt/ledger-recon', prefix)], {
      cwd: work,
      env: { ...process.env, npm_config_prefer_offline: 'true', npm_config_loglevel: 'error' },
    });
    expect(result.status, `${step}\n${result.stderr}`).toBe(0);
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Dockerfile', () => {
  it('has a build stage and a runtime stage that copies the installed package alone', () => {
    expect(stages).toHaveLength(2);
    expect(all(buildStage, 'RUN')).toContain('sh scripts/install-prefix.sh /opt/ledger-recon');
    expect(all(runtimeStage, 'COPY')).toEqual(['--from=build /opt/ledger-recon /opt/ledger-recon']);
  });

  it('installs the dependencies in a layer of their own, from the lock file alone, and never copies the checkout whole', () => {
    const copies = all(buildStage, 'COPY');
    expect(copies[0]).toBe('package.json package-lock.json ./');
    const install = buildStage.findIndex((i) => i.keyword === 'RUN' && /^npm ci\b/.test(i.argument));
    const firstSource = buildStage.findIndex((i) => i.keyword === 'COPY' && i.argument.startsWith('src '));
    expect(install).toBeGreaterThan(0);
    expect(firstSource).toBeGreaterThan(install);
    expect(copies.some((argument) => /^\.\s/.test(argument))).toBe(false);
    // Whatever may hold a secret stays out of the build context, should a COPY ever widen.
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const pattern of ['*.env', '.env*', '*.pem', '*.key', '*.db', 'node_modules', '.git'])
      expect(ignored, pattern).toContain(pattern);
  });

  it('runs the job as a non-root user with the mirror and the reports on a volume', () => {
    const user = all(runtimeStage, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)$/);
    const home = envOf(runtimeStage)['LEDGER_RECON_HOME'];
    expect(home).toBeDefined();
    expect(all(runtimeStage, 'VOLUME')).toEqual([home]);
    expect(all(runtimeStage, 'ENTRYPOINT')).toEqual(['["ledger-recon"]']);
    expect(envOf(runtimeStage)['PATH']).toMatch(/^\/opt\/ledger-recon\/bin:/);
  });
});

describe('the installed package', () => {
  /** The installed program as the image runs it: its ENTRYPOINT, through the package's bin link. */
  const bin = () => join(prefix, 'bin', 'ledger-recon');

  it('runs the demo and a night from another folder, the mirror and reports in the user data folder', async () => {
    const home = join(dir, 'home');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const env = withoutLocations(cleanEnv(), { HOME: home, XDG_DATA_HOME: '' });
    const data = join(home, '.local', 'share', 'ledger-recon');

    const demo = await run(bin(), ['demo'], { cwd: elsewhere, env });
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain(join(data, 'reports', 'demo'));
    expect(existsSync(join(data, 'data', 'demo', 'ledger.db'))).toBe(true);

    const nightEnv = withoutLocations(simulatorEnv(sim), { HOME: home, XDG_DATA_HOME: '' });
    const night = await run(bin(), ['run', '--quiet'], { cwd: elsewhere, env: nightEnv });
    expect(night.status, night.stderr).toBe(0);
    expect(existsSync(join(data, 'data', 'ledger.db'))).toBe(true);
    expect(existsSync(join(data, 'reports'))).toBe(true);

    // The README's links into docs/ hold in an installed copy.
    expect(existsSync(join(prefix, 'lib', 'node_modules', 'ledger-recon', 'docs', 'operations.md'))).toBe(true);
    const doctor = await run(bin(), ['doctor'], { cwd: elsewhere, env: nightEnv });
    expect(doctor.stdout).toContain(`installed: under the user's data folder ${data}`);
    expect(doctor.stdout).toContain(`mirror ${join(data, 'data', 'ledger.db')}`);
  }, 120_000);

  it("runs the image's command as its user, the mirror and the reports on the volume", async () => {
    const volume = join(dir, envOf(runtimeStage)['LEDGER_RECON_HOME'] ?? 'missing');
    mkdirSync(dirname(volume), { recursive: true, mode: 0o755 });
    mkdirSync(volume, { mode: 0o700 });
    // As root, the image's own user (its uid from the useradd line), who owns the volume alone.
    const uid = Number(/--uid (\d+)/.exec(all(runtimeStage, 'RUN').join(' '))?.[1]);
    // Where node itself is private to root (an install under /root), the test runs as itself.
    const root = process.getuid?.() === 0 && runnableByAnyone(process.execPath);
    const asUser = root && Number.isInteger(uid) ? { uid, gid: uid } : {};
    if (asUser.uid !== undefined) chownSync(volume, uid, uid);
    const env = withoutLocations(simulatorEnv(sim), { LEDGER_RECON_HOME: volume, HOME: volume });
    const command = JSON.parse(all(runtimeStage, 'CMD')[0] ?? '[]') as string[];
    const night = await run(bin(), [...command, '--quiet'], { cwd: volume, env, ...asUser });
    expect(night.status, night.stderr).toBe(0);
    expect(existsSync(join(volume, 'data', 'ledger.db'))).toBe(true);
    if (asUser.uid !== undefined) expect(statSync(join(volume, 'data', 'ledger.db')).uid).toBe(uid);
    const reports = join(volume, 'reports');
    expect(existsSync(reports)).toBe(true);
    const history = await run(bin(), ['history', '--json'], { cwd: volume, env, ...asUser });
    expect(history.status, history.stderr).toBe(0);
  }, 120_000);
});
