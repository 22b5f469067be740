/**
 * Every failure a user can cause or meet: exit 2, one line on stderr naming what failed, the
 * value involved (never a secret) and what to do; no stack trace.
 */
import { createServer, type Server } from 'node:net';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Failure, failureOf } from '../../src/app/failure.js';
import { pingServices } from '../../src/app/ping.js';
import { loadConfig } from '../../src/config.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { dpConfig, giftcardConfig } from '../support/simulator.js';
import { cleanEnv, oneFailureLine, runCli, simulatorEnv, type CliResult } from '../support/cli.js';
import { canMount, mountTmpfs } from '../support/mounts.js';
import { mirrorAt, numberOfMirror, ON_POSTGRES } from '../support/test-db.js';
import { testDate, testNow } from '../support/test-clock.js';
import { checkOf, closeOf, failureOfJob, nightOf, reportOf, syncOf } from '../support/app.js';

let sim: Simulator;
let garbage: Server;
let garbagePort: number;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 83, size: 'tiny', recordRequests: true });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-failures-'));
  // A peer that does not speak HTTP: it answers anything with a line of text.
  garbage = createServer((socket) => socket.end('220 welcome to something else\r\n')).unref();
  await new Promise<void>((listening) => garbage.listen(0, '127.0.0.1', listening));
  garbagePort = (garbage.address() as { port: number }).port;
});
afterAll(async () => {
  await sim.close();
  garbage.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * `ledger-recon ping` under `env`, in this process (the app's job, the line the CLI prints for
 * what it throws): one line naming what failed, exit 2, no stack, no secret.
 */
async function pingLine(env: NodeJS.ProcessEnv): Promise<string> {
  const error: unknown = await pingServices(loadConfig({}, env)).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, 'ping succeeded').toBeDefined();
  const failure = failureOf(error, secrets());
  expect(failure).toMatchObject({ exitCode: 2, named: true });
  for (const secret of secrets()) expect(failure.line).not.toContain(secret);
  return failure.line;
}

const secrets = () => [sim.credentials.giftcard.clientSecret, sim.credentials.dp.clientSecret];

/**
 * The one line (exit 2, no secret) of a night, or of a sync, into the mirror at `db` as the CLI
 * runs it without --init, in this process (app/failure.ts makes the line the CLI prints).
 */
async function nightLine(db: string, out: string): Promise<string> {
  return lineOf(await failureOfJob(() => nightOf(sim, db, out, { init: false }), secrets()));
}
async function syncLine(db: string): Promise<string> {
  return lineOf(await failureOfJob(() => syncOf(sim, db, { init: false }), secrets()));
}
function lineOf(failure: Failure): string {
  expect(failure).toMatchObject({ exitCode: 2 });
  for (const secret of secrets()) expect(failure.line).not.toContain(secret);
  return failure.line;
}

/** One line on stderr, exit 2, no stack trace, no secret. */
function oneLine(result: CliResult): string {
  return oneFailureLine(result, [sim.credentials.giftcard.clientSecret, sim.credentials.dp.clientSecret]);
}

describe('a service reached as configured', () => {
  it('answers ping with one record read from each service', async () => {
    expect(await pingServices(loadConfig({}, simulatorEnv(sim)))).toMatchObject({
      giftcard: { url: sim.giftcardUrl, cardsReadable: true },
      dp: { url: sim.dpUrl, dpId: sim.credentials.dp.clientId },
    });
  });
});

describe('a service that cannot be reached as configured', () => {
  it('names a host that does not resolve', async () => {
    const line = await pingLine({ ...simulatorEnv(sim), GIFTCARD_API_URL: 'http://no-such-host.invalid:4010' });
    expect(line).toMatch(/^ledger-recon: the gift card service .*no-such-host\.invalid.*GIFTCARD_API_URL/);
  });

  it('names https:// against a port that speaks plain HTTP', async () => {
    const line = await pingLine({ ...simulatorEnv(sim), DP_API_URL: sim.dpUrl.replace('http://', 'https://') });
    expect(line).toBe(
      `ledger-recon: the delivery partner service cannot be reached at ${sim.dpUrl.replace('http://', 'https://')}: the TLS handshake failed: the port speaks plain HTTP, so the URL may need http:// instead of https://; check DP_API_URL (or --dp-url)`,
    );
  });

  it('names a port whose peer does not speak HTTP', async () => {
    const line = await pingLine({ ...simulatorEnv(sim), GIFTCARD_API_URL: `http://127.0.0.1:${garbagePort}` });
    expect(line).toMatch(
      new RegExp(`the peer on port ${garbagePort} does not speak HTTP .*: check the port; check GIFTCARD_API_URL`),
    );
  });

  it('names a port where nothing listens, after its retries', async () => {
    const closed = createServer();
    await new Promise<void>((listening) => closed.listen(0, '127.0.0.1', listening));
    const port = (closed.address() as { port: number }).port;
    await new Promise((done) => closed.close(done));
    const line = await pingLine({ ...simulatorEnv(sim), GIFTCARD_API_URL: `http://127.0.0.1:${port}` });
    expect(line).toMatch(
      new RegExp(
        `connection refused \\(ECONNREFUSED\\).*nothing listens on port ${port} of 127\\.0\\.0\\.1: is the service running there\\? check GIFTCARD_API_URL`,
      ),
    );
  }, 60_000);
});

describe('a refusal with a body that is not JSON', () => {
  it("is an authentication error at once, never retried, whatever the body (a proxy's HTML page)", async () => {
    let requests = 0;
    const proxy = createHttpServer((_request, response) => {
      requests += 1;
      response
        .writeHead(401, { 'content-type': 'text/html' })
        .end('<html><body>401 Authorization Required</body></html>');
    });
    await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
    try {
      const line = await pingLine({
        ...simulatorEnv(sim),
        GIFTCARD_API_URL: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
      });
      expect(line).toMatch(/^ledger-recon: the gift card service .*GIFTCARD_CLIENT_SECRET/);
      expect(requests).toBe(1);
    } finally {
      proxy.close();
    }
  });
});

describe('a service that speaks TLS', () => {
  let tls: HttpsServer;
  let url: string;
  beforeAll(async () => {
    const read = (name: string) => readFileSync(fileURLToPath(new URL(`../support/tls/${name}`, import.meta.url)));
    tls = createHttpsServer({ key: read('key.pem'), cert: read('cert.pem') }, (_request, response) =>
      response.end('{}'),
    );
    await new Promise<void>((listening) => tls.listen(0, '127.0.0.1', listening));
    url = `127.0.0.1:${(tls.address() as { port: number }).port}`;
  });
  afterAll(() => {
    tls.closeAllConnections();
    tls.close();
  });

  it('names a certificate nobody trusts', async () => {
    const line = await pingLine({ ...simulatorEnv(sim), GIFTCARD_API_URL: `https://${url}` });
    expect(line).toMatch(
      new RegExp(
        `^ledger-recon: the gift card service cannot be reached at https://${url}: its TLS certificate is not trusted \\(DEPTH_ZERO_SELF_SIGNED_CERT\\); check GIFTCARD_API_URL`,
      ),
    );
  });

  it('names http:// against a port that speaks TLS', async () => {
    const line = await pingLine({ ...simulatorEnv(sim), GIFTCARD_API_URL: `http://${url}` });
    expect(line).toMatch(
      /the peer closed the connection: if it speaks https, GIFTCARD_API_URL \(or --giftcard-url\) must start with https:\/\/$/,
    );
  }, 60_000);
});

describe('--db and --out that cannot be used', () => {
  it('ends within seconds on an --out under /proc, before any sync', async () => {
    const asked = sim.requests.length;
    const line = await nightLine(mirrorAt(dir, 'proc'), '/proc/ledger-recon-reports');
    // Before any sync: not one request reached the services.
    expect(sim.requests.length).toBe(asked);
    expect(line).toBe(
      'ledger-recon: --out /proc/ledger-recon-reports: it cannot be created there (ENOENT): give --out a folder you can write',
    );
  });

  it('names a file standing where the --out folder should be', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    expect(await nightLine(mirrorAt(dir, 'file'), file)).toBe(
      `ledger-recon: --out ${file}: a file stands where a folder should be (ENOTDIR): give --out a folder you can write`,
    );
    expect(await syncLine(join(file, 'ledger.db'))).toBe(
      `ledger-recon: --db ${file}: a file stands where a folder should be (ENOTDIR): give --db a file in a folder you can write`,
    );
  });

  it.skipIf(ON_POSTGRES)(
    'opens a mirror, never conjures one: a --db whose folder and its parent do not exist, or whose folder holds other files, is refused, naming --init; --init makes it',
    async () => {
      const typo = join(dir, 'nonexistent', 'dir', 'ledger.db');
      for (const refused of [await syncLine(typo), await nightLine(typo, join(dir, 'typo-reports'))]) {
        expect(refused).toBe(
          `ledger-recon: --db ${typo}: there is no mirror there, and neither its folder nor that folder's parent exists (${join(dir, 'nonexistent')}): a mistyped --db would start a new, empty mirror, every finding new and the history elsewhere; correct --db, or give --init to make a new mirror there`,
        );
      }
      expect(existsSync(join(dir, 'nonexistent'))).toBe(false);
      expect(existsSync(join(dir, 'typo-reports'))).toBe(false);
      // A new mirror in a new folder under an existing one needs nothing; deeper, --init says so.
      expect((await syncOf(sim, join(dir, 'new-folder', 'ledger.db'), { init: false })).ok).toBe(true);
      expect((await syncOf(sim, typo, { init: true })).ok).toBe(true);
      expect(existsSync(typo)).toBe(true);
      // A folder holding other files (the reports, say) is no new mirror's either, but with --init;
      // an empty one is (hidden files aside), and a mirror there opens as it is from then on.
      const busy = join(dir, 'busy');
      mkdirSync(busy);
      for (const name of ['a.xlsx', 'b.csv', 'c.json', 'd.txt']) writeFileSync(join(busy, name), '');
      expect(await nightLine(join(busy, 'ledger.db'), busy)).toBe(
        `ledger-recon: --db ${join(busy, 'ledger.db')}: there is no mirror there, and its folder ${busy} is not empty (it holds 'a.xlsx', 'b.csv', 'c.json' and 1 more): a mistyped --db would start a new, empty mirror, every finding new and the history elsewhere; correct --db, or give --init to make a new mirror there`,
      );
      expect(readdirSync(busy)).toHaveLength(4);
      expect((await syncOf(sim, join(busy, 'ledger.db'), { init: true })).ok).toBe(true);
      const empty = join(dir, 'empty');
      mkdirSync(empty);
      writeFileSync(join(empty, '.gitkeep'), '');
      expect((await syncOf(sim, join(empty, 'ledger.db'), { init: false })).ok).toBe(true);
      expect((await syncOf(sim, join(empty, 'ledger.db'), { init: false })).ok).toBe(true);
    },
  );

  it.skipIf(ON_POSTGRES)('names a --db that is a folder, and one whose folder cannot be made', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    expect(await syncLine(folder)).toBe(
      `ledger-recon: --db ${folder}: it is a folder: give --db the mirror's file, e.g. ${join(folder, 'ledger.db')}`,
    );
    expect(lineOf(await failureOfJob(() => checkOf('/proc/ledger-recon/ledger.db')))).toMatch(
      /^ledger-recon: (--db \/proc\/ledger-recon: it cannot be created there \(ENOENT\)|there is no mirror at)/,
    );
  });
});

