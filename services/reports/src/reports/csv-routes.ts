import { routeKit } from '@parley/shared';
import { readReportQuery, reportQueryDoc } from './params';
import { csvLine, humanDuration, periodLine } from './csv';
import { summaryRowsFor, type SummaryRow, type TableDeps } from './table-routes';
import { trafficByHour } from './queries';

const route = routeKit<TableDeps>();
const V2 = '/api/v2/accounts/{account_id}';

type Named = (deps: TableDeps, accountId: number, rows: SummaryRow[], requestId: string) => Promise<Map<number, { name: string; type?: string }>>;

const agentNames: Named = async (deps, accountId, _rows, requestId) =>
  new Map((await deps.peers.identity.agents(accountId, { requestId })).map((a) => [a.id, { name: a.name }]));
const copyNames =
  (kind: 'team' | 'inbox'): Named =>
  async (deps, accountId) =>
    new Map((await deps.projections.list(deps.pool, kind, accountId)).map((x) => [x.id, { name: x.name, ...('channel_type' in x ? { type: channelName(x.channel_type) } : {}) }]));

/** Chatwoot's `inbox.channel.name` (API inboxes are the only channel here). */
const channelName = (channelType: string) => (channelType === 'Channel::Api' ? 'API' : channelType.replace(/^Channel::/, ''));
const labelNames: Named = async (_deps, _accountId, rows) => new Map(rows.map((r) => [r.id, { name: r.name ?? '' }]));

const t = (v: number | null | undefined) => humanDuration(v ?? null);

/**
 * The five numbers every row carries after its names, in the order of Chatwoot's
 * `ReportsHelper#generate_readable_report_metrics`: conversations, first response, resolution,
 * reply (customer waiting) time, resolutions.
 */
const metrics = (r: SummaryRow) => [r['conversations_count'] ?? 0, t(r['avg_first_response_time']), t(r['avg_resolution_time']), t(r['avg_reply_time']), r['resolved_conversations_count'] ?? 0];

/**
 * Chatwoot's file names and columns (app/views/api/v2/accounts/reports/*.csv.erb, the rows of
 * app/helpers/api/v2/accounts/reports_helper.rb, the headers of config/locales/en.yml `reports.*_csv`).
 */
const CSVS = [
  {
    path: 'agents',
    dim: 'agent' as const,
    file: 'agents_report.csv',
    names: agentNames,
    header: ['Agent name', 'Assigned conversations', 'Avg first response time', 'Avg resolution time', 'Avg customer waiting time', 'Resolution Count'],
    line: (r: SummaryRow, n: { name: string }) => [n.name, ...metrics(r)],
  },
  {
    path: 'inboxes',
    dim: 'inbox' as const,
    file: 'inboxes_report.csv',
    names: copyNames('inbox'),
    header: ['Inbox name', 'Inbox type', 'No. of conversations', 'Avg first response time', 'Avg resolution time', 'Avg customer waiting time', 'Resolution Count'],
    line: (r: SummaryRow, n: { name: string; type?: string }) => [n.name, n.type ?? '', ...metrics(r)],
  },
  {
    path: 'labels',
    dim: 'label' as const,
    file: 'labels_report.csv',
    names: labelNames,
    header: ['Label', 'No. of conversations', 'Avg first response time', 'Avg resolution time', 'Avg reply time', 'Resolution Count'],
    line: (r: SummaryRow, n: { name: string }) => [n.name, ...metrics(r)],
  },
  {
    path: 'teams',
    dim: 'team' as const,
    file: 'teams_report.csv',
    names: copyNames('team'),
    header: ['Team name', 'Conversations count', 'Avg first response time', 'Avg resolution time', 'Avg customer waiting time', 'Resolution Count'],
    line: (r: SummaryRow, n: { name: string }) => [n.name, ...metrics(r)],
  },
];

