import type { Executor } from '@parley/shared';
import type { GroupBy, Metric, ScopeType } from './params';

/**
 * Every number reports give comes from one "source" per metric: the rows it counts or averages
 * (`t` the time it is bucketed by, `v` its value), already narrowed to the account, the window and
 * the scope. The summary, the timeseries and the per-agent/team/inbox/label tables aggregate the
 * same source, so they agree to the unit by construction.
 */

export type Dimension = 'agent' | 'team' | 'inbox';

export interface Scope {
  accountId: number;
  type: ScopeType;
  /** Agent, inbox or team id. */
  id: number | null;
  /** The label's title (type label). */
  label: string | null;
}

export interface Window {
  since: Date;
  until: Date;
}

export const AVERAGE_METRICS = new Set<Metric>(['avg_first_response_time', 'avg_resolution_time', 'reply_time']);

const EVENT_OF: Partial<Record<Metric, string>> = {
  avg_first_response_time: 'first_response',
  avg_resolution_time: 'conversation_resolved',
  reply_time: 'reply_time',
  resolutions_count: 'conversation_resolved',
  bot_resolutions_count: 'conversation_bot_resolved',
  bot_handoffs_count: 'conversation_bot_handoff',
};

class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

interface Source {
  from: string;
  where: string[];
  /** Time column. */
  t: string;
  /** Value expression. */
  v: string;
  /** The column naming the agent, team or inbox a row belongs to. */
  dims: Record<Dimension, string>;
  /** The conversation column (label scope joins the conversation's current labels). */
  conversation: string;
}

function sourceOf(metric: Metric, p: Params, account: number, w: Window, businessHours: boolean): Source {
  const a = p.add(account);
  const since = p.add(w.since);
  const until = p.add(w.until);
  if (metric === 'conversations_count') {
    return {
      from: 'conversations c',
      where: [`c.account_id = ${a}`, 'NOT c.deleted', `c.created_at >= ${since}`, `c.created_at < ${until}`],
      t: 'c.created_at',
      v: '1',
      // An agent's or team's conversations are those assigned to them now (Chatwoot).
      dims: { agent: 'c.assignee_id', team: 'c.team_id', inbox: 'c.inbox_id' },
      conversation: 'c.id',
    };
  }
  if (metric === 'incoming_messages_count' || metric === 'outgoing_messages_count') {
    const incoming = metric === 'incoming_messages_count';
    return {
      from: 'conversation_facts f',
      where: [`f.account_id = ${a}`, "f.kind = 'message'", `f.message_type = ${incoming ? 0 : 1}`, 'NOT f.private', `f.at >= ${since}`, `f.at < ${until}`],
      t: 'f.at',
      v: '1',
      // An agent's incoming messages: those that arrived while the conversation was theirs; their
      // outgoing: the replies they sent. Teams: the conversation's team at the time.
      dims: { agent: incoming ? 'f.assignee_id' : "(CASE WHEN f.sender_type = 'User' THEN f.sender_id END)", team: 'f.team_id', inbox: 'f.inbox_id' },
      conversation: 'f.conversation_id',
    };
  }
  const name = EVENT_OF[metric] as string;
  return {
    from: 'reporting_events r',
    where: [`r.account_id = ${a}`, `r.name = ${p.add(name)}`, `r.created_at >= ${since}`, `r.created_at < ${until}`],
    t: 'r.created_at',
    v: AVERAGE_METRICS.has(metric) ? (businessHours ? 'r.value_in_business_hours' : 'r.value') : '1',
    dims: { agent: 'r.user_id', team: 'r.team_id', inbox: 'r.inbox_id' },
    conversation: 'r.conversation_id',
  };
}

function scoped(src: Source, p: Params, scope: Scope): string[] {
  const where = [...src.where];
  if (scope.type === 'label') {
    where.push(
      src.from.startsWith('conversations')
        ? `c.labels @> ARRAY[${p.add(scope.label)}]::text[]`
        : `EXISTS (SELECT 1 FROM conversations lc WHERE lc.account_id = ${p.add(scope.accountId)} AND lc.id = ${src.conversation} AND lc.labels @> ARRAY[${p.add(scope.label)}]::text[])`,
    );
  } else if (scope.type !== 'account') {
    where.push(`${src.dims[scope.type === 'agent' ? 'agent' : scope.type]} = ${p.add(scope.id)}`);
  }
  return where;
}

export interface Total {
  count: number;
  sum: number;
}

/** The metric over the window: its count and the sum of its values. */
export async function metricTotal(db: Executor, metric: Metric, scope: Scope, w: Window, businessHours: boolean): Promise<Total> {
  const p = new Params();
  const src = sourceOf(metric, p, scope.accountId, w, businessHours);
  const where = scoped(src, p, scope);
  const r = await db.query<{ n: string; s: number | null }>(`SELECT count(*) AS n, sum(${src.v})::float8 AS s FROM ${src.from} WHERE ${where.join(' AND ')}`, p.values);
  const row = r.rows[0] as { n: string; s: number | null };
  return { count: Number(row.n), sum: row.s ?? 0 };
}

export interface Bucket {
  timestamp: number;
  count: number;
  sum: number;
}

const STEP: Record<GroupBy, string> = { hour: '1 hour', day: '1 day', week: '1 week', month: '1 month', year: '1 year' };