describe('a --db that names a database server', () => {
  it('names a PostgreSQL server it cannot reach in one line from every command, without the password, and never makes a folder named postgres:', async () => {
    const url = 'postgres://analyst:s3cret-pw@127.0.0.1:1/ledger?schema=merchant_a';
    const expected =
      'ledger-recon: the mirror postgres://127.0.0.1:1/ledger?schema=merchant_a cannot be reached: connect ECONNREFUSED 127.0.0.1:1; check that the server is running and that --db (or LEDGER_RECON_DB) names it';
    for (const args of [
      ['sync'],
      ['check'],
      ['sql', 'SELECT 1'],
      ['history'],
      ['report'],
      ['close', '--period', '2026-10'],
      ['export', 'hledger', '--out', join(dir, 'j.journal')],
      ['accept', 'abc', '--note', 'n'],
    ]) {
      const result = await runCli([...args, '--db', url], simulatorEnv(sim));
      expect(oneLine(result), args.join(' ')).toBe(expected);
      expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
    }
    // Read from the environment too; the nightly run still prints its one JSON object.
    const night = await runCli(['run', '--json', '--out', join(dir, 'pg-out')], {
      ...simulatorEnv(sim),
      LEDGER_RECON_DB: url,
    });
    expect(night.status).toBe(2);
    expect(JSON.parse(night.stdout)).toMatchObject({ verdict: 'FAILED', exitCode: 2, error: { code: 'MIRROR' } });
    expect(night.stdout + night.stderr).not.toContain('s3cret-pw');
    expect(readdirSync('.').filter((name) => name.startsWith('postgres'))).toEqual([]);
  });

  it('refuses a database it does not keep mirrors in, naming the two it does', async () => {
    const refused = await failureOfJob(() => syncOf(sim, 'mysql://analyst:s3cret-pw@db.internal/ledger'));
    expect(lineOf(refused)).toBe(
      'ledger-recon: --db mysql://db.internal/ledger (or LEDGER_RECON_DB): the mirror lives in a SQLite file (a path, such as data/ledger.db) or in PostgreSQL (postgres://user@host:port/db?schema=name), not in mysql',
    );
  });
});

