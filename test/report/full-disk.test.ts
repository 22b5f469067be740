/**
 * A workbook that no longer fits its disk while it streams: the writer must fail with the disk's
 * error, never wait for ever (Node would exit 13, silently, with a `.partial` left behind).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeXlsx, type Cell } from '../../src/report/xlsx-writer.js';
import { mountTmpfs } from '../support/mounts.js';

function* rows(count: number): Generator<Cell[]> {
  for (let i = 0; i < count; i += 1) yield [`card-${i.toString(36).padStart(8, '0')}-${'x'.repeat(40)}`, i, { cents: i * 7, currency: 'USD' }, `reference ${i * 31}`];
}

describe('a workbook on a disk that fills up', () => {
  it('fails with ENOSPC while it streams, instead of waiting for ever', async () => {
    const disk = mountTmpfs('256k');
    if (!disk) return;
    try {
      const written = writeXlsx(join(disk.path, 'big.xlsx'), { title: 't', subject: 's', creator: 'ledger-recon', created: new Date(0) }, [{ name: 'Rows', header: ['card', 'n', 'amount', 'reference'], rows: rows(200_000) }]);
      await expect(written).rejects.toMatchObject({ code: 'ENOSPC' });
    } finally {
      disk.unmount();
    }
  }, 120_000);
});
