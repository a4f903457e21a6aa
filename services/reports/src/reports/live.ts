import type { Executor } from '@parley/shared';

export interface LiveCounts {
  open: number;
  unattended: number;
  unassigned: number;
  pending: number;
}

/**
 * Conversations as they are now (their newest snapshot): `open`; `unattended` = open and never
 * replied to, or waiting for a reply; `unassigned` = open without an assignee; `pending` = waiting
 * on a bot (status pending; Chatwoot's `reports/conversations` always says 0 here).
 */
const COUNTS = `count(*) FILTER (WHERE status = 'open') AS open,
  count(*) FILTER (WHERE status = 'open' AND (first_reply_created_at IS NULL OR waiting_since IS NOT NULL)) AS unattended,
  count(*) FILTER (WHERE status = 'open' AND assignee_id IS NULL) AS unassigned,
  count(*) FILTER (WHERE status = 'pending') AS pending`;

const toCounts = (r: Record<string, unknown>): LiveCounts => ({ open: Number(r['open']), unattended: Number(r['unattended']), unassigned: Number(r['unassigned']), pending: Number(r['pending']) });

export async function liveCounts(db: Executor, accountId: number, filter: { teamId?: number; assigneeId?: number } = {}): Promise<LiveCounts> {
  const params: unknown[] = [accountId];
  let where = "account_id = $1 AND NOT deleted AND status IN ('open', 'pending')";
  if (filter.teamId !== undefined) {
    params.push(filter.teamId);
    where += ` AND team_id = $${params.length}`;
  }
  if (filter.assigneeId !== undefined) {
    params.push(filter.assigneeId);
    where += ` AND assignee_id = $${params.length}`;
  }
  const r = await db.query(`SELECT ${COUNTS} FROM conversations WHERE ${where}`, params);
  return toCounts(r.rows[0] as Record<string, unknown>);
}

/** The live counts per team or assignee (conversations without one are grouped under null). */
export async function liveCountsBy(db: Executor, accountId: number, key: 'team_id' | 'assignee_id'): Promise<Array<LiveCounts & { key: number | null }>> {
  const r = await db.query(
    `SELECT ${key} AS key, ${COUNTS} FROM conversations WHERE account_id = $1 AND NOT deleted AND status IN ('open', 'pending') GROUP BY 1 ORDER BY 1 NULLS LAST`,
    [accountId],
  );
  return r.rows.map((row) => ({ key: row.key === null ? null : Number(row.key), ...toCounts(row) }));
}
