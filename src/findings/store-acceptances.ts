/**
 * The acceptances of known breaks: every one on record (the standing reads them), one recorded
 * or replaced as its break stands (`ledger-recon accept`), and those in force at a past instant
 * (a past night's standing re-performed), from the history every recording appends to.
 */
import type { MirrorQueries } from '../db/mirror.js';
import { fromSql, toSql } from '../db/rows.js';
import { findingAcceptanceHistory, findingAcceptances } from '../db/schema.js';
import type { Acceptance, Finding } from './finding.js';

export interface NewAcceptance {
  fingerprint: string;
  note: string;
  by: string;
  acceptedAtMs: number;
  /** The date as the person gave it (YYYY-MM-DD), and the instant it ends. */
  until: string | null;
  untilMs: number | null;
  /** The finding accepted, as it stands in its newest run. */
  finding: Finding;
}

/** The acceptances on record. */
export class AcceptanceStore {
  constructor(private readonly db: MirrorQueries) {}

  /** Every acceptance on record. */
  async all(): Promise<Acceptance[]> {
    const rows = await this.db.selectFrom('finding_acceptances').selectAll().execute();
    return rows.map((row) => acceptanceOf(fromSql(findingAcceptances, row)));
  }

  /**
   * The acceptances a run starting at `atMs` read: of each break, the newest recorded before
   * then (an acceptance is recorded under the mirror's lock, never while a night runs).
   */
  async inForceAt(atMs: number): Promise<Acceptance[]> {
    const rows = await this.db
      .selectFrom('finding_acceptance_history as h')
      .selectAll('h')
      .where('h.accepted_at_ms', '<', atMs)
      .where(({ eb, selectFrom }) =>
        eb(
          'h.history_id',
          '=',
          selectFrom('finding_acceptance_history as n')
            .select(({ fn }) => fn.max('n.history_id').as('newest'))
            .whereRef('n.fingerprint', '=', 'h.fingerprint')
            .where('n.accepted_at_ms', '<', atMs),
        ),
      )
      .orderBy('h.fingerprint')
      .execute();
    return rows.map((row) => acceptanceOf(fromSql(findingAcceptanceHistory, row)));
  }

  /** Records (or replaces) the acceptance of a break as it stands. */
  async record(a: NewAcceptance): Promise<void> {
    const row = toSql(findingAcceptances, {
      fingerprint: a.fingerprint,
      note: a.note,
      acceptedBy: a.by,
      acceptedAt: new Date(a.acceptedAtMs).toISOString(),
      acceptedAtMs: a.acceptedAtMs,
      until: a.until,
      untilMs: a.untilMs,
      detailSha256: a.finding.detailSha256,
      checkRunId: a.finding.checkRunId,
    });
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('finding_acceptances')
        .values(row)
        .onConflict((conflict) => conflict.column('fingerprint').doUpdateSet(row))
        .execute();
      await trx.insertInto('finding_acceptance_history').values(row).execute();
    });
  }
}

/** An acceptance as the standing weighs it, from its row in either table. */
function acceptanceOf(a: typeof findingAcceptances.$inferSelect): Acceptance {
  return {
    fingerprint: a.fingerprint,
    note: a.note,
    by: a.acceptedBy,
    acceptedAtMs: a.acceptedAtMs,
    untilMs: a.untilMs,
    detailSha256: a.detailSha256,
  };
}
