import { queryCheck } from './check.js';
import { cardRef } from './refs.js';

export const gcInFlight = queryCheck({
  kind: 'query',
  code: 'GC_IN_FLIGHT',
  severity: 'info',
  lifecycle: 'state',
  title: 'Card moved during the sync',
  description:
    'The services keep working while the sync reads them. A card that still moved after the settle pass, or that the confirmation pass finds moved on (another balance or status; a new version alone is not a move), cannot be compared like with like; its balance checks wait for the next run, and a balance break seen before is held with its first-seen date. Not a break.',
  run({ sqlite, syncRunId }) {
    const rows = sqlite
      .prepare('SELECT f.gift_card_id, f.detail, c.currency FROM gift_cards_in_flight f LEFT JOIN gift_cards c ON c.gift_card_id = f.gift_card_id WHERE f.sync_run_id = ? ORDER BY f.gift_card_id')
      .all(syncRunId) as { gift_card_id: string; detail: string; currency: string | null }[];
    return rows.map((row) => ({
      entityType: 'giftCard',
      entityId: row.gift_card_id,
      giftCardId: row.gift_card_id,
      ...(row.currency ? { currency: row.currency } : {}),
      message: `card ${row.gift_card_id} moved while the sync read it (${row.detail}); its balance checks wait for the next run`,
      records: [cardRef(row.gift_card_id)],
    }));
  },
});
