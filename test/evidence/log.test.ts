/**
 * The log of seals against an insider (#62): nights sealed with `--checkpoints` publish signed
 * checkpoints outside the mirror, a witness cosigns each, and `verify --checkpoint` holds a folder
 * to them. Each attack is played on a copy of the folder or on the mirror, in this process, on
 * both backends: a dropped newest night, a forged unsealed file, an edited output, a re-sealed
 * manifest (in the middle and the newest), a rewritten mirror the witness refuses, a report
 * written again (a revision: nothing overwritten), and a seal that failed mid-write.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportRun } from '../../src/app/report.js';
import { openExistingForWriting } from '../../src/db/mirror.js';
import { canonicalJson } from '../../src/evidence/canonical.js';
import { manifestDigest, type SealedManifest } from '../../src/evidence/manifest.js';
import { logName, mirrorLog } from '../../src/evidence/log.js';
import { checkpointNote, parseCheckpoint, signedByLog } from '../../src/evidence/checkpoint.js';
import { consistencyProof, treeHash, verifyConsistency } from '../../src/evidence/tlog.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyFolder } from '../../src/evidence/verify.js';
import { readCheckpoints } from '../../src/evidence/verify-log.js';
import { witness, WitnessRefusal } from '../../src/evidence/witness.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { clockAt, nightOf } from '../support/app.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, changeMirror, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { mirrorSealProblems } from '../../src/evidence/held.js';
import { verifyNight } from '../../src/app/verified.js';
import { examine } from '../../src/app/doctor.js';
import { checkCardProof, proveCard } from '../../src/evidence/prove.js';
import { reportBaseName } from '../../src/report/names.js';

const HOUR = 3_600_000;
const log = generateKeyPairSync('ed25519');
const auditor = generateKeyPairSync('ed25519');

let sim: Simulator;
let dir: string;
let db: string;
let out: string;
let place: string;
/** The log's folder under the checkpoints' place. */
let logFolder: string;
const statePath = () => join(dir, 'witness-state.json');

const cosign = (atMs: number) =>
  witness({
    logFolder,
    key: auditor.privateKey,
    name: 'auditor.example/witness',
    statePath: statePath(),
    logKey: log.publicKey,
    nowSeconds: Math.floor(atMs / 1000),
  });

const sealSettings = () => ({ signingKey: log.privateKey, checkpoints: place });

/** The folder held to the checkpoints at `checkpoint` (a file or the log's folder), with both keys. */
async function heldTo(folder: string, checkpoint: string) {
  const checkpoints = readCheckpoints(checkpoint);
  if ('problem' in checkpoints) throw new Error(checkpoints.problem);
  return verifyFolder(folder, log.publicKey, { checkpoints, witnessKey: auditor.publicKey });
}

const newestCosigned = () =>
  join(
    logFolder,
    readdirSync(logFolder)
      .filter((n) => n.endsWith('.cosigned'))
      .sort()
      .at(-1)!,
  );

/** The subject of the mirror's seal at place `sequence`. */
let subjects: string[] = [];
const manifestsSubject = (sequence: number) => subjects[sequence - 1]!;
/** The check run a night's manifest seals. */
const manifestRun = (manifest: SealedManifest) => Number(manifest.subject.replace('check run ', ''));

/** The mirror's log as the job would publish it. */
async function mirrorLogOf(db: string) {
  const mirror = await openMirrorAt(db);
  try {
    return (await mirrorLog(mirror))!;
  } finally {
    await mirror.close();
  }
}

/** What doctor says of the mirror's seals and the checkpoints published (its other lines aside). */
async function doctorSays() {
  const lines = await examine({ db, out, env: { LEDGER_RECON_CHECKPOINTS: place } });
  return lines.filter((line) => line.subject === 'evidence' || line.subject === 'checkpoints');
}

/** A copy of the reports folder, as an insider would start from it. */
function copyOfOut(name: string): string {
  const target = join(dir, name);
  execFileSync('cp', ['-r', out, target]);
  return target;
}

const manifestsIn = (folder: string) =>
  readdirSync(folder)
    .filter((n) => n.endsWith('-evidence.json'))
    .sort();