/**
 * Chatwoot's heatmap window when none is given: the 6 local days before today, `timezone_offset`
 * hours east of UTC (`HeatmapHelper`: since = today's local midnight - 6 days, until = that midnight).
 */
function lastSixDays(raw: Record<string, unknown>): { since: string; until: string } {
  const offset = readReportQuery({ ...raw, since: '0', until: '1' }, { scoped: false }).offsetSeconds;
  const midnight = Math.floor((Date.now() / 1000 + offset) / 86_400) * 86_400 - offset;
  return { since: String(midnight - 6 * 86_400), until: String(midnight) };
}


const csvResponse = { description: 'A CSV file (`Content-Disposition: attachment`)', mediaType: 'text/csv' };

export const csvRoutes = [
  ...CSVS.map((c) =>
    route({
      method: 'get',
      path: `${V2}/reports/${c.path}`,
      operationId: `download${c.path[0]!.toUpperCase()}${c.path.slice(1)}Report`,
      summary: `Download the ${c.path} report (CSV)`,
      description: `Administrators only (403 otherwise). \`${c.file}\`: "Reporting period YYYY-MM-DD to YYYY-MM-DD", an empty line, then ${c.header.map((h) => `"${h}"`).join(', ')}; times humanised ("1 hour 5 minutes", "--" for none). The numbers are \`summary_reports/${c.dim}\`'s. Bad \`since\`/\`until\`: 422.`,
      tags: ['Reports'],
      security: ['userApiKey'],
      role: 'administrator',
      query: reportQueryDoc,
      response: csvResponse,
      errors: [403, 422],
      handler: async ({ query, accountId, ctx, res }, deps) => {
        const q = readReportQuery(query as Record<string, unknown>, { scoped: false });
        const rows = await summaryRowsFor(deps, accountId, c.dim, q, q.businessHours, ctx.requestId);
        const names = await c.names(deps, accountId, rows, ctx.requestId);
        let text = periodLine(q.since, q.until) + '\n' + csvLine(c.header);
        for (const r of rows) text += csvLine(c.line(r, names.get(r.id) ?? { name: `#${r.id}` }));
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename=${c.file}`);
        res.send(text);
      },
    }),
  ),
  route({
    method: 'get',
    path: `${V2}/reports/conversation_traffic`,
    operationId: 'downloadConversationTrafficReport',
    summary: 'Download the conversation traffic heatmap (CSV)',
    description:
      'Administrators only (403 otherwise). `conversation_traffic.csv`, Chatwoot\'s heatmap: "Timezone,UTC+hh:mm", then "Start of the hour" and one column per day, then one line per hour ("00:00" to "23:00") with the conversations created in that hour of each day, local to `timezone_offset`. The days are those of `[since, until)`, or without them the 6 days before today (Chatwoot\'s window). Bad parameters: 422.',
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: reportQueryDoc,
    response: csvResponse,
    errors: [403, 422],
    handler: async ({ query, accountId, res }, { pool }) => {
      const raw = query as Record<string, unknown>;
      const q = readReportQuery(raw['since'] === undefined && raw['until'] === undefined ? { ...raw, ...lastSixDays(raw) } : raw, { scoped: false });
      const cells = await trafficByHour(pool, accountId, q, q.offsetSeconds);
      const sign = q.offsetSeconds < 0 ? '-' : '+';
      const abs = Math.abs(q.offsetSeconds);
      const zone = `UTC${sign}${String(Math.floor(abs / 3600)).padStart(2, '0')}:${String(Math.floor((abs % 3600) / 60)).padStart(2, '0')}`;
      let text = csvLine(['Timezone', zone]) + csvLine(['Start of the hour', ...cells.map(([date]) => date)]);
      for (let h = 0; h < 24; h++) text += csvLine([`${String(h).padStart(2, '0')}:00`, ...cells.map(([, hours]) => hours[h] ?? 0)]);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', 'attachment; filename=conversation_traffic.csv');
      res.send(text);
    },
  }),
];
