/**
 * The aged part of a merchant's world, for the liability workpaper: cards issued over six years in
 * two programs, one expiring after five years (PRG-LEGACY) and one with no
 * practical expiry (PRG-EVERGREEN), redeemed as gift cards are (most of the value in the first
 * months, a long tail, some cards never used, some left dormant with a balance). Every move is
 * legal: a healthy aged world reconciles. Drawn from a random stream of its own, so that adding
 * it changes nothing else the seed makes.
 */
import { DAY, type CardTemplate, type GiftCardWorld } from './giftcard-world.js';
import { Random } from './random.js';

/** The aged programs' templates. */
export function agedTemplates(random: Random): CardTemplate[] {
  return [
    {
      id: random.uuid(),
      programId: 'PRG-LEGACY',
      currency: 'USD',
      denominations: [2_500, 5_000, 10_000],
      minRedemption: 100,
      allowPartial: true,
      validityDays: 5 * 365,
    },
    {
      id: random.uuid(),
      programId: 'PRG-EVERGREEN',
      currency: 'USD',
      denominations: [2_000, 5_000],
      minRedemption: 0,
      allowPartial: true,
      // No practical expiry: a hundred years.
      validityDays: 36_500,
    },
  ];
}

/** How far back the aged cards are issued: six years (a five-year dormancy period has cards past it). */
const AGED_HISTORY_DAYS = 6 * 365;

/** Days until the next redemption: most soon after the last, a long tail (an exponential of `meanDays`). */
function waitDays(random: Random, meanDays: number): number {
  return Math.max(1, Math.round(-Math.log(1 - random.next()) * meanDays));
}

/**
 * Issues `count` aged cards to `merchantId` and redeems them. The world's expiry job (run before
 * it is finalized) expires the PRG-LEGACY cards past their expiry.
 */
export function generateAged(gc: GiftCardWorld, merchantId: string, count: number, seed: number, nowMs: number): void {
  if (count <= 0) return;
  const random = new Random(seed * 7_919 + 5);
  const templates = agedTemplates(random);
  for (let i = 0; i < count; i += 1) {
    const template = templates[i % templates.length] as CardTemplate;
    const issuedAt = nowMs - random.int(2, AGED_HISTORY_DAYS) * DAY - random.int(0, DAY - 1);
    const card = gc.issueCard(merchantId, template, issuedAt);
    // Some 15 % are never used; the others are redeemed in up to five steps, the first soon after the issue.
    if (random.chance(0.15)) continue;
    const steps = random.int(1, 5);
    let at = issuedAt + waitDays(random, 20) * DAY;
    for (let step = 0; step < steps; step += 1) {
      if (at >= nowMs - DAY || at >= card.expiresAtMs - DAY || card.balance <= 0) break;
      const last = step === steps - 1 && random.chance(0.55);
      const amount = last
        ? card.balance
        : Math.max(template.minRedemption, Math.round(card.balance * (0.2 + 0.5 * random.next())));
      if (gc.canDebit(card, at, Math.min(amount, card.balance))) gc.debit(card, at, Math.min(amount, card.balance));
      // A tail: later redemptions further apart.
      at += waitDays(random, 60 * (step + 1)) * DAY;
    }
  }
}
