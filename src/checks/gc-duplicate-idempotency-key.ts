import { rowsCheck, type FindingDraft } from './check.js';
import { cardRef, count, entryRef } from './refs.js';
import type { KeyedEntry } from './store.js';

export const gcDuplicateIdempotencyKey = rowsCheck({
  kind: 'rows',
  code: 'GC_DUPLICATE_IDEMPOTENCY_KEY',
  severity: 'error',
  lifecycle: 'state',
  title: 'One idempotency key, several entries',
  description:
    'An idempotency key makes a retried request safe: the service must commit it once. Several entries under one key mean a retry was applied twice, usually a double charge or a double refund.',
  read: (store, { asOfSync }) => store.cards.entriesSharingKey(asOfSync),
  decide(rows: readonly KeyedEntry[]) {
    const byKey = new Map<string, KeyedEntry[]>();
    for (const row of rows) byKey.set(row.idempotencyKey, [...(byKey.get(row.idempotencyKey) ?? []), row]);
    return [...byKey].map(([key, entries]): FindingDraft => {
      const ids = entries.map((e) => e.transactionId);
      const cards = [...new Set(entries.map((e) => e.giftCardId))];
      const first = [...cards].sort()[0] ?? '';
      const currency = entries
        .map((e) => e.currency)
        .filter((c): c is string => c !== null)
        .sort()[0];
      const amounts = entries.map((e) => e.amountCents).filter((a): a is number => a !== null);
      // The amounts committed beyond the one that was due.
      const repeated = amounts.length === 0 ? 0 : amounts.reduce((sum, a) => sum + a, 0) - Math.max(...amounts);
      return {
        entityType: 'giftCard',
        entityId: first,
        giftCardId: first,
        ...(currency ? { currency } : {}),
        measure: count(1, entries.length),
        atStakeCents: repeated,
        identity: [key],
        message: `idempotency key ${key} committed ${entries.length} entries (${ids.join(', ')}) on card ${cards.join(', ')} where one was due — a retried request was applied again`,
        records: [...cards.map(cardRef), ...ids.map(entryRef)],
      };
    });
  },
});
