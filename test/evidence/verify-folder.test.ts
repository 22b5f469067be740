/**
 * verify reads what a folder holds as an auditor's copy may hold it, written by anyone: regular
 * files inside the folder only, bounded in size and nesting. A FIFO or a link to /dev/zero at a
 * manifest's or a sealed file's name, a link out of the folder, a manifest nested 100,000 deep:
 * each is one problem named, and verify ends (it hung, read for ever, or aborted).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src/evidence/verify.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-verify-folder-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new folder of the test's, named `name`. */
function folder(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

describe('verify over a folder written by anyone', () => {
  it('names a FIFO, a link to /dev/zero, a link out of the folder and a folder at manifest names, reading none of them', async () => {
    const hostile = folder('hostile');
    execFileSync('mkfifo', [join(hostile, 'a-fifo-evidence.json')]);
    symlinkSync('/dev/zero', join(hostile, 'b-zero-evidence.json'));
    const outside = join(dir, 'outside-evidence.json');
    writeFileSync(outside, '{}');
    symlinkSync(outside, join(hostile, 'c-outside-evidence.json'));
    mkdirSync(join(hostile, 'd-folder-evidence.json'));
    const { problems, manifests } = await verifyFolder(hostile);
    expect(manifests).toBe(0);
    expect(problems).toEqual([
      'a-fifo-evidence.json: not a manifest (not a regular file (a FIFO))',
      'b-zero-evidence.json: not a manifest (a link out of the folder (to /dev/zero))',
      `c-outside-evidence.json: not a manifest (a link out of the folder (to ${outside}))`,
      'd-folder-evidence.json: not a manifest (not a regular file (a folder))',
    ]);
  });

  it('names a manifest nested 100,000 deep, and one larger than any manifest, and goes on', async () => {
    const deep = folder('deep');
    writeFileSync(join(deep, 'a-deep-evidence.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    writeFileSync(join(deep, 'b-large-evidence.json'), `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    const { problems } = await verifyFolder(deep);
    expect(problems).toEqual([
      'a-deep-evidence.json: not a manifest (nested deeper than 64 levels, which no manifest is)',
      'b-large-evidence.json: not a manifest (larger than 1,048,576 bytes, which no manifest is)',
    ]);
  });
});
