/**
 * The mirror's identity: both services' addresses and client IDs, bound by the first sync.
 * A sync pointed at other services (another base URL or client) stops with one line naming the
 * difference, unless `--rebind` moves the mirror on purpose: two services' data never merge.
 */
import { MirrorError } from '../errors.js';
import type { SyncStore } from './store.js';

export interface Identity {
  giftcardBaseUrl: string;
  giftcardClientId: string;
  dpBaseUrl: string;
  dpClientId: string;
}

const LABEL: Record<keyof Identity, string> = {
  giftcardBaseUrl: 'GIFTCARD_API_URL',
  giftcardClientId: 'GIFTCARD_CLIENT_ID',
  dpBaseUrl: 'DP_API_URL',
  dpClientId: 'DP_CLIENT_ID',
};

/**
 * Binds the mirror to `identity` on its first sync, or checks that it is the same one.
 * A mirror synced before identities were recorded is bound now, after its newest sync's
 * addresses are checked. With `rebind`, a different identity replaces the bound one; so does
 * any identity, while the mirror holds nothing the services sent.
 * @returns 'moved' when the mirror moved to other services' credentials (the caller retires what
 * the previous ones listed); 'readdressed' when only the addresses changed, the same client IDs
 * reaching the same services by another name (`localhost` for `127.0.0.1`, a new load
 * balancer): nothing is retired, the sync reads everything again, and every earlier night can
 * still be re-performed however many times the address moves; 'same' otherwise.
 * @throws MirrorError naming each difference, when the identity differs and `rebind` is not set.
 */
export async function bindIdentity(
  store: SyncStore,
  identity: Identity,
  rebind: boolean,
  nowMs: number,
): Promise<'same' | 'readdressed' | 'moved'> {
  const row = await store.runs.boundIdentity();
  let bound: Identity | undefined = row && {
    giftcardBaseUrl: row.giftcard_base_url,
    giftcardClientId: row.giftcard_client_id,
    dpBaseUrl: row.dp_base_url,
    dpClientId: row.dp_client_id,
  };
  if (!bound) {
    const newest = await store.runs.newestSyncAddresses();
    // Earlier versions recorded the addresses only: those are what a legacy mirror can be held to.
    if (newest) bound = { ...identity, giftcardBaseUrl: newest.giftcard_base_url, dpBaseUrl: newest.dp_base_url };
  }
  const differences = bound
    ? (Object.keys(LABEL) as (keyof Identity)[]).filter((key) => bound[key] !== identity[key])
    : [];
  // Bound by a sync that read nothing (refused credentials, an unreachable service): no records
  // of other services to keep apart, so these services take the mirror without --rebind.
  if (differences.length > 0 && !rebind && (await store.runs.holdsRecords())) {
    const listed = differences
      .map((key) => `${LABEL[key]} ${identity[key]} (the mirror's: ${bound?.[key]})`)
      .join('; ');
    throw new MirrorError(
      `this mirror holds another service's records: ${listed}. Give --db another mirror, or pass --rebind to move this one to these services on purpose (its history stays)`,
    );
  }
  const binding =
    differences.length === 0
      ? 'same'
      : differences.every((key) => key === 'giftcardBaseUrl' || key === 'dpBaseUrl')
        ? 'readdressed'
        : 'moved';
  await store.runs.bindIdentity({
    giftcard_base_url: identity.giftcardBaseUrl,
    giftcard_client_id: identity.giftcardClientId,
    dp_base_url: identity.dpBaseUrl,
    dp_client_id: identity.dpClientId,
    // A new address of the same services keeps the binding's time: re-performance reads a
    // rebind of a mirror older than the syncs' own mark by it (EvidenceStore.reboundAfter).
    bound_at: binding === 'readdressed' && row ? row.bound_at : new Date(nowMs).toISOString(),
  });
  return binding;
}
