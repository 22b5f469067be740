/**
 * `ledger-recon fleet` as a monitor runs it: a line per merchant, worst first, the page and the
 * JSON written, exit 1 when one needs a person and 2 when it was given nothing to read. What the
 * rows hold is tested in-process (test/app/fleet.test.ts).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cli-fleet-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ledger-recon fleet', () => {
  it('says each mirror in a line, writes its page and JSON, exits 1 for one it cannot read and 2 for none given', async () => {
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database');
    const out = join(dir, 'out');
    const cases = [
      {
        args: ['fleet', garbage, '--out', out],
        status: 1,
        // Named as fleet's argument, not as --db; the row names the mirror once.
        stdout:
          /^UNREADABLE +\S*garbage\.db — not a mirror \(the file is no SQLite database\): name the mirror's file, e\.g\. \S*ledger\.db\n/,
        stderr: '',
      },
      {
        args: ['fleet', '--out', out],
        status: 2,
        stdout: /^$/,
        stderr:
          'ledger-recon: fleet reads the mirrors it is given: name their files, or --server postgres://…/db for every schema holding one\n',
      },
    ];
    for (const expected of cases) {
      const result = await runCli(expected.args, cleanEnv());
      expect(result.status, result.stderr).toBe(expected.status);
      expect(result.stdout).toMatch(expected.stdout);
      expect(result.stderr).toBe(expected.stderr);
    }
    expect(readdirSync(out).sort()).toEqual([
      expect.stringMatching(/^ledger-recon-fleet-\d{4}-\d\d-\d\d\.html$/),
      expect.stringMatching(/^ledger-recon-fleet-\d{4}-\d\d-\d\d\.json$/),
    ]);
  });
});