describe('a service that does not answer', () => {
  it('gives up on a silent peer after --timeout seconds per attempt and says how to allow longer', async () => {
    // Accepts the connection, reads the request, never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const port = (silent.address() as { port: number }).port;
    try {
      // Killed if it waited past 15 s: then no exit code, and oneLine fails.
      const line = oneLine(
        await runCli(
          ['ping', '--timeout', '1'],
          { ...simulatorEnv(sim), GIFTCARD_API_URL: `http://127.0.0.1:${port}` },
          { killAfterMs: 15_000 },
        ),
      );
      expect(line).toMatch(
        new RegExp(
          `^ledger-recon: the gift card service is unavailable at 127\\.0\\.0\\.1:${port}: no answer within 1 s \\(timed out.*\\).*attempts\\); the service did not answer in time: .*LEDGER_RECON_TIMEOUT \\(or --timeout\\)$`,
        ),
      );
    } finally {
      silent.close();
    }
  }, 30_000);

  it('names a malformed LEDGER_RECON_TIMEOUT together with every other setting that needs attention', async () => {
    const line = oneLine(
      await runCli(['sync', '--db', mirrorAt(dir, 'never')], cleanEnv({ LEDGER_RECON_TIMEOUT: 'soon' })),
    );
    expect(line).toMatch(
      /^ledger-recon: 7 settings need attention: GIFTCARD_API_URL, GIFTCARD_CLIENT_ID, GIFTCARD_CLIENT_SECRET, DP_API_URL, DP_CLIENT_ID, DP_CLIENT_SECRET are not set; LEDGER_RECON_TIMEOUT \(or --timeout\) is "soon": it must be whole seconds from 1 to 600: set them in the environment or a --settings file \(`ledger-recon doctor` says what each one is; `ledger-recon demo` needs none\)$/,
    );
  });
});

