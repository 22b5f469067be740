/**
 * The gift card ledger as an hledger journal, so hledger can recompute every balance
 * independently of this tool, at the run's cut-off and by the ledger stage's definitions: one
 * account per card of our merchant (giftcards:<currency>:<card>), an opening transaction from
 * the initial balance, and every entry before the cut-off a transaction: a DEBIT takes its
 * amount out, a REFUND puts it back, each asserting the service's balanceAfter; a VOID or
 * EXPIRE takes the card's balanceBefore out of the liability (equity:voided, income:breakage)
 * and asserts the card owes nothing. `hledger balance giftcards:<currency>` is then the
 * liability roll-forward's closing at the same cut-off. Another merchant's cards are under
 * foreign:, never in the liability; a card an amount off the cent leaves unknown is a comment,
 * counted apart as the roll-forward counts it. Entries are written in each card's chain order;
 * hledger checks the assertions in date order, then file order.
 */
import { WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Mirror } from '../db/mirror.js';
import type { CardSnapshot, LedgerEntry } from '../ledger/types.js';
import { BEGINNING, cardBetween, closes, entryMove, type EntryMove } from '../ledger/state.js';
import { walkCardLedgers } from '../ledger/walk.js';
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

/** An amount as hledger reads it. */
function amount(cents: number, currency: string): string {
  // A commodity symbol other than letters must be double-quoted in a journal.
  return `${formatCents(cents)} ${/^[A-Za-z]+$/.test(currency) ? currency : `"${accountPart(currency)}"`}`;
}

/** Where the journal stops and whose cards are the liability. */
export interface JournalScope {
  /** Cards issued and entries made before this instant (the run's cut-off). */
  cutOffMs: number;
  /** Our merchant (null: every card is ours, as the roll-forward counts before a run pinned one). */
  merchantId: string | null;
}

/** The account that takes each entry's move, by the flow it counts in. */
const COUNTER: Record<EntryMove['flow'], string> = {
  debitedCents: 'income:redeemed',
  refundedCents: 'income:refunded',
  voidedCents: 'equity:voided',
  expiredCents: 'income:breakage',
};

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One card's transactions, or its comment when the ledger stage cannot know its figures. */
function cardJournal(card: CardSnapshot, entries: readonly LedgerEntry[], scope: JournalScope, root: string): string[] {
  const before = entries.filter((entry) => entry.createdAtMs < scope.cutOffMs);
  const figures = cardBetween(card, before, { fromMs: BEGINNING, toMs: scope.cutOffMs }, false);
  if (figures.unknown || card.initialCents === null)
    return [
      `; card ${journalText(card.giftCardId)} (${journalText(card.currency)}): an amount off the cent leaves its figures unknown; counted apart, as the roll-forward counts it (see GC_INVALID_AMOUNT)\n\n`,
    ];
  const account = `${root}:${accountPart(card.currency)}:${accountPart(card.giftCardId)}`;
  const opening = amount(card.initialCents, card.currency);
  const text = [
    `${day(card.issuedAtMs)} issued card ${journalText(card.giftCardId)}\n    ${account}  ${opening} = ${opening}\n    equity:issued\n\n`,
  ];
  for (const entry of before) {
    const move = entryMove(entry);
    const head = `${day(entry.createdAtMs)} ${journalText(entry.type)} ${journalText(entry.transactionId)}  ; reference: ${journalText(entry.referenceId)}`;
    if (move === null || move.cents === null) {
      text.push(`${head}\n    ; moves nothing in the liability\n\n`);
      continue;
    }
    const out = move.flow === 'debitedCents' || move.flow === 'voidedCents' || move.flow === 'expiredCents';
    const posted = amount(out ? -move.cents : move.cents, card.currency);
    // A closing entry leaves the card owing nothing; the service's balanceAfter stays on a card no one owes.
    const asserted = closes(entry)
      ? amount(0, card.currency)
      : entry.afterCents === null
        ? null
        : amount(entry.afterCents, card.currency);
    text.push(
      `${head}\n    ${account}  ${posted}${asserted === null ? '' : ` = ${asserted}`}\n    ${COUNTER[move.flow]}\n\n`,
    );
  }
  return text;
}

/**
 * Writes the journal to `out`: a file's stream (ended and closed here) or standard output (left
 * open). @returns the number of cards and entries written.
 */
export async function exportHledger(
  mirror: Mirror,
  out: NodeJS.WritableStream,
  scope: JournalScope,
): Promise<{ cards: number; entries: number }> {
  // A stream that fails (a full disk, a closed pipe) ends every wait on it.
  const failed = new Promise<never>((_resolve, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await Promise.race([once(out as NodeJS.EventEmitter, 'drain'), failed]);
  };
  await write(
    `; ledger-recon export of the gift card ledger at the cut-off ${new Date(scope.cutOffMs).toISOString()}: cards issued and entries made before it\n` +
      `; giftcards:<currency>:<card> are our merchant's cards${scope.merchantId === null ? '' : ` (${journalText(scope.merchantId)})`}: hledger balance giftcards:<currency> is the liability; foreign: another merchant's\n` +
      "; each DEBIT and REFUND asserts the service's balanceAfter; a VOID or EXPIRE takes the balance out and asserts 0\n\n",
  );
  let cards = 0;
  let entries = 0;
  for await (const batch of walkCardLedgers(mirror))
    for (const { card, entries: ledger } of batch) {
      if (card.issuedAtMs >= scope.cutOffMs) continue;
      const root = scope.merchantId === null || card.merchantId === scope.merchantId ? 'giftcards' : 'foreign';
      cards += 1;
      entries += ledger.filter((entry) => entry.createdAtMs < scope.cutOffMs).length;
      for (const text of cardJournal(card, ledger, scope, root)) await write(text);
    }
  if (out instanceof WriteStream) {
    out.end();
    await Promise.race([once(out, 'close'), failed]);
  }
  return { cards, entries };
}
