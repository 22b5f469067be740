import { rowsCheck, type FindingDraft } from './check.js';
import { cents, isoUtc, money, walletRef } from './refs.js';
import type { WalletMove, WalletPair, WalletRead } from './store.js';

export type { WalletMove, WalletRead } from './store.js';

/**
 * Judges a wallet between two reads (pure). Moves between the first answer and the second
 * request are certain. A read's balance is the wallet at one moment inside its interval: the
 * moves inside the interval before that moment are in it, those after are not. So the moves
 * inside the first read's interval that count between the reads are a latest part of them, and
 * those inside the second's an earliest part. The movement is explained when some such split
 * of each accounts for it exactly: it is then in flight (the next pair of reads judges it),
 * never a drift.
 * @returns the expected balance (every move after the first answer, up to the second answer,
 * counted) and whether the movement is explained.
 */
export function judgeWallet(
  previous: WalletRead,
  current: WalletRead,
  moves: readonly WalletMove[],
): { expectedCents: number; explained: boolean } {
  const signed = (move: WalletMove): number => (move.kind === 'placed' ? -move.cents : move.cents);
  const inside = (read: WalletRead) =>
    moves.filter((m) => m.atMs >= read.requestedAtMs && m.atMs <= read.answeredAtMs).sort((a, b) => a.atMs - b.atMs);
  const first = inside(previous);
  const second = inside(current).filter((m) => !first.includes(m));
  const certain = moves
    .filter((m) => m.atMs > previous.answeredAtMs && m.atMs < current.requestedAtMs)
    .reduce((sum, m) => sum + signed(m), 0);
  const secondTotal = second.reduce((sum, m) => sum + signed(m), 0);
  const expectedCents = previous.balanceCents + certain + secondTotal;
  if (expectedCents === current.balanceCents) return { expectedCents, explained: true };
  // What the first read's interval may add: the moves after its moment, for every moment.
  const fromFirst = new Set<number>();
  let suffix = 0;
  fromFirst.add(0);
  for (let i = first.length - 1; i >= 0; i -= 1) {
    suffix += signed(first[i] as WalletMove);
    fromFirst.add(suffix);
  }
  let prefix = 0;
  const target = current.balanceCents - previous.balanceCents - certain;
  if (fromFirst.has(target)) return { expectedCents, explained: true };
  for (const move of second) {
    prefix += signed(move);
    if (fromFirst.has(target - prefix)) return { expectedCents, explained: true };
  }
  return { expectedCents, explained: false };
}

export const dpWalletDrift = rowsCheck({
  kind: 'rows',
  code: 'DP_WALLET_DRIFT',
  severity: 'warning',
  lifecycle: 'event',
  title: 'Wallet moved more than its orders explain',
  description:
    "Between two syncs a wallet's balance should move only by the orders placed in between (deducted) and the orders that failed in between (credited back). Any other movement — a top-up, a fee, a charge without an order — is reported for someone to explain. A wallet read is an interval (the request sent to the answer received): an order placed inside it may be on either side, so a movement such orders explain is in flight, not drift.",
  read: (store, { syncRunId }) => store.wallets.walletPairs(syncRunId),
  decide(pairs: readonly WalletPair[]) {
    return pairs.flatMap(({ previous, current, moves: between }): FindingDraft[] => {
      const { expectedCents, explained } = judgeWallet(previous, current, between);
      if (explained) return [];
      const ordered = between
        .filter((m) => m.kind === 'placed' && m.atMs > previous.answeredAtMs)
        .reduce((sum, m) => sum + m.cents, 0);
      const refunded = between
        .filter((m) => m.kind === 'failed' && m.atMs > previous.answeredAtMs)
        .reduce((sum, m) => sum + m.cents, 0);
      const unexplained = current.balanceCents - expectedCents;
      return [
        {
          entityType: 'dpWallet' as const,
          entityId: current.walletId,
          currency: current.currency,
          // The wallet and the two snapshots the drift lies between.
          identity: [String(previous.syncRunId), String(current.syncRunId)],
          measure: cents(expectedCents, current.balanceCents),
          message:
            `wallet ${current.walletId} went from ${money(previous.balanceCents, current.currency)} (sync ${previous.syncRunId}, ${isoUtc(previous.answeredAtMs)}) to ${money(current.balanceCents, current.currency)} (sync ${current.syncRunId}, ${isoUtc(current.answeredAtMs)}); ` +
            `orders placed in between explain −${money(ordered, current.currency)} and failed orders +${money(refunded, current.currency)}, leaving ${money(Math.abs(unexplained), current.currency)} ${unexplained > 0 ? 'credited' : 'charged'} without an order — ask the partner for the wallet statement`,
          records: [walletRef(current.walletId)],
        },
      ];
    });
  },
});
