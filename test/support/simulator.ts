import { DpClient, type DpClientOptions } from '../../src/api/dp-client.js';
import { GiftCardClient, type GiftCardClientOptions } from '../../src/api/giftcard-client.js';
import type { ServiceConfig } from '../../src/config.js';
import { Secret } from '../../src/secret.js';
import { PLANTED_DAYS_BACK } from '../../src/sim/planted-breaks.js';
import { startSimulator, type Credentials, type Simulator, type SimulatorOptions } from '../../src/sim/simulator.js';
import { testNow } from './test-clock.js';

/** The month a planted world's breaks begin in (they begin PLANTED_DAYS_BACK days before its now). */
export function plantedMonth(nowMs = testNow()): string {
  return new Date(nowMs - PLANTED_DAYS_BACK * 86_400_000).toISOString().slice(0, 7);
}

/**
 * A month a planted world (the demo's) ties out in: the one before the month its planted breaks
 * begin in. "Last month" held them on the first twenty days of a month.
 */
export function quietMonthOfPlanted(nowMs = testNow()): string {
  const planted = new Date(nowMs - PLANTED_DAYS_BACK * 86_400_000);
  return new Date(Date.UTC(planted.getUTCFullYear(), planted.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
}

/** Fast retries for tests: the policy is the same, only the waits are short. */
export const FAST_RETRY = { baseDelayMs: 2, maxDelayMs: 20, maxRetries: 8 };

export interface TestServices {
  sim: Simulator;
  giftcard: GiftCardClient;
  dp: DpClient;
  close(): Promise<void>;
}

export function giftcardConfig(sim: Simulator, credentials: Credentials = sim.credentials.giftcard): ServiceConfig {
  return {
    service: 'giftcard',
    baseUrl: sim.giftcardUrl,
    clientId: credentials.clientId,
    clientSecret: new Secret(credentials.clientSecret),
  };
}

export function dpConfig(sim: Simulator, credentials: Credentials = sim.credentials.dp): ServiceConfig {
  return {
    service: 'dp',
    baseUrl: sim.dpUrl,
    clientId: credentials.clientId,
    clientSecret: new Secret(credentials.clientSecret),
  };
}

/** Starts a simulator on loopback with clients of both services; close() stops all of it. */
export async function startServices(
  options: SimulatorOptions = {},
  clientOptions: GiftCardClientOptions & DpClientOptions = {},
): Promise<TestServices> {
  const sim = await startSimulator({ size: 'tiny', recordRequests: true, ...options });
  const merged = { retry: FAST_RETRY, ...clientOptions };
  const giftcard = new GiftCardClient(giftcardConfig(sim), merged);
  const dp = new DpClient(dpConfig(sim), merged);
  return {
    sim,
    giftcard,
    dp,
    close: async () => {
      await Promise.all([giftcard.close(), dp.close()]);
      await sim.close();
    },
  };
}

/** Collects every record of a paged list. */
export async function collect<T>(pages: AsyncIterable<{ records: T[] }>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page.records);
  return all;
}

/** A coupon and an order that pass validation (not a planted malformed one), by ID. */
export function validCouponAndOrder(sim: Simulator): { coupon: string; order: string } {
  const truth = sim.truth();
  return {
    coupon: truth.coupons.find((c) => typeof c.redemptionCount === 'number')?.couponId ?? '',
    order: truth.orders.find((o) => typeof o.totalAmount === 'number')?.orderID ?? '',
  };
}
