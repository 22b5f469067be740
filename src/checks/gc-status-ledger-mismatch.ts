import { cardCheck } from './check.js';
import { cardRef, closesCard, entryRef } from './refs.js';

/** Which closing entry each closed status needs. */
const CLOSING_ENTRY: Record<string, 'VOID' | 'EXPIRE'> = { INACTIVE: 'VOID', EXPIRED: 'EXPIRE' };
const STATUS_AFTER: Record<'VOID' | 'EXPIRE', string> = { VOID: 'INACTIVE', EXPIRE: 'EXPIRED' };

export const gcStatusLedgerMismatch = cardCheck({
  kind: 'card',
  code: 'GC_STATUS_LEDGER_MISMATCH',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Status disagrees with the ledger',
  description:
    'A card is INACTIVE only through a VOID entry and EXPIRED only through an EXPIRE entry, and those entries leave it in that status. A card whose status and ledger disagree was changed outside the ledger: ask who changed it and why.',
  timeSensitive: true,
  inspect({ card, entries }) {
    const close = entries.find(closesCard);
    const needed = CLOSING_ENTRY[card.status];
    let problem: string | null = null;
    if (needed && close?.type !== needed) {
      problem = close
        ? `is ${card.status} but its ledger closes it with ${close.type} entry ${close.transactionId}`
        : `is ${card.status} but its ledger has no ${needed} entry`;
    } else if (close && !needed) {
      problem = `has ${close.type} entry ${close.transactionId} but is still ${card.status}, not ${STATUS_AFTER[close.type as 'VOID' | 'EXPIRE']}`;
    }
    if (problem === null) return [];
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        message: `card ${card.giftCardId} ${problem} — its status was changed outside the ledger; ask who changed it`,
        records: [cardRef(card.giftCardId), ...(close ? [entryRef(close.transactionId)] : [])],
      },
    ];
  },
});
