/**
 * Signed evidence (sealed nights, item 5): `--sign-key FILE` signs each manifest as an in-toto
 * Statement in a DSSE envelope with an Ed25519 key; `verify --public-key FILE` checks it; the
 * key reaches no mirror, log or report. The envelope also verifies with openssl, as an auditor
 * without the tool would check it.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyLine } from '../../src/app/doctor.js';
import { manifestDigest, type SealedManifest } from '../../src/evidence/manifest.js';
import { readKey, readSigningKey } from '../../src/evidence/sign.js';
import { verifyFolder } from '../../src/evidence/verify.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { closeOf, nightOf, reportOf, told } from '../support/app.js';
import { verifyFolderAt } from '../../src/app/verified.js';
import { testNow } from '../support/test-clock.js';
import { plantedMonth } from '../support/simulator.js';
import { hasProgram } from '../support/programs.js';

let dir: string;
let sim: Simulator;
let out: string;
let db: string;
const keys = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    private: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    public: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};
const ours = keys();
const theirs = keys();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-signing-'));
  writeFileSync(join(dir, 'signing.pem'), ours.private, { mode: 0o600 });
  writeFileSync(join(dir, 'signing.pub'), ours.public);
  writeFileSync(join(dir, 'other.pub'), theirs.public);
  sim = await startSimulator({ seed: 51, size: 'tiny', plant: true });
  db = join(dir, 'ledger', 'ledger.db');
  out = join(dir, 'reports');
  const signingKey = readSigningKey(join(dir, 'signing.pem'), () => undefined);
  const { result } = await nightOf(sim, db, out, { signingKey });
  expect(result.record.exitCode).toBe(1);
  // A month the planted world has data in, whatever the test clock's day.
  await closeOf(db, out, plantedMonth(), testNow(), { signingKey });
}, 120_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `verify --dir FOLDER --public-key KEY` in this process (src/app/verified.ts), told as the CLI tells it. */
const verify = (folder: string, key: string) =>
  told(() => verifyFolderAt(folder, readKey(join(dir, key), '--public-key', 'public')));

/** A copy of the reports folder, as an auditor keeps it. */
function copy(name: string): string {
  const target = join(dir, name);
  execFileSync('cp', ['-r', out, target]);
  return target;
}

describe('--sign-key and verify --public-key', () => {
  it("signs the night's and the close's manifests, and verify holds them to the public key", async () => {
    const envelopes = readdirSync(out).filter((f) => f.endsWith('-evidence.dsse.json'));
    expect(envelopes).toHaveLength(2);
    const result = await verify(out, 'signing.pub');
    expect(result.status, result.stderr).toBe(0);
    expect(result.record).toMatchObject({ ok: true, manifests: 2, signed: 2, problems: [] });
  });

  it('names a manifest signed by another key, an envelope changed, and a manifest not signed', async () => {
    expect((await verify(out, 'other.pub')).stderr).toMatch(/no signature by the key [0-9a-f]{16}… holds/);

    const changed = copy('changed');
    const name = readdirSync(changed).find((f) => f.endsWith('-run-1-evidence.dsse.json'))!;
    const envelope = JSON.parse(readFileSync(join(changed, name), 'utf8')) as { payload: string };
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as {
      subject: { name: string }[];
    };
    statement.subject[0]!.name = 'another.xlsx';
    envelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    writeFileSync(join(changed, name), JSON.stringify(envelope));
    const tampered = await verify(changed, 'signing.pub');
    expect(tampered.status).toBe(1);
    expect(tampered.stderr).toContain(`${name}: no signature by the key`);

    const unsigned = copy('unsigned');
    rmSync(join(unsigned, name));
    const missing = await verify(unsigned, 'signing.pub');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`not signed (no ${name} beside it)`);
  });

  it('keeps the private key out of the mirror, the outputs and every line printed', async () => {
    const body = ours.private
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('-----'))
      .join('');
    for (const file of [db, ...readdirSync(out).map((f) => join(out, f))])
      expect(readFileSync(file).includes(Buffer.from(body)), file).toBe(false);
    const report = await reportOf(db, {
      outDir: join(dir, 'again'),
      signingKey: readSigningKey(join(dir, 'signing.pem'), () => undefined),
    });
    expect(JSON.stringify(report)).not.toContain(body);
    for (const file of readdirSync(join(dir, 'again')))
      expect(readFileSync(join(dir, 'again', file)).includes(Buffer.from(body)), file).toBe(false);
  });

  it("states the confirmation pass's re-reads in the night's manifest: how many, and a digest of the answers", () => {
    const name = readdirSync(out).find((f) => f.endsWith('-run-1-evidence.json'))!;
    const manifest = JSON.parse(readFileSync(join(out, name), 'utf8')) as {
      confirmation?: { cards: number; entries: number; sha256: string };
    };
    // The planted world has gift card errors, whose cards the night re-read by ID.
    expect(manifest.confirmation?.cards).toBeGreaterThan(0);
    expect(manifest.confirmation?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a key that cannot sign before the night, in one line', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    writeFileSync(join(dir, 'rsa.pem'), rsa);
    writeFileSync(join(dir, 'garbage.pem'), 'not a key');
    for (const [key, message] of [
      ['rsa.pem', 'a rsa key; the evidence is signed with Ed25519 keys'],
      ['garbage.pem', 'not an Ed25519 private key in PEM'],
    ] as const) {
      const night = await runCli(
        [
          'run',
          '--db',
          join(dir, `never-${key}`, `never-${key}.db`),
          '--out',
          join(dir, 'never'),
          '--sign-key',
          join(dir, key),
        ],
        simulatorEnv(sim),
      );
      expect(night.status).toBe(2);
      expect(night.stderr).toContain(message);
      expect(night.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(existsSync(join(dir, `never-${key}`, `never-${key}.db`))).toBe(false);
    }
  });
});

