import type { Client } from 'pg';

/**
 * The numbers a report should give, summed straight from the reports' rows (conversations, facts,
 * reporting events) by SQL written here, independently of the service's rollups and pieces: what
 * the summary, each timeseries bucket and each table row are checked against when the window and
 * the buckets do not fall on the rollups' hours, days and months.
 */

export type Scope = { type: 'account' } | { type: 'agent' | 'team' | 'inbox'; id: number };

const EVENT: Record<string, string> = {
  avg_first_response_time: 'first_response',
  avg_resolution_time: 'conversation_resolved',
  reply_time: 'reply_time',
  resolutions_count: 'conversation_resolved',
  bot_resolutions_count: 'conversation_bot_resolved',
  bot_handoffs_count: 'conversation_bot_handoff',
};

export const AVERAGES = new Set(['avg_first_response_time', 'avg_resolution_time', 'reply_time']);

export async function fromRows(db: Client, accountId: number, metric: string, scope: Scope, a: number, b: number, businessHours: boolean): Promise<{ count: number; sum: number }> {
  let from: string;
  let t: string;
  let v = '0';
  const dim: Record<'agent' | 'team' | 'inbox', string> = { agent: 'assignee_id', team: 'team_id', inbox: 'inbox_id' };
  const params: unknown[] = [accountId, new Date(a * 1000), new Date(b * 1000)];
  if (metric === 'conversations_count') {
    from = 'reports.conversations WHERE NOT deleted';
    t = 'created_at';
  } else if (metric === 'incoming_messages_count' || metric === 'outgoing_messages_count') {
    const incoming = metric === 'incoming_messages_count';
    from = `reports.conversation_facts WHERE kind = 'message' AND NOT private AND message_type = ${incoming ? 0 : 1}`;
    t = 'at';
    if (!incoming) dim.agent = "CASE WHEN sender_type = 'User' THEN sender_id END";
  } else {
    params.push(EVENT[metric]);
    from = `reports.reporting_events WHERE name = $${params.length}`;
    t = 'created_at';
    v = businessHours ? 'value_in_business_hours' : 'value';
    dim.agent = 'user_id';
  }
  let where = `account_id = $1 AND ${t} >= $2 AND ${t} < $3`;
  if (scope.type !== 'account') {
    params.push(scope.id);
    where += ` AND ${dim[scope.type]} = $${params.length}`;
  }
  const r = await db.query<{ n: string; s: number | null }>(`SELECT count(*) AS n, sum(${v})::float8 AS s FROM ${from} AND ${where}`, params);
  return { count: Number(r.rows[0]?.n), sum: r.rows[0]?.s ?? 0 };
}

const query = (scope: Scope) => (scope.type === 'account' ? 'type=account' : `type=${scope.type}&id=${scope.id}`);

/**
 * Checks `reports` (every bucket), `reports/summary` and, for agents, teams and inboxes, their
 * `summary_reports` row against the rows, for one window, scope and set of options.
 */
export async function expectRowsAgree(
  db: Client,
  get: (path: string) => Promise<unknown>,
  accountId: number,
  o: { scope: Scope; since: number; until: number; groupBy: string; offset: number; businessHours: boolean; metrics: readonly string[] },
): Promise<void> {
  const w = `since=${o.since}&until=${o.until}&business_hours=${o.businessHours}`;
  const label = `${query(o.scope)} ${w} group_by=${o.groupBy} timezone_offset=${o.offset}`;
  for (const metric of o.metrics) {
    const series = (await get(`/reports?metric=${metric}&${query(o.scope)}&${w}&group_by=${o.groupBy}&timezone_offset=${o.offset}`)) as Array<{ value: number; timestamp: number; count?: number }>;
    for (let i = 0; i < series.length; i++) {
      const a = Math.max(series[i]!.timestamp, o.since);
      const b = Math.min(series[i + 1]?.timestamp ?? o.until, o.until);
      const want = await fromRows(db, accountId, metric, o.scope, a, b, o.businessHours);
      const got = series[i]!;
      const where = `${label} ${metric} bucket ${got.timestamp}`;
      if (AVERAGES.has(metric)) {
        expect({ where, count: got.count }).toEqual({ where, count: want.count });
        expect(got.value).toBeCloseTo(want.count === 0 ? 0 : want.sum / want.count, 6);
      } else expect({ where, value: got.value }).toEqual({ where, value: want.count });
    }
  }
  // The summary and its `previous` (the window of equal length just before, read in the same statement).
  const current = (await get(`/reports/summary?${query(o.scope)}&${w}`)) as Record<string, number | null> & { previous: Record<string, number | null> };
  const length = o.until - o.since;
  for (const [name, summary, since, until] of [['summary', current, o.since, o.until], ['previous', current.previous, o.since - length, o.since]] as const) {
    for (const key of ['conversations_count', 'incoming_messages_count', 'outgoing_messages_count', 'resolutions_count', 'avg_first_response_time', 'avg_resolution_time', 'reply_time']) {
      const want = await fromRows(db, accountId, key, o.scope, since, until, o.businessHours);
      const where = `${label} ${name} ${key}`;
      if (AVERAGES.has(key)) {
        expect({ where, measured: summary[key] !== null }).toEqual({ where, measured: want.count > 0 });
        if (want.count > 0) expect(summary[key]).toBeCloseTo(want.sum / want.count, 6);
      } else expect({ where, value: summary[key] }).toEqual({ where, value: want.count });
    }
  }
  if (o.scope.type === 'account') return;
  const scope = o.scope;
  const rows = (await get(`/summary_reports/${scope.type}?${w}`)) as Array<Record<string, number | null>>;
  const row = rows.find((r) => r['id'] === scope.id);
  const avg = (t: { count: number; sum: number }) => (t.count === 0 ? null : t.sum / t.count);
  const want = {
    conversations_count: (await fromRows(db, accountId, 'conversations_count', scope, o.since, o.until, o.businessHours)).count,
    resolved_conversations_count: (await fromRows(db, accountId, 'resolutions_count', scope, o.since, o.until, o.businessHours)).count,
    avg_resolution_time: avg(await fromRows(db, accountId, 'avg_resolution_time', scope, o.since, o.until, o.businessHours)),
    avg_first_response_time: avg(await fromRows(db, accountId, 'avg_first_response_time', scope, o.since, o.until, o.businessHours)),
    avg_reply_time: avg(await fromRows(db, accountId, 'reply_time', scope, o.since, o.until, o.businessHours)),
  };
  expect(row).toBeDefined();
  for (const [key, value] of Object.entries(want)) {
    const where = `${label} summary_reports ${key}`;
    if (value === null || !key.startsWith('avg_')) expect({ where, value: row![key] }).toEqual({ where, value });
    else expect(row![key]).toBeCloseTo(value, 6);
  }
}

/** The account's rollup rows that hold something, in key order (rows a change brought back to zero are left out). */
export async function rollupsOf(db: Client, accountId: number): Promise<unknown[]> {
  const r = await db.query(
    `SELECT metric, dim, grain, bucket, dim_id, n, v, v_bh FROM reports.rollups
      WHERE account_id = $1 AND (n <> 0 OR v <> 0 OR v_bh <> 0) ORDER BY metric, dim, grain, bucket, dim_id`,
    [accountId],
  );
  return r.rows;
}
