import { z } from 'zod';
import { NotFoundError, routeKit, type Executor, type Peers, type ProjectionKit } from '@parley/shared';
import { labelTitle, metricSeries, metricTotals, AVERAGE_METRICS, type Scope, type Window } from './queries';
import { readReportQuery, reportQueryDoc, type Metric, type ReportQuery } from './params';

export interface ReportsDeps {
  pool: Executor;
  peers: Peers;
  projections: ProjectionKit;
}

export const route = routeKit<ReportsDeps>();

export const V2 = '/api/v2/accounts/{account_id}';

/** The metrics of `reports/summary`, in Chatwoot's order. */
export const SUMMARY_METRICS = ['conversations_count', 'incoming_messages_count', 'outgoing_messages_count', 'avg_first_response_time', 'avg_resolution_time', 'resolutions_count', 'reply_time'] as const satisfies readonly Metric[];

const OWNED = { agent: ['agent', 'Agent'], inbox: ['inbox', 'Inbox'], team: ['team', 'Team'] } as const;

/**
 * The scope a query names, checked against the account: an agent, inbox or team id must be one of
 * the account's (its copy through the projection kit, read through to the owner on a miss; an id
 * of another account is 404, never its numbers). A label is named by id and counted by title (404
 * for a label the account does not have).
 */
export async function scopeOf(deps: ReportsDeps, accountId: number, q: ReportQuery, requestId: string): Promise<Scope> {
  if (q.type === 'label') {
    const title = await labelTitle(deps.pool, accountId, q.id as number);
    if (title === null) throw new NotFoundError('Label', 'id');
    return { accountId, type: 'label', id: q.id, label: title };
  }
  if (q.type !== 'account') {
    const [kind, resource] = OWNED[q.type];
    const found = await deps.projections.readOne(deps.pool, kind, accountId, q.id, { requestId, strict: true });
    if (!found) throw new NotFoundError(resource, 'id');
  }
  return { accountId, type: q.type, id: q.id, label: null };
}

/** An average, or null when nothing was measured (Chatwoot's summary shows null). */
export const average = (t: { count: number; sum: number }) => (t.count === 0 ? null : t.sum / t.count);

/** The summary's numbers for each window, in one read. */
async function summariesOf(db: Executor, scope: Scope, windows: Window[], businessHours: boolean) {
  const totals = await metricTotals(db, SUMMARY_METRICS, scope, windows, businessHours);
  return totals.map((t) => Object.fromEntries(SUMMARY_METRICS.map((m) => [m, AVERAGE_METRICS.has(m) ? average(t[m]) : t[m].count])) as Record<(typeof SUMMARY_METRICS)[number], number | null>);
}

const point = z.object({ value: z.number(), timestamp: z.number().int().describe('Start of the bucket, unix seconds'), count: z.number().int().optional().describe('Averages only: how many values the bucket averages') });

const summaryShape = {
  conversations_count: z.number().int(),
  incoming_messages_count: z.number().int(),
  outgoing_messages_count: z.number().int(),
  avg_first_response_time: z.number().nullable().describe('Seconds; null when there was none'),
  avg_resolution_time: z.number().nullable(),
  resolutions_count: z.number().int(),
  reply_time: z.number().nullable(),
};
const summaryResponse = z.object({ ...summaryShape, previous: z.object(summaryShape).describe('The same numbers for the window of equal length just before') });

const ADMIN_ONLY = 'Administrators only (403 otherwise).';
const BAD_PARAMS = 'An agent, inbox, team or label `id` the account does not have: 404 with the Error body. An unknown `metric` or `type`, a missing `id`, a missing or malformed `since`/`until`, `until` not after `since` or more than a year after it: 422 with the Error body (Chatwoot answers `{}` or a 500).';

export const reportRoutes = [
  route({
    method: 'get',
    path: `${V2}/reports`,
    operationId: 'getReportTimeseries',
    summary: 'Report timeseries',
    description: `${ADMIN_ONLY} One metric per bucket (\`group_by\`) over \`[since, until)\`, every bucket present. Counts answer \`[{value, timestamp}]\`, averages (\`avg_first_response_time\`, \`avg_resolution_time\`, \`reply_time\`, seconds) \`[{value, timestamp, count}]\`. ${BAD_PARAMS} docs/reports.md defines each metric.`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: reportQueryDoc,
    response: z.array(point),
    errors: [403, 404, 422],
    handler: async ({ query, accountId, ctx }, deps) => {
      const { pool } = deps;
      const q = readReportQuery(query as Record<string, unknown>, { needMetric: true });
      const scope = await scopeOf(deps, accountId, q, ctx.requestId);
      const metric = q.metric as Metric;
      const buckets = await metricSeries(pool, metric, scope, q, q.businessHours, q.groupBy, q.offsetSeconds);
      if (AVERAGE_METRICS.has(metric)) return buckets.map((b) => ({ value: b.count === 0 ? 0 : b.sum / b.count, timestamp: b.timestamp, count: b.count }));
      return buckets.map((b) => ({ value: b.count, timestamp: b.timestamp }));
    },
  }),
  route({
    method: 'get',
    path: `${V2}/reports/summary`,
    operationId: 'getReportSummary',
    summary: 'Report summary',
    description: `${ADMIN_ONLY} The totals over \`[since, until)\` for the scope (\`type\`, \`id\`), and \`previous\`: the same for the window of equal length before. Equal to the timeseries summed over the same window. ${BAD_PARAMS}`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: reportQueryDoc,
    response: summaryResponse,
    errors: [403, 404, 422],
    handler: async ({ query, accountId, ctx }, deps) => {
      const { pool } = deps;
      const q = readReportQuery(query as Record<string, unknown>);
      const scope = await scopeOf(deps, accountId, q, ctx.requestId);
      const length = q.until.getTime() - q.since.getTime();
      const [current, previous] = await summariesOf(pool, scope, [q, { since: new Date(q.since.getTime() - length), until: q.since }], q.businessHours);
      return { ...current, previous };
    },
  }),
];