/** Start of the bucket holding a local time (weeks start on Sunday, as Chatwoot's groupdate). */
function trunc(groupBy: GroupBy, local: string): string {
  return groupBy === 'week' ? `(date_trunc('week', ${local} + interval '1 day') - interval '1 day')` : `date_trunc('${groupBy}', ${local})`;
}

/**
 * The metric per bucket over the window, every bucket present (empty ones 0): buckets start at
 * local midnight (hour, month, year, Sunday for weeks) `offsetSeconds` east of UTC; `timestamp` is
 * the bucket's start in unix seconds.
 */
export async function metricSeries(db: Executor, metric: Metric, scope: Scope, w: Window, businessHours: boolean, groupBy: GroupBy, offsetSeconds: number): Promise<Bucket[]> {
  const p = new Params();
  const src = sourceOf(metric, p, scope.accountId, w, businessHours);
  const where = scoped(src, p, scope);
  const off = `make_interval(secs => ${p.add(offsetSeconds)}::float8)`;
  const local = (t: string) => `((${t}) AT TIME ZONE 'UTC' + ${off})`;
  const sinceLocal = local(`${p.add(w.since)}::timestamptz`);
  const untilLocal = local(`${p.add(w.until)}::timestamptz`);
  const sql = `
    WITH agg AS (
      SELECT ${trunc(groupBy, local(src.t))} AS k, count(*) AS n, sum(${src.v})::float8 AS s
        FROM ${src.from} WHERE ${where.join(' AND ')} GROUP BY 1
    ), series AS (
      SELECT generate_series(${trunc(groupBy, sinceLocal)}, ${untilLocal} - interval '1 microsecond', interval '${STEP[groupBy]}') AS k
    )
    SELECT extract(epoch FROM series.k - ${off})::bigint AS ts, coalesce(agg.n, 0) AS n, coalesce(agg.s, 0) AS s
      FROM series LEFT JOIN agg USING (k) ORDER BY series.k`;
  const r = await db.query<{ ts: string; n: string; s: number }>(sql, p.values);
  return r.rows.map((row) => ({ timestamp: Number(row.ts), count: Number(row.n), sum: Number(row.s) }));
}

/** The metric over the window per agent, team or inbox (rows without one are left out). */
export async function metricByDimension(db: Executor, metric: Metric, accountId: number, dim: Dimension | 'label', w: Window, businessHours: boolean): Promise<Map<string, Total>> {
  const p = new Params();
  const src = sourceOf(metric, p, accountId, w, businessHours);
  let sql: string;
  if (dim === 'label') {
    const join = src.from.startsWith('conversations')
      ? 'CROSS JOIN LATERAL unnest(c.labels) AS k'
      : `JOIN conversations lc ON lc.account_id = ${p.add(accountId)} AND lc.id = ${src.conversation} CROSS JOIN LATERAL unnest(lc.labels) AS k`;
    sql = `SELECT k::text AS k, count(*) AS n, sum(${src.v})::float8 AS s FROM ${src.from} ${join} WHERE ${src.where.join(' AND ')} GROUP BY 1`;
  } else {
    sql = `SELECT ${src.dims[dim]}::text AS k, count(*) AS n, sum(${src.v})::float8 AS s FROM ${src.from} WHERE ${src.where.join(' AND ')} AND ${src.dims[dim]} IS NOT NULL GROUP BY 1`;
  }
  const r = await db.query<{ k: string; n: string; s: number | null }>(sql, p.values);
  return new Map(r.rows.map((row) => [row.k, { count: Number(row.n), sum: row.s ?? 0 }]));
}

export async function labelTitle(db: Executor, accountId: number, id: number): Promise<string | null> {
  const r = await db.query<{ title: string }>('SELECT title FROM labels WHERE account_id = $1 AND id = $2 AND NOT deleted', [accountId, id]);
  return r.rows[0]?.title ?? null;
}

/**
 * Conversations created per local day and hour over the window (the traffic heatmap), every day
 * of the window present: `[['YYYY-MM-DD', [24 counts]], ...]`.
 */
export async function trafficByHour(db: Executor, accountId: number, w: Window, offsetSeconds: number): Promise<Array<[string, number[]]>> {
  const r = await db.query<{ d: string; h: number; n: string }>(
    `WITH local AS (
       SELECT (c.created_at AT TIME ZONE 'UTC') + make_interval(secs => $4::float8) AS t
         FROM conversations c WHERE c.account_id = $1 AND NOT c.deleted AND c.created_at >= $2 AND c.created_at < $3
     )
     SELECT to_char(t, 'YYYY-MM-DD') AS d, extract(hour FROM t)::int AS h, count(*) AS n FROM local GROUP BY 1, 2`,
    [accountId, w.since, w.until, offsetSeconds],
  );
  const days = new Map<string, number[]>();
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const first = Date.parse(`${dayOf(w.since.getTime() + offsetSeconds * 1000)}T00:00:00Z`);
  const last = w.until.getTime() - 1 + offsetSeconds * 1000;
  for (let t = first; t <= last; t += 86_400_000) days.set(dayOf(t), new Array<number>(24).fill(0));
  for (const row of r.rows) {
    const hours = days.get(row.d);
    if (hours) hours[row.h] = Number(row.n);
  }
  return [...days.entries()];
}