describe.runIf(canMount)('a disk that is read-only or full', () => {
  it.skipIf(ON_POSTGRES)('names a read-only --db and --out', async () => {
    const readOnly = mountTmpfs('1m', true);
    if (!readOnly) return;
    try {
      expect(await syncLine(join(readOnly.path, 'ledger.db'))).toBe(
        `ledger-recon: --db ${readOnly.path}: the file system is read-only (EROFS): give --db a file in a folder you can write`,
      );
      expect(await nightLine(mirrorAt(dir, 'ro-out'), join(readOnly.path, 'reports'))).toBe(
        `ledger-recon: --out ${join(readOnly.path, 'reports')}: the file system is read-only (EROFS): give --out a folder you can write`,
      );
    } finally {
      readOnly.unmount();
    }
  });

  it.skipIf(ON_POSTGRES)(
    'names a --db whose disk fills up, when the mirror is made and in the middle of a sync; run --json still prints the night',
    async () => {
      for (const size of ['200k', '1500k']) {
        const full = mountTmpfs(size);
        if (!full) return;
        try {
          const db = join(full.path, 'ledger.db');
          const result = await runCli(
            ['run', '--db', db, '--out', join(dir, `full-${size}`), '--json'],
            simulatorEnv(sim),
          );
          const message = `--db ${db}: no space left on the device (SQLITE_FULL): free space in ${full.path} (a sync needs about 256 MB beside the mirror), or give --db a folder with room; what was committed before is kept`;
          expect(oneLine(result), size).toBe(`ledger-recon: ${message}`);
          expect(JSON.parse(result.stdout)).toMatchObject({
            verdict: 'FAILED',
            exitCode: 2,
            error: { code: 'FILE_SYSTEM', message },
          });
        } finally {
          full.unmount();
        }
      }
    },
  );

  it('names an --out whose disk fills up while the report is written, and leaves no report behind', async () => {
    const full = mountTmpfs('16k');
    if (!full) return;
    try {
      const out = join(full.path, 'reports');
      expect(await nightLine(mirrorAt(dir, 'full-out'), out)).toBe(
        `ledger-recon: --out ${out}: no space left on the device (ENOSPC): free space there, or give --out a folder with room`,
      );
      expect(readdirSync(out).filter((name) => name.endsWith('.xlsx'))).toEqual([]);
    } finally {
      full.unmount();
    }
  });
});

