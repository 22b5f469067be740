/**
 * Sealed nights: every run and close writes an evidence manifest beside its outputs and into the
 * mirror's chain, and `verify` checks an auditor's copy of the folder offline, naming a changed
 * file, a missing or inserted night and a broken link each in one line.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestDigest, type SealedManifest } from '../../src/evidence/manifest.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { closeOf, nightOf, reportOf, told } from '../support/app.js';
import { verifyFolderAt } from '../../src/app/verified.js';
import { BACKEND_NAME, mirrorAt, rowsOfMirror } from '../support/test-db.js';
import { testDate, testNow } from '../support/test-clock.js';

let dir: string;
let sim: Simulator | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-evidence-'));
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const manifestsIn = (folder: string): string[] =>
  readdirSync(folder)
    .filter((n) => n.endsWith('-evidence.json'))
    .sort();
const read = (path: string): SealedManifest => JSON.parse(readFileSync(path, 'utf8')) as SealedManifest;
const write = (path: string, manifest: SealedManifest): void => writeFileSync(path, JSON.stringify(manifest, null, 2));
/** A manifest forged with a digest that matches its forged contents. */
const forged = (manifest: SealedManifest, change: Partial<SealedManifest>): SealedManifest => {
  const next = { ...manifest, ...change };
  return { ...next, digest: manifestDigest(next) };
};

/** `verify` on a copy of the folder, changed by `tamper`. */
async function verifyCopy(reports: string, name: string, tamper: (copy: string) => void) {
  const copy = join(dir, name);
  cpSync(reports, copy, { recursive: true });
  tamper(copy);
  const result = await told(() => verifyFolderAt(copy));
  return { status: result.status, stdout: result.stdout, lines: result.stderr.trim().split('\n') };
}