/** Re-seals the manifest `name` in `folder` after changing it: its digest made again, as an insider would. */
function reseal(folder: string, name: string): void {
  const manifest = JSON.parse(readFileSync(join(folder, name), 'utf8')) as SealedManifest;
  const changed = { ...manifest, settings: { ...manifest.settings, rewritten: true } };
  const sealed = { ...changed, digest: manifestDigest(changed) };
  writeFileSync(join(folder, name), `${JSON.stringify(JSON.parse(canonicalJson(sealed)), null, 2)}\n`);
  rmSync(join(folder, name.replace(/-evidence\.json$/, '-evidence.dsse.json')), { force: true });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-log-'));
  sim = await startSimulator({ seed: 62, size: 'tiny', nowMs: testNow() });
  db = mirrorAt(dir);
  out = join(dir, 'reports');
  place = join(dir, 'checkpoints');
  for (let night = 0; night < 3; night += 1) {
    const { result } = await nightOf(sim, db, out, { clock: clockAt(testNow() + night * HOUR), ...sealSettings() });
    if (!result.ok) throw new Error(result.record.error.message);
    if (night === 0) {
      const [first] = await rowsOfMirror<{ digest: string }>(
        db,
        'SELECT digest FROM evidence_manifests WHERE sequence = 1',
      );
      logFolder = join(place, logName(first!.digest));
    }
    cosign(testNow() + night * HOUR);
  }
}, 180_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`the log of seals (${BACKEND_NAME})`, () => {
  it('publishes a signed checkpoint and a consistency proof per seal, which the witness cosigns', () => {
    expect(readdirSync(logFolder).sort()).toEqual([
      '00000001.checkpoint',
      '00000001.cosigned',
      '00000002.checkpoint',
      '00000002.consistency.json',
      '00000002.cosigned',
      '00000003.checkpoint',
      '00000003.consistency.json',
      '00000003.cosigned',
    ]);
    const note = readFileSync(join(logFolder, '00000003.cosigned'), 'utf8');
    expect(note).toMatch(
      /^ledger-recon\.local\/log\/[0-9a-f]{16}\n3\n[A-Za-z0-9+/]{43}=\n\n— ledger-recon\.local\/log\/[0-9a-f]{16} \S+\n— auditor\.example\/witness \S+\n$/,
    );
  });

  it("refuses a state file that is not the witness's, in one line, and cosigns nothing", () => {
    const broken = join(dir, 'broken-state.json');
    writeFileSync(broken, '{not json');
    expect(() =>
      witness({
        logFolder,
        key: auditor.privateKey,
        name: 'auditor.example/witness',
        statePath: broken,
        nowSeconds: 1,
      }),
    ).toThrow(
      new WitnessRefusal(
        `--state ${broken}: not a witness's state file (what it cosigned last): give the one it wrote, or a new path to start again from the newest checkpoint`,
      ),
    );
  });

  it("holds the folder to the newest cosigned checkpoint and to the log's folder of them", async () => {
    const one = await heldTo(out, newestCosigned());
    expect(one.problems).toEqual([]);
    expect(one.log).toEqual({ size: 3, proven: 3, consistent: 0 });
    // The checkpoints' place given where its log's folder belongs: the folder is named.
    expect(readCheckpoints(place)).toEqual({
      problem: `--checkpoint ${place}: a folder without any ….checkpoint file: it holds the folders of a log; give ${logFolder}`,
    });
    const all = await heldTo(out, logFolder);
    expect(all.problems).toEqual([]);
    expect(all.log).toEqual({ size: 3, proven: 3, consistent: 2 });
  });

  it('names a dropped newest night by its place, and its outputs as sealed by nothing', async () => {
    const folder = copyOfOut('dropped');
    const newest = manifestsIn(folder).at(-1)!;
    rmSync(join(folder, newest));
    rmSync(join(folder, newest.replace(/-evidence\.json$/, '-evidence.dsse.json')));
    const { problems } = await heldTo(folder, newestCosigned());
    expect(problems).toContain(
      `place 3 of the log (${readFileSync(newestCosigned(), 'utf8').split('\n')[0]}, 3 seals by checkpoint 00000003.cosigned) is not in the folder: the newest seal's manifest was removed or never copied`,
    );
    expect(
      problems.filter((p) =>
        p.endsWith('not sealed by any manifest in the folder: added, or its manifest was removed'),
      ),
      // Its workbook, CSV, JSON and page.
    ).toHaveLength(4);
  });

  it('names a forged output no manifest seals, and an edited one', async () => {
    const folder = copyOfOut('forged');
    const workbook = readdirSync(folder).find((n) => n.endsWith('.xlsx'))!;
    writeFileSync(join(folder, 'ledger-recon-2026-11-18-run-4-findings.csv'), 'code\n');
    writeFileSync(join(folder, workbook), 'edited');
    const { problems } = await heldTo(folder, newestCosigned());
    expect(problems).toContain(
      'ledger-recon-2026-11-18-run-4-findings.csv: not sealed by any manifest in the folder: added, or its manifest was removed',
    );
    expect(problems.some((p) => p.startsWith(`${workbook}: changed since it was sealed`))).toBe(true);
  });

  it("names a night re-sealed in the middle of the chain, and the newest one re-sealed, by the log's folder exactly", async () => {
    const middle = copyOfOut('resealed-middle');
    const second = manifestsIn(middle)[1]!;
    reseal(middle, second);
    const { problems } = await heldTo(middle, newestCosigned());
    expect(problems).toContainEqual(
      expect.stringContaining(
        `${second} (place 2) was sealed again or replaced: the manifest after it names another digest for it`,
      ),
    );
    const newest = copyOfOut('resealed-newest');
    const third = manifestsIn(newest)[2]!;
    reseal(newest, third);
    expect((await heldTo(newest, newestCosigned())).problems).toContainEqual(
      expect.stringContaining('one of places 1 to 3 was sealed again or replaced'),
    );
    expect((await heldTo(newest, logFolder)).problems).toContain(
      `checkpoint 00000003.cosigned (3 seals): the folder's manifests do not give its root: ${third} (place 3) was sealed again or replaced after this checkpoint`,
    );
  });

  it('writes a report written again under a revision of its own, a leaf of its own, the first left as it was', async () => {
    const [run2] = await rowsOfMirror<{ check_run_id: number }>(
      db,
      'SELECT check_run_id FROM check_runs ORDER BY check_run_id LIMIT 1 OFFSET 1',
    );
    const before = readdirSync(out).sort();
    const originals = new Map(before.map((n) => [n, readFileSync(join(out, n))]));
    const { mirror, release } = await openExistingForWriting(db, 'report', 'run');
    let again: Awaited<ReturnType<typeof reportRun>>;
    try {
      again = await reportRun(
        { mirror, clock: clockAt(testNow() + 4 * HOUR) },
        { outDir: out, checkRunId: run2!.check_run_id, scope: { preparer: 'A. Auditor' }, ...sealSettings() },
      );
    } finally {
      await release();
    }
    expect(again.workbook).toMatch(/-run-\d+-r2\.xlsx$/);
    expect(again.evidence).toMatch(/-run-\d+-r2-evidence\.json$/);
    for (const [name, bytes] of originals) expect(readFileSync(join(out, name)).equals(bytes), name).toBe(true);
    expect(again.checkpoint).toBe(join(logFolder, '00000004.checkpoint'));
    expect(cosign(testNow() + 4 * HOUR)).toMatchObject({ size: 4, since: 3 });
    const held = await heldTo(out, newestCosigned());
    expect(held.problems).toEqual([]);
    expect(held.log).toEqual({ size: 4, proven: 4, consistent: 0 });
  });

  it('leaves no place in the chain for a seal whose manifest could not be written; the report is sealed again after', async () => {
    const [{ n: before }] = (await rowsOfMirror<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM evidence_manifests')) as [
      { n: number },
    ];
    const [run1] = await rowsOfMirror<{ check_run_id: number }>(
      db,
      'SELECT MIN(check_run_id) AS check_run_id FROM check_runs',
    );
    const { mirror, release } = await openExistingForWriting(db, 'report', 'run');
    try {
      const write = () =>
        reportRun(
          { mirror, clock: clockAt(testNow() + 5 * HOUR) },
          { outDir: out, checkRunId: run1!.check_run_id, ...sealSettings() },
        );
      // A folder where the manifest's temporary file goes: the manifest cannot be written.
      const base = join(
        out,
        readdirSync(out)
          .find((n) => /-run-\d+\.xlsx$/.test(n) && n.includes(`-run-${run1!.check_run_id}.`))!
          .replace(/\.xlsx$/, ''),
      );
      const evidence = `${base}-r2-evidence.json.${process.pid}.partial`;
      mkdirSync(evidence);
      writeFileSync(join(evidence, 'keep'), '');
      await expect(write()).rejects.toThrow();
      const [{ n: after }] = (await rowsOfMirror<{ n: number }>(
        db,
        'SELECT COUNT(*) AS n FROM evidence_manifests',
      )) as [{ n: number }];
      expect(after).toBe(before);
      // Outputs no seal vouches for are not left behind.
      expect(existsSync(`${base}-r2.xlsx`)).toBe(false);
      rmSync(evidence, { recursive: true });
      const sealed = await write();
      expect(sealed.evidence).toBe(`${base}-r2-evidence.json`);
      expect(existsSync(sealed.evidence)).toBe(true);
    } finally {
      await release();
    }
    cosign(testNow() + 5 * HOUR);
    const held = await heldTo(out, newestCosigned());
    expect(held.problems).toEqual([]);
    expect(held.log?.size).toBe(before + 1);
  });

  it("finds the mirror's seals whole and held by the folder and every checkpoint", async () => {
    const checkpoints = readCheckpoints(logFolder);
    if ('problem' in checkpoints) throw new Error(checkpoints.problem);
    const mirror = await openMirrorAt(db);
    try {
      const held = await mirrorSealProblems(mirror, { dir: out, checkpoints, publicKey: log.publicKey });
      expect(held.problems).toEqual([]);
      expect(held.seals).toBe(checkpoints.at(-1)!.note.size);
    } finally {
      await mirror.close();
    }
  });

  it('proves every card of a night in its sealed population and the log, offline, and no card whose balance was changed', async () => {
    const checkpoints = readCheckpoints(newestCosigned());
    if ('problem' in checkpoints) throw new Error(checkpoints.problem);
    const checkpoint = checkpoints[0]!.note;
    const [night] = await rowsOfMirror<{ check_run_id: number }>(
      db,
      'SELECT MIN(check_run_id) AS check_run_id FROM check_runs',
    );
    const runId = night!.check_run_id;
    const cards = (
      await rowsOfMirror<{ gift_card_id: string }>(db, 'SELECT gift_card_id FROM gift_cards ORDER BY gift_card_id')
    ).map((r) => r.gift_card_id);
    expect(cards.length).toBeGreaterThan(5);
    const mirror = await openMirrorAt(db);
    try {
      for (const card of cards) {
        const proof = await proveCard(mirror, runId, card, checkpoint.size);
        const checked = checkCardProof(JSON.parse(JSON.stringify(proof)), checkpoint, {
          logKey: log.publicKey,
          witnessKey: auditor.publicKey,
        });
        expect(checked.problems, card).toEqual([]);
        expect(checked.card?.giftCardId).toBe(card);
      }
      // A balance changed in the proof: its leaf no longer gives the sealed root.
      const proof = await proveCard(mirror, runId, cards[0]!, checkpoint.size);
      const fields = JSON.parse(proof.card.canonical) as unknown[];
      fields[7] = Number(fields[7]) + 100;
      const changed = { ...proof, card: { ...proof.card, canonical: JSON.stringify(fields) } };
      expect(checkCardProof(changed, checkpoint).problems).toEqual([
        `card ${cards[0]}: its sealed state is not in the population of check run ${runId} (its leaf and path do not give the root the manifest sealed): the card's figures were changed, or the proof is of another night`,
      ]);
      // A proof of the log at another size than the checkpoint's is named, not trusted.
      const whole = await proveCard(mirror, runId, cards[0]!);
      if (whole.log.size !== checkpoint.size)
        expect(checkCardProof(whole, checkpoint).problems[0]).toMatch(
          /^the proof is of the log at \d+ seals, the checkpoint at \d+/,
        );
      await expect(proveCard(mirror, runId, 'no-such-card')).rejects.toThrow(
        /gift card no-such-card is not among check run/,
      );
    } finally {
      await mirror.close();
    }
  });

  it("has doctor say the mirror's seals hold and are the checkpoints published", async () => {
    expect(await doctorSays()).toEqual([
      {
        ok: true,
        subject: 'evidence',
        text: expect.stringMatching(
          /^\d+ seals, each giving its digest and following the one before, the \d+ in .* the same$/,
        ),
      },
      {
        ok: true,
        subject: 'checkpoints',
        text: expect.stringMatching(/the newest checkpoint \(\d+ seals\) is the mirror's log$/),
      },
    ]);
  });

  it("is refused by the witness once the mirror's log is rewritten, naming where; verify --run names the mirror's copy", async () => {
    // The insider re-seals the mirror's second manifest (its digest made again) and seals another night.
    const [row] = await rowsOfMirror<{ manifest_json: string }>(
      db,
      'SELECT manifest_json FROM evidence_manifests WHERE sequence = 2',
    );
    const manifest = JSON.parse(row!.manifest_json) as SealedManifest;
    const changed = { ...manifest, settings: { ...manifest.settings, rewritten: true } };
    const sealed = { ...changed, digest: manifestDigest(changed) };
    await changeMirror(
      db,
      'UPDATE evidence_manifests SET manifest_json = ?, digest = ? WHERE sequence = 2',
      canonicalJson(sealed),
      sealed.digest,
    );
    subjects = (
      await rowsOfMirror<{ subject: string }>(db, 'SELECT subject FROM evidence_manifests ORDER BY sequence')
    ).map((r) => r.subject);
    // The job publishes nothing more for a mirror whose seals no longer give what it published.
    const { result } = await nightOf(sim, db, join(dir, 'elsewhere'), {
      clock: clockAt(testNow() + 6 * HOUR),
      ...sealSettings(),
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.record.error.message).toMatch(
      new RegExp(
        `^the mirror's seals are not the log published in ${logFolder}: they no longer give its checkpoint of 2 seals`,
      ),
    );
    // The insider publishes the rewritten log's checkpoint by hand, with a consistency proof of its own.
    const rewritten = await mirrorLogOf(db);
    const size = rewritten.leaves.length;
    const padded = String(size).padStart(8, '0');
    writeFileSync(
      join(logFolder, `${padded}.checkpoint`),
      checkpointNote({ origin: rewritten.origin, size, root: treeHash(rewritten.leaves) }, log.privateKey),
    );
    writeFileSync(
      join(logFolder, `${padded}.consistency.json`),
      JSON.stringify({
        origin: rewritten.origin,
        from: size - 1,
        to: size,
        proof: consistencyProof(rewritten.leaves, size - 1).map((h) => h.toString('hex')),
      }),
    );
    expect(() => cosign(testNow() + 6 * HOUR)).toThrow(WitnessRefusal);
    expect(() => cosign(testNow() + 6 * HOUR)).toThrow(
      new RegExp(
        `0*${size}\\.checkpoint: does not extend the checkpoint of ${size - 1} seals this witness cosigned: the log was rewritten`,
      ),
    );
    // The mirror's copy held to itself, to the folder and to the checkpoints the auditor holds.
    const checkpoints = readCheckpoints(join(logFolder, '00000003.cosigned'));
    if ('problem' in checkpoints) throw new Error(checkpoints.problem);
    const mirror = await openMirrorAt(db);
    try {
      expect((await mirrorSealProblems(mirror, { dir: out, checkpoints, publicKey: log.publicKey })).problems).toEqual([
        `the mirror's seal 3 (${manifestsSubject(3)}) does not follow seal 2: a seal before it was changed or replaced`,
        `the mirror's seal 2 (${manifest.subject}) is not the one sealed in ${reportBaseName({ checkRunId: manifestRun(manifest), startedAtMs: testNow() + HOUR })}-evidence.json: the mirror's copy was changed since, or the folder's`,
        `the mirror's first 3 seals do not give the root of checkpoint ${join(logFolder, '00000003.cosigned')}: the mirror's seals were rewritten after it was published`,
      ]);
    } finally {
      await mirror.close();
    }
    expect(await doctorSays()).toEqual([
      { ok: false, subject: 'evidence', text: expect.stringMatching(/^the mirror's seal 3 .* does not follow seal 2/) },
      {
        ok: false,
        subject: 'checkpoints',
        text: expect.stringMatching(
          /is not the mirror's log: the mirror's seals were rewritten or taken out since it was published/,
        ),
      },
    ]);
    // verify --run: the night re-performs as the rewritten copy says, and is not called identical.
    const verified = await verifyNight(manifestRun(manifest), { db, held: { checkpoints } });
    expect(verified.identical).toBe(false);
    expect(verified.record).toMatchObject({
      identical: false,
      seals: expect.arrayContaining([expect.stringMatching(/does not follow seal 2/)]),
    });
  });
});

describe(`checkpoints sent to an endpoint (${BACKEND_NAME})`, () => {
  it('PUTs each checkpoint and its consistency proof where a folder would hold them, credentials as Basic, and fails the night in one line the endpoint refuses', async () => {
    const received = new Map<string, { body: string; authorization: string | undefined; method: string }>();
    let refuse = false;
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        if (refuse) {
          response.writeHead(503).end('bucket is read-only');
          return;
        }
        received.set(request.url ?? '', {
          body,
          authorization: request.headers.authorization,
          method: request.method ?? '',
        });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const endpoint = `http://auditor:s3cret@127.0.0.1:${port}/audit?token=t0ken`;
    const db2 = mirrorAt(dir, 'endpoint');
    const out2 = join(dir, 'endpoint-reports');
    try {
      for (let night = 0; night < 2; night += 1) {
        const { result } = await nightOf(sim, db2, out2, {
          clock: clockAt(testNow() + night * HOUR),
          signingKey: log.privateKey,
          checkpoints: endpoint,
        });
        if (!result.ok) throw new Error(result.record.error.message);
        expect(result.record.report.checkpoint).toMatch(
          new RegExp(`^http://127\\.0\\.0\\.1:${port}/audit/[0-9a-f]{16}/0000000${night + 1}\\.checkpoint\\?…$`),
        );
      }
      const paths = [...received.keys()].map((url) => url.replace(/\/[0-9a-f]{16}\//, '/LOG/'));
      expect(paths).toEqual([
        '/audit/LOG/00000001.checkpoint?token=t0ken',
        '/audit/LOG/00000002.consistency.json?token=t0ken',
        '/audit/LOG/00000002.checkpoint?token=t0ken',
      ]);
      const bodies = [...received.values()];
      expect(
        bodies.every(
          (b) => b.method === 'PUT' && b.authorization === `Basic ${Buffer.from('auditor:s3cret').toString('base64')}`,
        ),
      ).toBe(true);
      const [one, proof, two] = bodies.map((b) => b.body);
      const first = parseCheckpoint(one!);
      const second = parseCheckpoint(two!);
      if ('problem' in first || 'problem' in second) throw new Error('not checkpoints');
      expect(signedByLog(second, log.publicKey)).toBe(true);
      const consistency = JSON.parse(proof!) as { from: number; to: number; proof: string[] };
      expect(
        verifyConsistency(
          1,
          2,
          consistency.proof.map((h) => Buffer.from(h, 'hex')),
          first.root,
          second.root,
        ),
      ).toBe(true);

      refuse = true;
      const { result } = await nightOf(sim, db2, out2, {
        clock: clockAt(testNow() + 2 * HOUR),
        signingKey: log.privateKey,
        checkpoints: endpoint,
      });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.record.error.message).toMatch(
        new RegExp(
          `^--checkpoints http://127\\.0\\.0\\.1:${port}/audit/[0-9a-f]{16}/00000003\\.consistency\\.json\\?…: HTTP 503 \\(bucket is read-only\\): the checkpoint of 3 seals was not published`,
        ),
      );
      expect(JSON.stringify(result.record)).not.toMatch(/s3cret|t0ken/);
    } finally {
      server.close();
    }
  });
});
