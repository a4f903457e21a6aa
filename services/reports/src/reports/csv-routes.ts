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
    new Map((await deps.projections.list(deps.pool, kind, accountId)).map((x) => [x.id, { name: x.name, ...('channel_type' in x ? { type: x.channel_type } : {}) }]));
const labelNames: Named = async (_deps, _accountId, rows) => new Map(rows.map((r) => [r.id, { name: r.name ?? '' }]));

const t = (v: number | null | undefined) => humanDuration(v ?? null);

/** Chatwoot's file names and columns (app/views/api/v2/accounts/reports/*.csv.erb, config/locales/en.yml). */
const CSVS = [
  {
    path: 'agents',
    dim: 'agent' as const,
    file: 'agents_report.csv',
    names: agentNames,
    header: ['Agent name', 'Assigned conversations', 'Avg first response time', 'Avg resolution time', 'Avg customer waiting time', 'Resolution Count'],
    line: (r: SummaryRow, n: { name: string }) => [n.name, r['conversations_count'] ?? 0, t(r['avg_first_response_time']), t(r['avg_resolution_time']), t(r['avg_reply_time']), r['resolved_conversations_count'] ?? 0],
  },
  {
    path: 'inboxes',
    dim: 'inbox' as const,
    file: 'inboxes_report.csv',
    names: copyNames('inbox'),
    header: ['Inbox name', 'Inbox type', 'No. of conversations', 'Avg first response time', 'Avg resolution time'],
    line: (r: SummaryRow, n: { name: string; type?: string }) => [n.name, n.type ?? '', r['conversations_count'] ?? 0, t(r['avg_first_response_time']), t(r['avg_resolution_time'])],
  },
  {
    path: 'labels',
    dim: 'label' as const,
    file: 'labels_report.csv',
    names: labelNames,
    header: ['Label', 'No. of conversations', 'Avg first response time', 'Avg resolution time'],
    line: (r: SummaryRow, n: { name: string }) => [n.name, r['conversations_count'] ?? 0, t(r['avg_first_response_time']), t(r['avg_resolution_time'])],
  },
  {
    path: 'teams',
    dim: 'team' as const,
    file: 'teams_report.csv',
    names: copyNames('team'),
    header: ['Team name', 'No. of conversations', 'Avg first response time', 'Avg resolution time'],
    line: (r: SummaryRow, n: { name: string }) => [n.name, r['conversations_count'] ?? 0, t(r['avg_first_response_time']), t(r['avg_resolution_time'])],
  },
];

const csvResponse = { description: 'A CSV file (`text/csv`, `Content-Disposition: attachment`)', contentType: 'text/csv' };

export const csvRoutes = [
  ...CSVS.map((c) =>
    route({
      method: 'get',
      path: `${V2}/reports/${c.path}`,
      operationId: `download${c.path[0]!.toUpperCase()}${c.path.slice(1)}Report`,
      summary: `Download the ${c.path} report (CSV)`,
      description: `Administrators only (403 otherwise). \`${c.file}\`: "Reporting period YYYY-MM-DD to YYYY-MM-DD", then ${c.header.map((h) => `"${h}"`).join(', ')}; times humanised ("1 hour 5 minutes", "--" for none). The numbers are \`summary_reports/${c.dim}\`'s. Bad \`since\`/\`until\`: 422.`,
      tags: ['Reports'],
      security: ['userApiKey'],
      role: 'administrator',
      query: reportQueryDoc,
      errors: [403, 422],
      handler: async ({ query, accountId, ctx, res }, deps) => {
        const q = readReportQuery(query as Record<string, unknown>, { scoped: false });
        const rows = await summaryRowsFor(deps, accountId, c.dim, q, q.businessHours, ctx.requestId);
        const names = await c.names(deps, accountId, rows, ctx.requestId);
        let text = periodLine(q.since, q.until) + csvLine(c.header);
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
      'Administrators only (403 otherwise). `conversation_traffic.csv`: "Timezone,UTC+hh:mm", then a header of the 24 hours and one line per day of `[since, until)` (local to `timezone_offset`) with the conversations created in each hour. Bad parameters: 422.',
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: reportQueryDoc,
    errors: [403, 422],
    handler: async ({ query, accountId, res }, { pool }) => {
      const q = readReportQuery(query as Record<string, unknown>, { scoped: false });
      const cells = await trafficByHour(pool, accountId, q, q.offsetSeconds);
      const sign = q.offsetSeconds < 0 ? '-' : '+';
      const abs = Math.abs(q.offsetSeconds);
      const zone = `UTC${sign}${String(Math.floor(abs / 3600)).padStart(2, '0')}:${String(Math.floor((abs % 3600) / 60)).padStart(2, '0')}`;
      let text = csvLine(['Timezone', zone]) + csvLine(['Date', ...Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`)]);
      for (const [date, hours] of cells) text += csvLine([date, ...hours]);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', 'attachment; filename=conversation_traffic.csv');
      res.send(text);
    },
  }),
];