describe('a period close that cannot be written', () => {
  it("names an --out whose disk fills up while the close is written, leaving no file behind; a killed close's temporary files go at the next", async () => {
    const db = mirrorAt(dir, 'close-full');
    expect((await nightOf(sim, db, join(dir, 'close-full-reports'))).result.ok).toBe(true);
    const month = testDate().toISOString().slice(0, 7);
    const full = mountTmpfs('16k');
    if (full) {
      try {
        const out = join(full.path, 'close');
        const result = await runCli(['close', '--period', month, '--db', db, '--out', out], simulatorEnv(sim));
        expect(oneLine(result)).toBe(
          `ledger-recon: --out ${out}: no space left on the device (ENOSPC): free space there, or give --out a folder with room`,
        );
        expect(readdirSync(out)).toEqual([]);
      } finally {
        full.unmount();
      }
    }
    const out = join(dir, 'close-killed');
    mkdirSync(out, { recursive: true });
    const stale = join(out, `ledger-recon-close-${month}.xlsx.999999999.partial`);
    writeFileSync(stale, 'half a workbook');
    await closeOf(db, out, month, testNow());
    expect(readdirSync(out).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });
});

describe('a mirror this version cannot use', () => {
  it.skipIf(ON_POSTGRES)('names a mirror written by a newer ledger-recon, and leaves it as it was', async () => {
    const db = join(dir, 'newer', 'newer.db');
    expect((await syncOf(sim, db)).ok).toBe(true);
    const mirror = new Database(db);
    const applied = mirror.prepare('SELECT COUNT(*) FROM __drizzle_migrations').pluck().get() as number;
    mirror
      .prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', 9999999999999)")
      .run();
    mirror.close();
    const line = lineOf(await failureOfJob(() => checkOf(db)));
    expect(line).toBe(
      `ledger-recon: the mirror ${db} was written by a newer ledger-recon (schema ${applied + 1}; this version knows ${applied}): upgrade ledger-recon, or give --db another mirror`,
    );
  });
});

describe('files for one reader', () => {
  it.skipIf(ON_POSTGRES)(
    "makes the mirror, its side files, the reports and their folders the owner's alone, unless --umask says otherwise",
    async () => {
      const folder = join(dir, 'private', 'mirror');
      const out = join(dir, 'private', 'reports');
      expect(
        (await runCli(['run', '--init', '--db', join(folder, 'ledger.db'), '--out', out], simulatorEnv(sim))).status,
      ).toBe(0);
      const mode = (path: string) => statSync(path).mode & 0o777;
      expect(mode(folder)).toBe(0o700);
      expect(mode(out)).toBe(0o700);
      for (const name of readdirSync(folder)) expect(mode(join(folder, name)), name).toBe(0o600);
      for (const name of readdirSync(out)) expect(mode(join(out, name)), name).toBe(0o600);
      const shared = join(dir, 'shared');
      expect(
        (await runCli(['run', '--umask', '027', '--db', join(shared, 'ledger.db'), '--out', shared], simulatorEnv(sim)))
          .status,
      ).toBe(0);
      expect(mode(join(shared, 'ledger.db'))).toBe(0o640);
      // The folders it makes follow the mask too: the group can reach the files it may read.
      const sharedOut = join(dir, 'shared-reports', 'nightly');
      expect(
        (
          await runCli(
            ['run', '--umask', '027', '--db', join(shared, 'ledger.db'), '--out', sharedOut],
            simulatorEnv(sim),
          )
        ).status,
      ).toBe(0);
      expect(mode(sharedOut)).toBe(0o750);
      for (const name of readdirSync(sharedOut)) expect(mode(join(sharedOut, name)), name).toBe(0o640);
    },
  );

  it('removes the temporary files a killed report left, and leaves those of a report still being written', async () => {
    const out = join(dir, 'partials');
    const db = mirrorAt(dir, 'partials');
    expect((await nightOf(sim, db, out)).result.record.exitCode).toBe(0);
    const killed = join(out, 'ledger-recon-2026-11-01-run-9.xlsx.999999999.partial');
    const older = join(out, 'ledger-recon-2026-11-01-run-8.xlsx.partial');
    const writing = join(out, `ledger-recon-2026-11-01-run-7.xlsx.${process.pid}.partial`);
    for (const file of [killed, older, writing]) writeFileSync(file, 'half a workbook');
    await reportOf(db, { outDir: out });
    expect(readdirSync(out).filter((name) => name.endsWith('.partial'))).toEqual([writing.split('/').pop()]);
  });
});

describe('a mirror has one identity', () => {
  it('stops a sync pointed at other services, naming the difference, and moves the mirror only with --rebind', async () => {
    const db = mirrorAt(dir, 'identity');
    expect((await syncOf(sim, db)).ok).toBe(true);
    const other = await startSimulator({ seed: 86, size: 'tiny' });
    try {
      const line = lineOf(await failureOfJob(() => syncOf(other, db, { init: false })));
      expect(line).toContain(`GIFTCARD_API_URL ${other.giftcardUrl} (the mirror's: ${sim.giftcardUrl})`);
      expect(line).toContain(
        `GIFTCARD_CLIENT_ID ${other.credentials.giftcard.clientId} (the mirror's: ${sim.credentials.giftcard.clientId})`,
      );
      expect(line).toMatch(/pass --rebind to move this one to these services on purpose \(its history stays\)$/);
      expect(await numberOfMirror(db, 'SELECT COUNT(*) FROM sync_runs')).toBe(1);
      expect((await syncOf(other, db, { rebind: true })).ok).toBe(true);
      expect((await syncOf(other, db)).ok).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('lets a mirror whose first sync was refused at the door (a mistyped client ID and secret) be taken by the right credentials, without --rebind', async () => {
    const db = mirrorAt(dir, 'mistyped');
    const mistyped = {
      giftcard: giftcardConfig(sim, { clientId: 'mistyped-id', clientSecret: 'mistyped-secret' }),
      dp: dpConfig(sim, { clientId: 'DP-MISTYPED', clientSecret: 'mistyped-secret' }),
    };
    expect(lineOf(await failureOfJob(() => syncOf(sim, db, { config: mistyped })))).toMatch(
      /refused the client secret/,
    );
    // The refused sync bound the mirror to the mistyped IDs, but read nothing under them.
    expect(await numberOfMirror(db, 'SELECT COUNT(*) FROM gift_cards')).toBe(0);
    expect((await syncOf(sim, db, { init: false })).ok).toBe(true);
    // Once it holds what these services sent, other credentials are refused as before.
    const line = lineOf(await failureOfJob(() => syncOf(sim, db, { init: false, config: mistyped })));
    expect(line).toContain(`GIFTCARD_CLIENT_ID mistyped-id (the mirror's: ${sim.credentials.giftcard.clientId})`);
  });

  it("a rebind reads the new services whole and leaves the previous ones' records out of the current state: no merge, no false finding", async () => {
    const size = (cards: number) => ({ cards, entriesPerCard: 3, coupons: 4, products: 2, orders: 4 });
    const first = await startSimulator({ seed: 301, size: size(20) });
    const second = await startSimulator({ seed: 302, size: size(40) });
    try {
      const db = mirrorAt(dir, 'rebind');
      const out = join(dir, 'rebind-out');
      expect((await nightOf(first, db, out)).result.record.exitCode).toBe(0);
      const moved = (await nightOf(second, db, out, { rebind: true })).result.record;
      expect(moved).toMatchObject({ exitCode: 0, verdict: 'RECONCILED', findings: 0, sync: { mode: 'full' } });
      // The same as a mirror of the second services alone.
      const alone = mirrorAt(dir, 'rebind-alone');
      expect((await syncOf(second, alone)).ok).toBe(true);
      const count = (path: string, sql: string): Promise<number> => numberOfMirror(path, sql);
      for (const sql of [
        'SELECT COUNT(*) FROM gift_cards',
        'SELECT COUNT(*) FROM gift_card_transactions WHERE vanished_sync_run_id IS NULL',
        'SELECT COUNT(*) FROM coupons WHERE vanished_sync_run_id IS NULL',
        'SELECT COUNT(*) FROM dp_orders WHERE vanished_sync_run_id IS NULL',
      ]) {
        expect(await count(db, sql), sql).toBe(await count(alone, sql));
      }
      // The first services' records are kept: their entries marked, their cards' history.
      expect(
        await count(db, 'SELECT COUNT(*) FROM gift_card_transactions WHERE vanished_sync_run_id IS NOT NULL'),
      ).toBe(first.truth().transactions.length);
      expect(await count(db, 'SELECT COUNT(DISTINCT gift_card_id) FROM gift_card_history')).toBeGreaterThan(
        await count(db, 'SELECT COUNT(*) FROM gift_cards'),
      );
      // And the night after is an ordinary incremental night.
      const after = (await nightOf(second, db, out)).result.record;
      expect(after).toMatchObject({
        verdict: 'RECONCILED',
        findings: 0,
        sync: { mode: 'incremental' },
      });
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);
});