describe('tampering an auditor meets', () => {
  const changedLines = async (folder: string) =>
    (await told(() => verifyFolderAt(folder))).stderr.trimEnd().split('\n');

  it.runIf(hasProgram('soffice', 'libreoffice-calc-nogui'))(
    'names a workbook opened and saved again by LibreOffice',
    () => {
      const folder = copy('resaved');
      const workbook = readdirSync(folder).find((f) => f.endsWith('-run-1.xlsx'))!;
      const saved = join(dir, 'resaved-by-soffice');
      execFileSync('soffice', ['--headless', '--convert-to', 'xlsx', '--outdir', saved, join(folder, workbook)], {
        env: { ...process.env, HOME: dir },
        timeout: 120_000,
      });
      execFileSync('cp', [join(saved, workbook), join(folder, workbook)]);
      return changedLines(folder).then((lines) =>
        expect(lines).toContainEqual(
          expect.stringMatching(new RegExp(`^ledger-recon: ${workbook}: changed since it was sealed by `)),
        ),
      );
    },
    180_000,
  );

  it("names two outputs swapped: the night's workbook and the close's", async () => {
    const folder = copy('swapped');
    const night = readdirSync(folder).find((f) => f.endsWith('-run-1.xlsx'))!;
    const close = readdirSync(folder).find((f) => f.startsWith('ledger-recon-close-') && f.endsWith('.xlsx'))!;
    execFileSync('mv', [join(folder, night), join(folder, 'swap.tmp')]);
    execFileSync('mv', [join(folder, close), join(folder, night)]);
    execFileSync('mv', [join(folder, 'swap.tmp'), join(folder, close)]);
    const lines = await changedLines(folder);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^ledger-recon: ${night}: changed since it was sealed`)),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^ledger-recon: ${close}: changed since it was sealed`)),
    );
  });
});

describe.runIf(hasProgram('openssl', 'openssl'))('the envelope with standard tools', () => {
  it('verifies with openssl over DSSE’s pre-authentication encoding, and its subjects are sha256sum’s', () => {
    const name = readdirSync(out).find((f) => f.endsWith('-run-1-evidence.dsse.json'))!;
    const envelope = JSON.parse(readFileSync(join(out, name), 'utf8')) as {
      payloadType: string;
      payload: string;
      signatures: { sig: string }[];
    };
    const payload = Buffer.from(envelope.payload, 'base64');
    const type = Buffer.from(envelope.payloadType);
    const pae = Buffer.concat([
      Buffer.from(`DSSEv1 ${type.length} `),
      type,
      Buffer.from(` ${payload.length} `),
      payload,
    ]);
    writeFileSync(join(dir, 'pae.bin'), pae);
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(envelope.signatures[0]!.sig, 'base64'));
    const verified = execFileSync(
      'openssl',
      [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        join(dir, 'signing.pub'),
        '-rawin',
        '-in',
        join(dir, 'pae.bin'),
        '-sigfile',
        join(dir, 'sig.bin'),
      ],
      { encoding: 'utf8' },
    );
    expect(verified).toContain('Signature Verified Successfully');
    const statement = JSON.parse(payload.toString('utf8')) as {
      subject: { name: string; digest: { sha256: string } }[];
    };
    for (const subject of statement.subject) {
      const sum = execFileSync('sha256sum', [join(out, subject.name)], { encoding: 'utf8' }).split(' ')[0];
      expect(sum, subject.name).toBe(subject.digest.sha256);
    }
  });
});

