/**
 * A workbook that no longer fits its disk while it streams: the writer must fail with the disk's
 * error, never wait for ever (Node would exit 13, silently, with a `.partial` left behind).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeXlsx, type Cell } from '../../src/report/xlsx-writer.js';
import { mountTmpfs } from '../support/mounts.js';

function* rows(count: number): Generator<Cell[]> {
  for (let i = 0; i < count; i += 1)
    yield [
      `card-${i.toString(36).padStart(8, '0')}-${'x'.repeat(40)}`,
      i,
      { cents: i * 7, currency: 'USD' },
      `reference ${i * 31}`,
    ];
}

describe('a workbook on a disk that fills up', () => {
  it('fails with ENOSPC while it streams, instead of waiting for ever', async () => {
    const disk = mountTmpfs('256k');
    if (!disk) return;
    try {
      const written = writeXlsx(
        join(disk.path, 'big.xlsx'),
        { title: 't', subject: 's', creator: 'ledger-recon', created: new Date(0) },
        [{ name: 'Rows', header: ['card', 'n', 'amount', 'reference'], rows: rows(200_000) }],
      );
      await expect(written).rejects.toMatchObject({ code: 'ENOSPC' });
    } finally {
      disk.unmount();
    }
  }, 120_000);

  it("lets go of every sheet's rows when it fails: the reader it was streaming and those of the sheets after it (a held cursor kept a server's run from ever exiting)", async () => {
    const disk = mountTmpfs('256k');
    if (!disk) return;
    const closed: string[] = [];
    async function* reader(name: string, count: number): AsyncGenerator<Cell[]> {
      try {
        for (const row of rows(count)) yield row;
      } finally {
        closed.push(name);
      }
    }
    try {
      const sheets = ['First', 'Second', 'Third'].map((name) => ({
        name,
        header: ['card', 'n', 'amount', 'reference'],
        rows: reader(name, 200_000),
      }));
      await expect(
        writeXlsx(
          join(disk.path, 'big.xlsx'),
          { title: 't', subject: 's', creator: 'ledger-recon', created: new Date(0) },
          sheets,
        ),
      ).rejects.toMatchObject({ code: 'ENOSPC' });
      expect(closed).toEqual(['First']);
      // The sheets never started were never opened: their generators are done, with nothing held.
      for (const sheet of sheets.slice(1)) expect(await sheet.rows.next()).toEqual({ done: true, value: undefined });
    } finally {
      disk.unmount();
    }
  }, 120_000);
});