describe(`sealed nights and closes (${BACKEND_NAME})`, () => {
  it('seals every run and close into one chain, which verify checks offline and which names each tampering', async () => {
    sim = await startSimulator({ size: 'tiny', seed: 52 });
    const db = mirrorAt(dir);
    const reports = join(dir, 'reports');
    const nights: { report: { evidence: string } }[] = [];
    for (let night = 1; night <= 2; night += 1) {
      const { result } = await nightOf(sim, db, reports);
      expect(result.record.exitCode).toBe(0);
      if (result.ok) nights.push(result.record);
    }
    const month = testDate().toISOString().slice(0, 7);
    const close = await closeOf(db, reports, month, testNow());
    expect(close.result.closes).toBe(true);
    expect(close.evidence).toContain(`ledger-recon-close-${month}-evidence.json`);

    // One chain in the mirror and in the folder: run 1, run 2, the close.
    const chain = await rowsOfMirror<{
      sequence: unknown;
      subject: string;
      digest: string;
      previous_digest: string | null;
    }>(db, 'SELECT sequence, subject, digest, previous_digest FROM evidence_manifests ORDER BY sequence');
    expect(chain.map((m) => [Number(m.sequence), m.subject])).toEqual([
      [1, 'check run 1'],
      [2, 'check run 2'],
      [3, `close ${month}`],
    ]);
    expect(chain.map((m) => m.previous_digest)).toEqual([null, chain[0]!.digest, chain[1]!.digest]);
    const [first, second, closing] = manifestsIn(reports).map((name) => read(join(reports, name)));
    expect([first!.subject, second!.subject, closing!.subject]).toEqual([
      'check run 1',
      'check run 2',
      `close ${month}`,
    ]);
    const night2 = read(nights[1]!.report.evidence);
    expect(night2).toMatchObject({ sequence: 2, previous: first!.digest, kind: 'run' });
    expect(night2.outputs.map((o) => o.file)).toEqual([
      expect.stringMatching(/run-2\.xlsx$/),
      expect.stringMatching(/run-2-findings\.csv$/),
      expect.stringMatching(/run-2-findings\.json$/),
      expect.stringMatching(/run-2\.html$/),
    ]);
    expect(night2.population.giftCards?.cards).toBeGreaterThan(0);
    expect(night2.population.giftCards?.merkleRoot).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(night2)).not.toContain(sim.credentials.giftcard.clientSecret);

    const intact = await told(() => verifyFolderAt(reports));
    expect(intact.stderr).toBe('');
    expect(intact.stdout).toBe(`verified ${reports}: 3 manifests, 15 sealed files, one unbroken chain per mirror\n`);
    expect(intact.status).toBe(0);

    const csv = night2.outputs[1]!.file;
    const changed = await verifyCopy(reports, 'changed', (copy) =>
      writeFileSync(join(copy, csv), `${readFileSync(join(copy, csv), 'utf8')}x`),
    );
    expect(changed.status).toBe(1);
    expect(changed.lines[0]).toMatch(
      new RegExp(`^ledger-recon: ${csv}: changed since it was sealed by .*run-2-evidence\\.json \\(SHA-256 `),
    );

    // The night's page is sealed like its workbook: a chart's figure changed in it is named too.
    const page = night2.outputs[3]!.file;
    const repainted = await verifyCopy(reports, 'repainted', (copy) =>
      writeFileSync(join(copy, page), readFileSync(join(copy, page), 'utf8').replace('"verdict":"', '"verdict":"X')),
    );
    expect(repainted.status).toBe(1);
    expect(repainted.lines[0]).toMatch(
      new RegExp(`^ledger-recon: ${page}: changed since it was sealed by .*run-2-evidence\\.json \\(SHA-256 `),
    );

    const night2Name = manifestsIn(reports)[1]!;
    const missing = await verifyCopy(reports, 'missing', (copy) => unlinkSync(join(copy, night2Name)));
    expect(missing.status).toBe(1);
    expect(missing.lines[0]).toMatch(
      /^ledger-recon: missing from the chain: place 2, between .*run-1-evidence\.json and .*close-.*-evidence\.json$/,
    );

    const inserted = await verifyCopy(reports, 'inserted', (copy) =>
      write(
        join(copy, 'ledger-recon-2026-01-01-run-9-evidence.json'),
        forged(night2, { subject: 'check run 9', outputs: [] }),
      ),
    );
    expect(inserted.status).toBe(1);
    expect(inserted.lines[0]).toMatch(/^ledger-recon: .*: inserted: it claims place 2 in the chain, which .* holds$/);

    const broken = await verifyCopy(reports, 'broken', (copy) =>
      write(join(copy, night2Name), forged(night2, { previous: 'f'.repeat(64) })),
    );
    expect(broken.status).toBe(1);
    expect(broken.lines[0]).toBe(
      `ledger-recon: ${night2Name}: broken link: it does not follow ${manifestsIn(reports)[0]} (its previous digest is another)`,
    );

    const edited = await verifyCopy(reports, 'edited', (copy) =>
      write(join(copy, night2Name), { ...night2, settings: { failOn: 'warning' } }),
    );
    expect(edited.status).toBe(1);
    expect(edited.lines[0]).toBe(
      `ledger-recon: ${night2Name}: the manifest was changed: its contents no longer give its digest`,
    );

    const gone = await verifyCopy(reports, 'gone', (copy) => unlinkSync(join(copy, night2.outputs[0]!.file)));
    expect(gone.status).toBe(1);
    expect(gone.lines[0]).toBe(`ledger-recon: ${night2.outputs[0]!.file}: missing (sealed by ${night2Name})`);

    // The same report written again: a revision of its own and a link of its own; the first stays as it was.
    const sealedBefore = readFileSync(nights[0]!.report.evidence);
    const again = await reportOf(db, { checkRunId: 1, outDir: reports });
    expect(again.workbook).toMatch(/-run-1-r2\.xlsx$/);
    expect(readFileSync(nights[0]!.report.evidence)).toEqual(sealedBefore);
    expect(await rowsOfMirror(db, 'SELECT sequence FROM evidence_manifests')).toHaveLength(4);
    const revised = await told(() => verifyFolderAt(reports));
    expect(revised.stdout).toBe(
      `verified ${reports}: 4 manifests, 19 sealed files, one unbroken chain per mirror\n  check run 1 sealed 2 times: ${manifestsIn(reports)[0]}, then ${manifestsIn(reports)[1]}\n`,
    );
  });

  it('refuses a folder that is not one, and says when a folder holds no manifest', async () => {
    const none = await told(() => verifyFolderAt(join(dir, 'nowhere')));
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('not a folder');
    const empty = await told(() => verifyFolderAt(dir));
    expect(empty.status).toBe(1);
    expect(empty.stderr).toBe(`ledger-recon: ${dir} holds no evidence manifest (…-evidence.json): nothing to verify\n`);
  });
});