describe('the signing key at the edge', () => {
  it('is never printed when LEDGER_RECON_SIGN_KEY holds the key itself: refused as a key, not a path, in the line, the record and the help', async () => {
    const env = { ...simulatorEnv(sim), LEDGER_RECON_SIGN_KEY: ours.private };
    const night = await runCli(
      ['run', '--json', '--db', join(dir, 'pem-in-variable', 'ledger.db'), '--out', join(dir, 'pem-out')],
      env,
    );
    expect(night.status).toBe(2);
    expect(night.stderr).toBe(
      'ledger-recon: --sign-key (or LEDGER_RECON_SIGN_KEY) holds a key, not a path: put the key in a file only you can read (chmod 600) and give its path (the value is not shown)\n',
    );
    expect(JSON.parse(night.stdout)).toMatchObject({ verdict: 'FAILED', error: { code: 'CONFIG' } });
    const help = await runCli(['run', '--help'], env);
    for (const printed of [night.stdout, night.stderr, help.stdout]) expect(printed).not.toContain('PRIVATE KEY');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('(env: LEDGER_RECON_SIGN_KEY)');
  });
});

describe('readSigningKey', () => {
  it('reads an Ed25519 key its owner alone can read, and warns of one others can read, naming the fix', () => {
    const warned: string[] = [];
    const own = join(dir, 'signing.pem');
    expect(readSigningKey(own, (text) => warned.push(text)).asymmetricKeyType).toBe('ed25519');
    expect(warned).toEqual([]);
    const shared = join(dir, 'shared.pem');
    writeFileSync(shared, ours.private);
    chmodSync(shared, 0o644);
    readSigningKey(shared, (text) => warned.push(text));
    expect(warned).toEqual([
      `warning: --sign-key ${shared} can be read by other users (mode 0644), who could sign evidence as you: chmod 600 ${shared}`,
    ]);
  });

  it('refuses a key given where its path belongs, without echoing it', () => {
    expect(() => readSigningKey(ours.private, () => undefined)).toThrow(
      /^--sign-key \(or LEDGER_RECON_SIGN_KEY\) holds a key, not a path: .*\(the value is not shown\)$/,
    );
    expect(() => readKey(ours.public, '--public-key', 'public')).toThrow(/^--public-key holds a key, not a path/);
  });
});

describe("doctor's signing key line", () => {
  it('says ok for a key its owner alone reads, with its public fingerprint; FAIL for one others read or a key in the variable', () => {
    expect(signingKeyLine(join(dir, 'signing.pem'))).toMatchObject({
      ok: true,
      subject: 'signing key',
      text: expect.stringMatching(/: Ed25519, readable by its owner alone \(public key SHA-256 [0-9a-f]{16}…\)$/),
    });
    const shared = join(dir, 'doctor-shared.pem');
    writeFileSync(shared, ours.private);
    chmodSync(shared, 0o640);
    expect(signingKeyLine(shared)).toMatchObject({ ok: false, text: expect.stringContaining(`chmod 600 ${shared}`) });
    const inVariable = signingKeyLine(ours.private);
    expect(inVariable).toMatchObject({ ok: false, text: expect.stringContaining('holds a key, not a path') });
    expect(inVariable.text).not.toContain('PRIVATE KEY');
  });
});

describe('plain verify, without the public key', () => {
  it('names a manifest sealed again beside the envelope that signed the one before, and passes the folder as signed', async () => {
    expect((await verifyFolder(out)).problems).toEqual([]);
    const resealed = copy('resealed');
    const name = readdirSync(resealed).find((f) => f.endsWith('-run-1-evidence.json'))!;
    const manifest = JSON.parse(readFileSync(join(resealed, name), 'utf8')) as SealedManifest;
    // An insider's new seal: a figure changed and the manifest's own digest made again; the old envelope stays.
    const changed = { ...manifest, tool: { ...manifest.tool, version: `${manifest.tool.version}-resealed` } };
    writeFileSync(join(resealed, name), JSON.stringify({ ...changed, digest: manifestDigest(changed) }, null, 2));
    const envelope = name.replace(/-evidence\.json$/, '-evidence.dsse.json');
    expect((await verifyFolder(resealed)).problems).toContain(
      `${envelope}: it signs another manifest than the one beside it: the manifest was sealed again after it was signed, or the envelope is another`,
    );
  });
});
