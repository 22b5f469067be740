/**
 * The acceptances of known breaks: every one on record (the standing reads them), and one
 * recorded or replaced as its break stands (`ledger-recon accept`).
 */
import type { MirrorQueries } from '../db/mirror.js';
import { fromSql, toSql } from '../db/rows.js';
import { findingAcceptances } from '../db/schema.js';
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
    return rows.map((row) => {
      const a = fromSql(findingAcceptances, row);
      return {
        fingerprint: a.fingerprint,
        note: a.note,
        by: a.acceptedBy,
        acceptedAtMs: a.acceptedAtMs,
        untilMs: a.untilMs,
        detailSha256: a.detailSha256,
      };
    });
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
    await this.db
      .insertInto('finding_acceptances')
      .values(row)
      .onConflict((conflict) => conflict.column('fingerprint').doUpdateSet(row))
      .execute();
  }
}
