import type { Executor } from '@parley/shared';
import type { GroupBy, Metric, ScopeType } from './params';
import { bucketsOf, piecesOf, readPlanOf, type Grain, type Piece } from './pieces';

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

/** The rows a metric counts in the account (the window is the caller's: `windowed`, or the pieces). */
function sourceOf(metric: Metric, p: Params, account: number, businessHours: boolean): Source {
  const a = p.add(account);
  if (metric === 'conversations_count') {
    return {
      from: 'conversations c',
      where: [`c.account_id = ${a}`, 'NOT c.deleted'],
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
      where: [`f.account_id = ${a}`, "f.kind = 'message'", `f.message_type = ${incoming ? 0 : 1}`, 'NOT f.private'],
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
    where: [`r.account_id = ${a}`, `r.name = ${p.add(name)}`],
    t: 'r.created_at',
    v: AVERAGE_METRICS.has(metric) ? (businessHours ? 'r.value_in_business_hours' : 'r.value') : '1',
    dims: { agent: 'r.user_id', team: 'r.team_id', inbox: 'r.inbox_id' },
    conversation: 'r.conversation_id',
  };
}

/** The source narrowed to the window. */
function windowed(src: Source, p: Params, w: Window): Source {
  return { ...src, where: [...src.where, `${src.t} >= ${p.add(w.since)}`, `${src.t} < ${p.add(w.until)}`] };
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

/** The metric over the window straight from its rows: its count and the sum of its values (label scope). */
async function rawTotal(db: Executor, metric: Metric, scope: Scope, w: Window, businessHours: boolean): Promise<Total> {
  const p = new Params();
  const src = windowed(sourceOf(metric, p, scope.accountId, businessHours), p, w);
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
 * The metric per bucket over the window straight from its rows (label scope), every bucket present
 * (empty ones 0): buckets start at local midnight (hour, month, year, Sunday for weeks)
 * `offsetSeconds` east of UTC; `timestamp` is the bucket's start in unix seconds.
 */
async function rawSeries(db: Executor, metric: Metric, scope: Scope, w: Window, businessHours: boolean, groupBy: GroupBy, offsetSeconds: number): Promise<Bucket[]> {
  const p = new Params();
  const src = windowed(sourceOf(metric, p, scope.accountId, businessHours), p, w);
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

/** The metric over the window per label, straight from its rows. */
async function rawByDimension(db: Executor, metric: Metric, accountId: number, dim: Dimension | 'label', w: Window, businessHours: boolean): Promise<Map<string, Total>> {
  const p = new Params();
  const src = windowed(sourceOf(metric, p, accountId, businessHours), p, w);
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

/** The rollups' metric (migration 004) of a report metric. */
function rollupMetric(metric: Metric): string {
  if (metric === 'conversations_count') return 'conversations';
  if (metric === 'incoming_messages_count') return 'incoming';
  if (metric === 'outgoing_messages_count') return 'outgoing';
  return EVENT_OF[metric] as string;
}

/** Rollups hold hours for the account only. */
const grainsOf = (dim: 'account' | Dimension): Grain[] => (dim === 'account' ? ['month', 'day', 'hour'] : ['month', 'day']);

/**
 * The rows a rollup metric counts, for the raw pieces: each source table once, with the rollup
 * metric each row is (`m`), its agent, team and inbox, its value; the same rows rollup_items
 * (migration 004) counts.
 */
function rawSources(metrics: readonly string[], p: Params, account: string, businessHours: boolean): Array<{ from: string; where: string[]; t: string; m: string; v: string; dims: Record<Dimension, string> }> {
  const out = [];
  const events = metrics.filter((m) => !['conversations', 'incoming', 'outgoing'].includes(m));
  if (events.length > 0) {
    out.push({
      from: 'reporting_events r',
      where: [`r.account_id = ${account}`, `r.name = ANY(${p.add(events)}::text[])`],
      t: 'r.created_at',
      m: 'r.name',
      v: businessHours ? 'r.value_in_business_hours' : 'r.value',
      dims: { agent: 'r.user_id', team: 'r.team_id', inbox: 'r.inbox_id' },
    });
  }
  const types = [...(metrics.includes('incoming') ? [0] : []), ...(metrics.includes('outgoing') ? [1] : [])];
  if (types.length > 0) {
    out.push({
      from: 'conversation_facts f',
      where: [`f.account_id = ${account}`, "f.kind = 'message'", `f.message_type = ANY(${p.add(types)}::smallint[])`, 'NOT f.private'],
      t: 'f.at',
      m: "CASE f.message_type WHEN 0 THEN 'incoming' ELSE 'outgoing' END",
      v: '0',
      dims: { agent: "CASE WHEN f.message_type = 0 THEN f.assignee_id WHEN f.sender_type = 'User' THEN f.sender_id END", team: 'f.team_id', inbox: 'f.inbox_id' },
    });
  }
  if (metrics.includes('conversations')) {
    out.push({ from: 'conversations c', where: [`c.account_id = ${account}`, 'NOT c.deleted'], t: 'c.created_at', m: "'conversations'", v: '0', dims: { agent: 'c.assignee_id', team: 'c.team_id', inbox: 'c.inbox_id' } });
  }
  return out;
}

/** Totals by rollup metric, then by key (a piece's `k`, or an agent, team or inbox id). */
type Totals = Map<string, Map<string, Total>>;

/** Unix seconds (the windows' edges are whole seconds, so bucket and piece edges are too). */
const secs = (ms: number) => ms / 1000;

/** A Postgres array literal of numbers (node-pg would quote and escape each element). */
const numbers = (list: readonly number[]) => `{${list.join(',')}}`;

/**
 * Metrics over pieces of time (src/reports/pieces.ts), grouped by piece key (`k`) or by agent,
 * team or inbox (`by`): the whole hours, days and months from the rollups, the rest (`raw`
 * pieces) from the rows themselves. One statement that reads a handful of index ranges whatever
 * the number of pieces (`readPlanOf`: a year of daily buckets is one range of days, not 365
 * probes), each row summed into the piece it belongs to (`width_bucket` over the unix seconds of
 * the pieces' sorted starts and the gaps' between them; a rollup row of a gap read through belongs
 * to none). Pieces subtracted (before a bucket's start and past its end) are read one by one.
 * Times travel as unix seconds (float8), a quarter of the text of timestamps (a year of daily
 * pieces is ~700 of them). Sums are exact (numeric) whichever way they are added.
 */
async function fromPieces(
  db: Executor,
  metrics: readonly Metric[],
  accountId: number,
  dim: 'account' | Dimension,
  dimId: number | null,
  by: 'k' | Dimension,
  pieces: Piece[],
  businessHours: boolean,
): Promise<Totals> {
  if (pieces.length === 0) return new Map();
  const names = [...new Set(metrics.map(rollupMetric))].sort();
  const { reads, subtracted } = readPlanOf(pieces);
  const p = new Params();
  const a = p.add(accountId);
  const id = dim === 'account' ? null : p.add(dimId);
  // Parameters made when first used: one the statement does not use has no type.
  let metricsParam: string | undefined;
  let sources: ReturnType<typeof rawSources> | undefined;
  /**
   * The rows of `[lo, hi)` of a grain: metric, `piece` (an expression of their time; none: one
   * piece), agent, team or inbox (`key`, when grouped by them), count and sum. Summed once, at the
   * end (a hash table per range cost more than it saved); OFFSET 0 keeps each a range scan per
   * range (left to itself the planner joins the ranges to all the account's rollups).
   */
  const summed = (grain: Grain | 'raw', lo: string, hi: string, piece: (t: string) => string | null): string[] => {
    if (grain !== 'raw') {
      const where = [`r.account_id = ${a}`, `r.metric = ANY(${(metricsParam ??= p.add(names))}::text[])`, `r.dim = ${p.add(by === 'k' ? dim : by)}`, `r.grain = ${p.add(grain)}`, `r.bucket >= ${lo}`, `r.bucket < ${hi}`];
      if (id) where.push(`r.dim_id = ${id}`);
      else if (by === 'k') where.push('r.dim_id = 0');
      const pc = piece('r.bucket');
      return [`SELECT r.metric AS m, ${pc ?? '0'} AS piece, ${by === 'k' ? '0' : 'r.dim_id'} AS key, r.n, r.${businessHours ? 'v_bh' : 'v'} AS s FROM rollups r WHERE ${where.join(' AND ')} OFFSET 0`];
    }
    return (sources ??= rawSources(names, p, a, businessHours)).map((src) => {
      const where = [...src.where, `${src.t} >= ${lo}`, `${src.t} < ${hi}`];
      if (id) where.push(`${src.dims[dim as Dimension]} = ${id}`);
      if (by !== 'k') where.push(`${src.dims[by]} IS NOT NULL`);
      return `SELECT ${src.m} AS m, ${piece(src.t) ?? '0'} AS piece, ${by === 'k' ? '0' : src.dims[by]} AS key, 1 AS n, (${src.v})::numeric AS s FROM ${src.from} WHERE ${where.join(' AND ')} OFFSET 0`;
    });
  };
  /** Stretches as rows `w(a, b)` (timestamps), with their piece `k` if asked. */
  const spans = (list: ReadonlyArray<{ a: number; b: number; k?: number }>, withKey = false) => {
    const [a, b] = [p.add(numbers(list.map((x) => secs(x.a)))), p.add(numbers(list.map((x) => secs(x.b))))];
    const k = withKey ? `, ${p.add(numbers(list.map((x) => x.k as number)))}::int[]` : '';
    return `(SELECT to_timestamp(a) AS a, to_timestamp(b) AS b${k ? ', k' : ''} FROM unnest(${a}::float8[], ${b}::float8[]${k}) AS w(a, b${k ? ', k' : ''})) w`;
  };
  const parts: string[] = [];
  for (const read of reads) {
    const from = spans(read.ranges);
    const one = read.keys.every((k) => k === read.keys[0] || k === -1);
    // Each row's piece where it matters: buckets told apart, or a gap's rows left out.
    let piece: (t: string) => string = () => String(read.keys[0]);
    if (read.gaps || (by === 'k' && !one)) {
      const [thresholds, keys] = [p.add(numbers(read.thresholds.map(secs))), p.add(numbers(read.keys))];
      piece = (t) => `(${keys}::int[])[width_bucket(date_part('epoch', ${t}), ${thresholds}::float8[])]`;
    }
    for (const sql of summed(read.grain, 'w.a', 'w.b', piece)) {
      parts.push(`SELECT y.m, ${by === 'k' ? 'y.piece' : 'y.key'}::bigint AS k, y.n, y.s FROM ${from} CROSS JOIN LATERAL (${sql}) y${read.gaps ? ' WHERE y.piece >= 0' : ''}`);
    }
  }
  for (const grain of [...new Set(subtracted.map((x) => x.grain))]) {
    const from = spans(subtracted.filter((x) => x.grain === grain), by === 'k');
    for (const sql of summed(grain, 'w.a', 'w.b', () => null)) {
      parts.push(`SELECT y.m, ${by === 'k' ? 'w.k' : 'y.key'}::bigint AS k, -y.n, -y.s FROM ${from} CROSS JOIN LATERAL (${sql}) y`);
    }
  }
  // Grouped by numbers, the key made text only at the end.
  const text = `SELECT m, k::text AS key, sum(n)::bigint AS n, sum(s)::float8 AS s FROM (${parts.join('\n UNION ALL \n')}) y GROUP BY m, k HAVING sum(n) <> 0 OR sum(s) <> 0`;
  // Planned for its values each time: a generic plan, blind to how many ranges there are and how
  // big the tables are, may read the rollups whole on a small account.
  const r = await db.query<{ m: string; key: string; n: string; s: number | null }>(text, p.values);
  const out: Totals = new Map();
  for (const row of r.rows) {
    let m = out.get(row.m);
    if (!m) out.set(row.m, (m = new Map()));
    m.set(row.key, { count: Number(row.n), sum: row.s ?? 0 });
  }
  return out;
}

const none: Total = { count: 0, sum: 0 };
const totalOf = (t: Totals, metric: Metric, key: string): Total => t.get(rollupMetric(metric))?.get(key) ?? none;

/** Metrics over each of some windows (a summary's and its `previous`): per window, each one's count and the sum of its values. */
export async function metricTotals<M extends Metric>(db: Executor, metrics: readonly M[], scope: Scope, windows: readonly Window[], businessHours: boolean): Promise<Array<Record<M, Total>>> {
  if (scope.type === 'label') {
    return Promise.all(
      windows.map(async (w) => {
        const list = await Promise.all(metrics.map((m) => rawTotal(db, m, scope, w, businessHours)));
        return Object.fromEntries(metrics.map((m, i) => [m, list[i]])) as Record<M, Total>;
      }),
    );
  }
  const dim = scope.type === 'account' ? 'account' : scope.type;
  const pieces = piecesOf(windows.map((w, k) => ({ k, a: w.since.getTime(), b: w.until.getTime() })), grainsOf(dim));
  const t = await fromPieces(db, metrics, scope.accountId, dim, scope.id, 'k', pieces, businessHours);
  return windows.map((_, k) => Object.fromEntries(metrics.map((m) => [m, totalOf(t, m, String(k))])) as Record<M, Total>);
}

/**
 * The metric per bucket over the window, every bucket present (empty ones 0): buckets start at
 * local midnight (hour, month, year, Sunday for weeks) `offsetSeconds` east of UTC; `timestamp` is
 * the bucket's start in unix seconds.
 */
export async function metricSeries(db: Executor, metric: Metric, scope: Scope, w: Window, businessHours: boolean, groupBy: GroupBy, offsetSeconds: number): Promise<Bucket[]> {
  if (scope.type === 'label') return rawSeries(db, metric, scope, w, businessHours, groupBy, offsetSeconds);
  const dim = scope.type === 'account' ? 'account' : scope.type;
  const buckets = bucketsOf(w.since.getTime(), w.until.getTime(), groupBy, offsetSeconds);
  const t = await fromPieces(db, [metric], scope.accountId, dim, scope.id, 'k', piecesOf(buckets, grainsOf(dim)), businessHours);
  return buckets.map((b) => {
    const total = totalOf(t, metric, String(b.k));
    return { timestamp: b.start / 1000, count: total.count, sum: total.sum };
  });
}

/** Metrics over the window per agent, team, inbox (rows without one are left out) or label: metric, then key. */
export async function metricsByDimension<M extends Metric>(db: Executor, metrics: readonly M[], accountId: number, dim: Dimension | 'label', w: Window, businessHours: boolean): Promise<Record<M, Map<string, Total>>> {
  if (dim === 'label') {
    const list = await Promise.all(metrics.map((m) => rawByDimension(db, m, accountId, dim, w, businessHours)));
    return Object.fromEntries(metrics.map((m, i) => [m, list[i]])) as Record<M, Map<string, Total>>;
  }
  // Heads taken: a unit holds a row per key here (`piecesOf`).
  const pieces = piecesOf([{ k: 0, a: w.since.getTime(), b: w.until.getTime() }], grainsOf(dim), { heads: true });
  const t = await fromPieces(db, metrics, accountId, 'account', null, dim, pieces, businessHours);
  return Object.fromEntries(metrics.map((m) => [m, t.get(rollupMetric(m)) ?? new Map()])) as Record<M, Map<string, Total>>;
}
