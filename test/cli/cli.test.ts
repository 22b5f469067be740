import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv } from '../support/cli.js';
import { changeMirror, mirrorAt, numberOfMirror, ON_POSTGRES, openMirrorAt } from '../support/test-db.js';
import { shownDb } from '../../src/db/location.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function run(args: string[], env: NodeJS.ProcessEnv = cleanEnv()) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('ledger-recon --help and --version', () => {
  it('lists the commands and the exit codes', () => {
    const { code, stdout } = run(['--help']);
    expect(code).toBe(0);
    // verify re-performs from the mirror too (--run, --close): not "with no mirror".
    expect(stdout).not.toContain('with no mirror');
    expect(stdout).toMatch(/verify \[options\] \[folder\]\s+check every evidence manifest/);
    expect(stdout).toMatch(/^Usage: ledger-recon \[options\] \[command\]/);
    expect(stdout).toContain('simulate [options]');
    expect(stdout).toContain('Exit codes: 0 reconciled');
  });

  it("fits every command's help in 80 columns", () => {
    const commands = [
      '',
      'sync',
      'check',
      'run',
      'report',
      'history',
      'close',
      'sql',
      'accept',
      'books import',
      'doctor',
      'ping',
      'simulate',
      'demo',
      'export hledger',
      'findings list',
      'verify',
      'prove',
      'witness',
      'completion',
    ];
    for (const command of commands) {
      const { stdout } = run([...command.split(' ').filter(Boolean), '--help']);
      expect(
        stdout.split('\n').filter((line) => line.length > 80),
        command || 'ledger-recon',
      ).toEqual([]);
    }
  });

  it('gives every command examples, each naming the command it is in the help of', () => {
    const commands = [
      'simulate',
      'ping',
      'doctor',
      'sync',
      'check',
      'run',
      'books import',
      'report',
      'close',
      'sql',
      'verify',
      'export',
      'findings list',
      'history',
      'accept',
      'demo',
      'completion',
    ];
    for (const command of commands) {
      const { stdout } = run([...command.split(' '), '--help']);
      const shown = stdout.split('\nExamples:\n')[1] ?? '';
      const lines = shown.split('\n').filter((line) => line.startsWith('  ledger-recon '));
      expect(lines.length, command).toBeGreaterThan(0);
      for (const line of lines)
        expect(line.replace(/^ {2}ledger-recon (--settings \S+ )?/, ''), command).toMatch(new RegExp(`^${command}\\b`));
    }
  });

  it("shows the options every command takes in each command's help", () => {
    for (const command of ['run', 'sync', 'check', 'report', 'close', 'verify']) {
      const { code, stdout } = run([command, '--help']);
      expect(code).toBe(0);
      const global = stdout.slice(stdout.indexOf('Global Options:'));
      for (const flag of ['--settings <file>', '--timeout <seconds>', '--umask <mask>', '--verbose'])
        expect(global, `${command} ${flag}`).toContain(flag);
    }
  });

  it('documents every simulator option', () => {
    const { code, stdout } = run(['simulate', '--help']);
    expect(code).toBe(0);
    for (const flag of [
      '--seed',
      '--port',
      '--dp-port',
      '--size',
      '--plant',
      '--manifest',
      '--card-list',
      '--faults',
      '--max-in-flight',
      '--live',
    ]) {
      expect(stdout).toContain(flag);
    }
  });

  it('prints the package version', () => {
    expect(run(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('exits 2 on an unknown option', () => {
    expect(run(['simulate', '--no-such-flag']).code).toBe(2);
  });

  it('answers what a new user types with one line that starts as every failure does and says what to do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-new-user-'));
    try {
      const refused: Array<[string[], string]> = [
        [['run', '--no-such-flag'], "ledger-recon: unknown option '--no-such-flag' (--help shows the usage)\n"],
        // The missing fingerprint is named before the missing note.
        [['accept'], "ledger-recon: missing required argument 'fingerprint' (--help shows the usage)\n"],
        [
          ['accept', 'f1e2d3'],
          'ledger-recon: accept needs --note "why": the justification auditors read beside the finding\n',
        ],
        [
          ['sql', 'select', '1', '--db', join(dir, 'ledger.db')],
          'ledger-recon: the statement came as 2 arguments, and sql takes one: put it in quotes, e.g. ledger-recon sql "SELECT count(*) FROM gift_cards"\n',
        ],
        [
          ['verify', dir, '--dir', join(dir, 'other')],
          `ledger-recon: verify was given two folders, ${dir} and --dir ${join(dir, 'other')}: give one\n`,
        ],
      ];
      for (const [args, line] of refused) expect(run(args), args.join(' ')).toMatchObject({ code: 2, stderr: line });
      // The folder of `verify reports` is the folder to check, as --dir names it.
      const given = run(['verify', dir]);
      expect(given.stderr).not.toContain('arguments');
      expect(given).toEqual(run(['verify', '--dir', dir]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ledger-recon demo (npm start)', () => {
  it('runs the nightly job on the built-in simulator and prints the verdict, a summary and the workbook’s path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-demo-'));
    try {
      const { code, stdout, stderr } = run(['demo', '--db', mirrorAt(dir, 'demo'), '--out', join(dir, 'reports')]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const lines = stdout.split('\n');
      expect(lines[0]).toMatch(
        /^ledger-recon demo: simulators of both services on 127\.0\.0\.1 \(seed 1\) with \d+ breaks planted in the services and \d+ legal look-alikes$/,
      );
      expect(lines[1]).toMatch(/^the merchant's books, written from the same world with \d+ book breaks: /);
      expect(lines[4]).toMatch(/^BREAKS {2}check run 1 over sync 1 \(completed\)/);
      // Counts read as numbers do, grouped by thousands (the demo checks over a thousand entries).
      expect(stdout).toMatch(/^\d+ cards, \d{1,3}(,\d{3})+ ledger entries checked in /m);
      const workbook = /^workbook: (.+\.xlsx)$/m.exec(stdout)?.[1];
      expect(workbook && readFileSync(workbook).subarray(0, 2).toString()).toBe('PK');
      // What was planted and what was found, by severity on both sides: an info break found is no miss.
      const [last, exit] = lines.filter(Boolean).slice(-2);
      const [, total, services, inBooks, planted, found] =
        /^(\d+) breaks were planted, (\d+) in the services and (\d+) in the books \((\d+ error, \d+ warning, \d+ info)\); the check found (\d+ error, \d+ warning, \d+ info)\. Open the workbook/.exec(
          last ?? '',
        ) ?? [];
      expect(found, last).toBe(planted);
      expect(Number(total)).toBe(Number(services) + Number(inBooks));
      expect(lines[0]).toContain(`with ${services} breaks planted in the services`);
      expect(exit).toBe(
        'A night like this one exits 1 from `ledger-recon run`; the demo itself exits 0, as it showed what it was run to show.',
      );
      // Run again, it makes its own mirror afresh: the same first run.
      const again = run(['demo', '--db', mirrorAt(dir, 'demo'), '--out', join(dir, 'reports')]);
      expect(again.code).toBe(0);
      expect(again.stdout.split('\n')[4]).toMatch(/^BREAKS {2}check run 1 over sync 1 \(completed\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // A file's case; a schema the demo did not make is the PostgreSQL suite's (test/cli/postgres.test.ts).
  it.skipIf(ON_POSTGRES)(
    'never deletes a mirror it did not make: the production --db given by habit stays byte-identical',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-demo-foreign-'));
      try {
        const production = join(dir, 'ledger.db');
        writeFileSync(production, 'a mirror with months of history and acceptances');
        const before = readFileSync(production);
        const { code, stdout, stderr } = run(['demo', '--db', production, '--out', join(dir, 'reports')]);
        expect(code).toBe(2);
        expect(stdout).toBe('');
        expect(stderr).toBe(
          `ledger-recon: ${production} holds a mirror the demo did not make, and the demo never deletes one: give --db a new path (the demo makes its own mirror there)\n`,
        );
        expect(readFileSync(production).equals(before)).toBe(true);
        expect(readdirSync(dir)).toEqual(['ledger.db']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
  it.runIf(ON_POSTGRES)(
    'never drops a schema it did not make: a mirror of real books given by habit keeps every row',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-demo-foreign-'));
      try {
        const production = mirrorAt(dir, 'production');
        const mirror = await openMirrorAt(production);
        await mirror.close();
        const tables = await numberOfMirror(
          production,
          'SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()',
        );
        const { code, stdout, stderr } = run(['demo', '--db', production, '--out', join(dir, 'reports')]);
        expect(code).toBe(2);
        expect(stdout).toBe('');
        expect(stderr).toBe(
          `ledger-recon: ${shownDb(production)} holds a schema the demo did not make, and the demo never deletes one: give --db another schema (the demo makes its own mirror there)\n`,
        );
        expect(
          await numberOfMirror(
            production,
            'SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()',
          ),
        ).toBe(tables);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
  it.runIf(ON_POSTGRES)('never drops a schema that holds functions, enums or domains but no table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-demo-objects-'));
    try {
      const other = mirrorAt(dir, 'other');
      await changeMirror(other, `CREATE SCHEMA IF NOT EXISTS ${new URL(other).searchParams.get('schema')}`);
      for (const statement of [
        "CREATE TYPE mood AS ENUM ('calm')",
        'CREATE DOMAIN positive AS integer CHECK (VALUE > 0)',
        "CREATE FUNCTION answer() RETURNS integer LANGUAGE sql AS 'SELECT 42'",
      ])
        await changeMirror(other, statement);
      const { code, stderr } = run(['demo', '--db', other, '--out', join(dir, 'reports')]);
      expect(code).toBe(2);
      expect(stderr).toBe(
        `ledger-recon: ${shownDb(other)} holds a schema the demo did not make, and the demo never deletes one: give --db another schema (the demo makes its own mirror there)\n`,
      );
      expect(await numberOfMirror(other, 'SELECT answer()')).toBe(42);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('configuration errors', () => {
  it('exit 2 with one line naming every missing variable', () => {
    const { code, stdout, stderr } = run(['ping']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    // Every missing setting is named in the one line, so a newcomer fixes them in one go.
    expect(stderr.split('\n')).toHaveLength(2);
    expect(stderr).toMatch(
      /^ledger-recon: 6 settings need attention: GIFTCARD_API_URL, GIFTCARD_CLIENT_ID, GIFTCARD_CLIENT_SECRET, DP_API_URL, DP_CLIENT_ID, DP_CLIENT_SECRET are not set: set them in the environment or a --settings file \(`ledger-recon doctor` says what each one is; `ledger-recon demo` needs none\)\n$/,
    );
    for (const variable of [
      'GIFTCARD_API_URL',
      'GIFTCARD_CLIENT_ID',
      'GIFTCARD_CLIENT_SECRET',
      'DP_API_URL',
      'DP_CLIENT_ID',
      'DP_CLIENT_SECRET',
    ])
      expect(stderr).toContain(variable);
  });

  it('exit 2 naming a malformed URL', () => {
    const env = cleanEnv({
      GIFTCARD_API_URL: 'http://127.0.0.1:1',
      GIFTCARD_CLIENT_ID: 'a',
      GIFTCARD_CLIENT_SECRET: 'b',
      DP_API_URL: 'mailto:x',
      DP_CLIENT_ID: 'c',
      DP_CLIENT_SECRET: 'd',
    });
    const { code, stderr } = run(['ping'], env);
    expect(code).toBe(2);
    expect(stderr).toBe('ledger-recon: DP_API_URL (or --dp-url) must start with http:// or https://\n');
  });
});

describe('ledger-recon simulate, then ping against it', () => {
  let child: ChildProcess;
  let exports: Record<string, string>;
  let dir: string;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cli-'));
    child = spawn(
      process.execPath,
      [
        CLI,
        'simulate',
        '--port',
        '0',
        '--dp-port',
        '0',
        '--seed',
        '3',
        '--size',
        'tiny',
        '--plant',
        '--manifest',
        join(dir, 'manifest.json'),
        '--control',
      ],
      { env: cleanEnv() },
    );
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Serving until Ctrl-C.')) resolve();
      });
      child.on('exit', () => reject(new Error(`simulate exited early: ${out}`)));
    });
    exports = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints both base URLs and the six variables, and writes the manifest', () => {
    expect(Object.keys(exports).sort()).toEqual([
      'DP_API_URL',
      'DP_CLIENT_ID',
      'DP_CLIENT_SECRET',
      'GIFTCARD_API_URL',
      'GIFTCARD_CLIENT_ID',
      'GIFTCARD_CLIENT_SECRET',
    ]);
    expect(exports['GIFTCARD_API_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      seed: number;
      breaks: unknown[];
    };
    expect(manifest.seed).toBe(3);
    expect(manifest.breaks.length).toBeGreaterThan(28);
  });

  it("says in one line which port is taken when a second simulator asks for the first one's", () => {
    const port = new URL(exports['GIFTCARD_API_URL'] ?? '').port;
    const { code, stderr } = run(['simulate', '--port', port, '--dp-port', '0']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `ledger-recon: port ${port} on 127.0.0.1 is in use (another simulator, or another program): give --port and --dp-port other ports, or 0 for free ones\n`,
    );
  });

  it('answers ping with both services ok', () => {
    const { code, stdout, stderr } = run(['ping'], cleanEnv(exports));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]),
    ).toEqual(['gift card service', 'delivery partner service']);
  });

  it('refuses a rotated secret with exit 2, one line naming the variable, and no secret', () => {
    const rotated = `${exports['GIFTCARD_CLIENT_SECRET']}-old`;
    const { code, stdout, stderr } = run(['ping', '--giftcard-client-secret', rotated], cleanEnv(exports));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('(API_KEY_INVALID): check GIFTCARD_CLIENT_SECRET');
    expect(stdout + stderr).not.toContain(rotated);
    // The rotated secret's answer is the gift card service's own: nothing says the URL is wrong.
    expect(stderr).not.toContain('may point at another service');
  });

  it("says the gift card URL may point at another service when its answer is not the gift card service's", () => {
    const { code, stderr } = run(['ping', '--giftcard-url', exports['DP_API_URL'] ?? ''], cleanEnv(exports));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/GIFTCARD_API_URL may point at another service \(the delivery partner's\?\)/);
  });

  it('takes "latency MS" and "activity N" on stdin (benchmarks): every answer then waits MS', async () => {
    const answers = (count: number): Promise<string[]> =>
      new Promise((resolve) => {
        const lines: string[] = [];
        const listen = (chunk: Buffer): void => {
          lines.push(...chunk.toString().split('\n').filter(Boolean));
          if (lines.length < count) return;
          child.stdout?.off('data', listen);
          resolve(lines);
        };
        child.stdout?.on('data', listen);
      });
    const set = answers(2);
    child.stdin?.write('latency 300\nactivity 3\n');
    expect(await set).toEqual(['latency 300', 'applied 3']);
    const { code, stderr } = run(['ping', '--log-level', 'debug'], cleanEnv(exports));
    // ping reads one record from each service: every answer it logs took the latency at least.
    expect(code).toBe(0);
    const answered = [...stderr.matchAll(/→ \d{3} in (\d+) ms/g)].map((m) => Number(m[1]));
    expect(answered.length, stderr).toBeGreaterThanOrEqual(2);
    for (const ms of answered) expect(ms, stderr).toBeGreaterThanOrEqual(300);
    const reset = answers(1);
    child.stdin?.write('latency 0\n');
    expect(await reset).toEqual(['latency 0']);
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
