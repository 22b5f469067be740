import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMirror } from '../../src/db/mirror.js';
import { giftCards } from '../../src/db/schema.js';
import { selectList, type RowOf } from '../../src/db/typed-rows.js';

const COLUMNS = [
  giftCards.giftCardId,
  giftCards.programId,
  giftCards.issuedAtMs,
  giftCards.initialBalanceCents,
] as const;
type Row = RowOf<typeof COLUMNS>;

describe('raw rows typed by the schema', () => {
  it('types each position as its column: a nullable column may be null, a NOT NULL one may not (checked by tsc)', () => {
    const row: Row = ['card-1', null, 1, null];
    // @ts-expect-error a number is no card ID
    const wrongType: Row = [1, null, 1, null];
    // @ts-expect-error issued_at_ms is NOT NULL
    const wrongNull: Row = ['card-1', null, null, null];
    expect([row, wrongType, wrongNull]).toHaveLength(3);
  });

  it('reads the real mirror through a SELECT list made of the schema’s columns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-typed-'));
    const mirror = openMirror(join(dir, 'ledger.db'));
    try {
      expect(selectList(COLUMNS)).toBe('"gift_card_id", "program_id", "issued_at_ms", "initial_balance_cents"');
      mirror.sqlite
        .prepare(`INSERT INTO gift_cards (gift_card_id, merchant_id, status, currency, program_id, initial_balance_cents, remaining_balance_cents, version, issued_at, issued_at_ms, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, read_at_ms, read_sync_run_id, first_sync_run_id, raw_json)
                  VALUES ('card-1', 'm', 'ACTIVE', 'USD', NULL, 500, 500, 1, 'x', 7, 'x', 9, 'x', 'x', 7, 7, 1, 1, '{}')`)
        .run();
      const rows = await mirror.connection.readRaw<Row>(`SELECT ${selectList(COLUMNS)} FROM gift_cards`).all();
      expect(rows).toEqual([['card-1', null, 7, 500]]);
    } finally {
      mirror.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
