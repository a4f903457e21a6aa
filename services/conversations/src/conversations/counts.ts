import type { Pool } from 'pg';
import { PeriodicWorker, withTransaction, type Executor, type Logger } from '@parley/shared';
import type { ListFilter } from './list';
import { qPattern } from './search-hits';

/**
 * The list's meta counts from the counts tables of migration 008 (kept by triggers on
 * conversations), for the filters they can answer: account, visible inboxes, inbox, status and
 * team; with `q` of a registered pattern, from its search hits (migration 009). Anything else
 * (labels, source id, contact, conversation type, q of the search route or of no registered
 * pattern) is null: the caller counts conversations. Answers the columns of `countQuery`.
 */
export function countsTableQuery(f: ListFilter): { text: string; values: unknown[] } | null {
  if (f.labels !== undefined && f.labels.length > 0) return null;
  if (f.sourceId !== undefined || f.contactId !== undefined || f.conversationType !== undefined) return null;
  const hasQ = f.q !== undefined && f.q !== '';
  // With `q`, the hits of a registered pattern carry the inbox, team and assignee (status does not count).
  if (hasQ && (!f.qHits || f.qMatchesContactName)) return null;
  const values: unknown[] = [f.accountId, f.userId ?? -1];
  const where = ['c.account_id = $1'];
  const add = (sql: (p: string) => string, v: unknown) => {
    values.push(v);
    where.push(sql(`$${values.length}`));
  };
  if (hasQ) add((p) => `c.pattern = ${p}`, qPattern(f.q as string));
  else if (f.status === undefined) where.push(`c.status = 'open'`);
  else if (f.status !== 'all') add((p) => `c.status = ${p}`, f.status);
  if (f.visibleInboxIds !== null) add((p) => `c.inbox_id = ANY(${p}::int[])`, f.visibleInboxIds);
  if (f.inboxId !== undefined) add((p) => `c.inbox_id = ${p}`, f.inboxId);
  if (f.teamId !== undefined) add((p) => `c.team_id = ${p}`, f.teamId);
  const w = where.join(' AND ');
  if (hasQ) {
    return {
      text: `SELECT count(*) FILTER (WHERE c.assignee_id = $2)::int AS mine, count(*) FILTER (WHERE c.assignee_id IS NULL)::int AS unassigned, count(*)::int AS all
               FROM search_hits c WHERE ${w}`,
      values,
    };
  }
  // The counts tables write no team as 0, which no filter value is.
  return {
    text: `SELECT coalesce(sum(k.mine), 0)::int AS mine, coalesce(sum(k.unassigned), 0)::int AS unassigned, coalesce(sum(k.n), 0)::int AS all FROM (
         SELECT 0 AS mine, c.unassigned, c.n FROM conversation_counts c WHERE ${w}
         UNION ALL SELECT c.n, 0, 0 FROM conversation_assignee_counts c WHERE c.assignee_id = $2 AND ${w}
         UNION ALL SELECT CASE WHEN c.assignee_id = $2 THEN c.n ELSE 0 END, CASE WHEN c.assignee_id IS NULL THEN c.n ELSE 0 END, c.n
                     FROM conversation_count_deltas c WHERE ${w}) k`,
    values,
  };
}

/**
 * Folds the deltas writers left into the counts tables, in one statement (a reader sees the
 * deltas or their sums, never both or neither). One folder at a time across replicas.
 */
export async function foldCountDeltas(db: Pool): Promise<number> {
  return withTransaction(db, async (tx) => {
    const { rows: locked } = await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('conversations:count_fold')) AS ok`);
    if (!locked[0]?.ok) return 0;
    return foldIn(tx);
  });
}

async function foldIn(tx: Executor): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `WITH d AS (DELETE FROM conversation_count_deltas RETURNING *),
          t AS (
            INSERT INTO conversation_counts AS c (account_id, status, inbox_id, team_id, n, unassigned)
            SELECT account_id, status, inbox_id, coalesce(team_id, 0), sum(n), coalesce(sum(n) FILTER (WHERE assignee_id IS NULL), 0)
              FROM d GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            ON CONFLICT (account_id, status, inbox_id, team_id) DO UPDATE SET n = c.n + excluded.n, unassigned = c.unassigned + excluded.unassigned
          ),
          a AS (
            INSERT INTO conversation_assignee_counts AS c (account_id, assignee_id, status, inbox_id, team_id, n)
            SELECT account_id, assignee_id, status, inbox_id, coalesce(team_id, 0), sum(n)
              FROM d WHERE assignee_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
            ON CONFLICT (account_id, assignee_id, status, inbox_id, team_id) DO UPDATE SET n = c.n + excluded.n
          )
     SELECT count(*)::int AS n FROM d`,
  );
  return rows[0]?.n ?? 0;
}

/** Clears the dead rows folding leaves in the counts tables (the service role owns them). */
export async function vacuumCounts(db: Pool): Promise<void> {
  await db.query('VACUUM conversation_count_deltas, conversation_counts, conversation_assignee_counts');
}

/** Folds the count deltas every `intervalMs` (cheap when there are none). */
export class CountFoldWorker extends PeriodicWorker {
  constructor(
    private readonly pool: Pool,
    log: Logger,
    intervalMs: number,
  ) {
    super(log, intervalMs, 'count fold');
  }

  protected async tick(): Promise<void> {
    await this.vacuumNowAndThen(await foldCountDeltas(this.pool));
  }

  private folded = 0;
  private vacuumedAt = Date.now();

  /**
   * Every fold leaves the deltas it deleted and the counts it updated as dead rows; where
   * autovacuum is off or slow they would pile up under every count's scan, so the worker vacuums
   * these three small tables itself after some folding, at most once a minute.
   */
  private async vacuumNowAndThen(folded: number): Promise<void> {
    this.folded += folded;
    if (this.folded === 0 || Date.now() - this.vacuumedAt < 60_000) return;
    this.folded = 0;
    this.vacuumedAt = Date.now();
    await vacuumCounts(this.pool);
  }

}
