/**
 * The gift card ledger as an hledger journal, so hledger can recompute every balance
 * independently of this tool: one account per card (giftcards:<currency>:<card>), an opening
 * transaction from the initial balance, and every entry a transaction whose posting carries a
 * balance assertion from the service's balanceAfter. Entries are written in each card's chain
 * order; hledger checks the assertions in date order, then file order.
 */
import { WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Mirror } from '../db/mirror.js';
import { ReportStore } from './store.js';
import { formatCents } from '../money.js';

/**
 * Text from the services made inert for a journal: control characters (a newline would start a
 * forged transaction or an `include`) shown as escapes, never passed through, never dropped.
 */
export function journalText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * One component of an account name: only letters, digits, `.`, `_` and `-` pass; anything else
 * (hledger reads `:` as a sub-account, two spaces as the end of the name, `;` as a comment) is
 * written as `%XX`.
 */
export function accountPart(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** An amount as hledger reads it: the exact decimal the service sent when it is off the cent. */
function amount(cents: number | null, raw: number | null, currency: string): string {
  const text = cents !== null ? formatCents(cents) : String(raw ?? 0);
  // A commodity symbol other than letters must be double-quoted in a journal.
  return `${text} ${/^[A-Za-z]+$/.test(currency) ? currency : `"${accountPart(currency)}"`}`;
}

/**
 * Writes the journal to `out`: a file's stream (ended and closed here) or standard output (left
 * open). @returns the number of cards and entries written.
 */
export async function exportHledger(
  mirror: Mirror,
  out: NodeJS.WritableStream,
): Promise<{ cards: number; entries: number }> {
  // A stream that fails (a full disk, a closed pipe) ends every wait on it.
  const failed = new Promise<never>((_resolve, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await Promise.race([once(out as NodeJS.EventEmitter, 'drain'), failed]);
  };
  await write(
    `; ledger-recon export of the gift card ledger, ${new Date().toISOString()}\n; one account per card; each posting asserts the service's balanceAfter\n\n`,
  );
  let cards = 0;
  let entries = 0;
  let current = '';
  for await (const batch of new ReportStore(mirror).journal())
    for (const row of batch) {
      const account = `giftcards:${accountPart(row.currency)}:${accountPart(row.gift_card_id)}`;
      if (row.gift_card_id !== current) {
        current = row.gift_card_id;
        cards += 1;
        const opening = amount(row.initial_balance_cents, row.initial_raw, row.currency);
        await write(
          `${row.issued_at.slice(0, 10)} issued card ${journalText(row.gift_card_id)}\n    ${account}  ${opening} = ${opening}\n    equity:issued\n\n`,
        );
      }
      if (row.transaction_id === null || row.type === null || row.created_at === null) continue;
      entries += 1;
      const moved = row.type === 'DEBIT' || row.type === 'REFUND';
      const sign = row.type === 'DEBIT' ? '-' : '';
      const posting = moved
        ? `${sign}${amount(row.amount_cents, row.amount_raw, row.currency)}`.replace(/^--/, '')
        : `0 ${row.currency}`;
      const counter =
        row.type === 'DEBIT' ? 'income:redeemed' : row.type === 'REFUND' ? 'income:refunded' : 'equity:closed';
      await write(
        `${row.created_at.slice(0, 10)} ${journalText(row.type)} ${journalText(row.transaction_id)}  ; reference: ${journalText(row.reference_id ?? '')}\n    ${account}  ${posting} = ${amount(row.balance_after_cents, row.after_raw, row.currency)}\n    ${counter}\n\n`,
      );
    }
  if (out instanceof WriteStream) {
    out.end();
    await Promise.race([once(out, 'close'), failed]);
  }
  return { cards, entries };
}
