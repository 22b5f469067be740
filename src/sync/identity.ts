/**
 * The mirror's identity: both services' addresses and client IDs, bound by the first sync.
 * A sync pointed at other services (another base URL or client) stops with one line naming the
 * difference, unless `--rebind` moves the mirror on purpose: two services' data never merge.
 */
import type Database from 'better-sqlite3';
import { MirrorError } from '../errors.js';

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
 * addresses are checked. With `rebind`, a different identity replaces the bound one.
 * @returns whether the mirror moved to another identity (the caller retires what the previous one listed).
 * @throws MirrorError naming each difference, when the identity differs and `rebind` is not set.
 */
export function bindIdentity(sqlite: Database.Database, identity: Identity, rebind: boolean, nowMs: number): boolean {
  type Row = Identity & { identityId: number };
  let bound = sqlite
    .prepare('SELECT identity_id AS identityId, giftcard_base_url AS giftcardBaseUrl, giftcard_client_id AS giftcardClientId, dp_base_url AS dpBaseUrl, dp_client_id AS dpClientId FROM mirror_identity WHERE identity_id = 1')
    .get() as Row | undefined;
  if (!bound) {
    const newest = sqlite.prepare('SELECT giftcard_base_url AS giftcardBaseUrl, dp_base_url AS dpBaseUrl FROM sync_runs ORDER BY sync_run_id DESC LIMIT 1').get() as Pick<Identity, 'giftcardBaseUrl' | 'dpBaseUrl'> | undefined;
    // Earlier versions recorded the addresses only: those are what a legacy mirror can be held to.
    if (newest) bound = { identityId: 1, ...identity, ...newest };
  }
  const differences = bound ? (Object.keys(LABEL) as (keyof Identity)[]).filter((key) => bound[key] !== identity[key]) : [];
  if (differences.length > 0 && !rebind) {
    const listed = differences.map((key) => `${LABEL[key]} ${identity[key]} (the mirror's: ${bound?.[key]})`).join('; ');
    throw new MirrorError(`this mirror holds another service's records: ${listed}. Give --db another mirror, or pass --rebind to move this one to these services on purpose (its history stays)`);
  }
  sqlite
    .prepare(
      `INSERT INTO mirror_identity (identity_id, giftcard_base_url, giftcard_client_id, dp_base_url, dp_client_id, bound_at) VALUES (1, ?, ?, ?, ?, ?)
       ON CONFLICT (identity_id) DO UPDATE SET giftcard_base_url = excluded.giftcard_base_url, giftcard_client_id = excluded.giftcard_client_id,
         dp_base_url = excluded.dp_base_url, dp_client_id = excluded.dp_client_id, bound_at = excluded.bound_at
       WHERE mirror_identity.giftcard_base_url IS NOT excluded.giftcard_base_url OR mirror_identity.giftcard_client_id IS NOT excluded.giftcard_client_id
          OR mirror_identity.dp_base_url IS NOT excluded.dp_base_url OR mirror_identity.dp_client_id IS NOT excluded.dp_client_id`,
    )
    .run(identity.giftcardBaseUrl, identity.giftcardClientId, identity.dpBaseUrl, identity.dpClientId, new Date(nowMs).toISOString());
  return differences.length > 0;
}
