import { z } from 'zod';
import { routeKit, ValidationError } from '@parley/shared';
import { readReportQuery, reportQueryDoc } from './params';
import {
  agentConversationsResponse,
  botSummary,
  conversationCounts,
  conversationsQuery,
  groupedQuery,
  liveCountsResponse,
  liveQuery,
  requireTeam,
  summaryRowResponse,
  summaryRowsFor,
  type TableDeps,
} from './table-routes';
import { liveCounts, liveCountsBy } from './live';

const route = routeKit<TableDeps>();
const V2 = '/api/v2/accounts/{account_id}';
const ADMIN_ONLY = 'Administrators only (403 otherwise).';
const WINDOW = 'Over `[since, until)` (unix seconds, required, at most a year; 422 otherwise).';

const DIMENSIONS = [
  ['agent', 'Agents', 'one row per member of the account; conversations are those assigned to the agent now, times and resolutions are credited as in docs/reports.md'],
  ['team', 'Teams', "one row per team (the conversation's team when the event happened; conversations: its team now)"],
  ['inbox', 'Inboxes', 'one row per inbox'],
  ['label', 'Labels', 'one row per label of the account, with `name`; averages 0 instead of null (Chatwoot)'],
] as const;

const summaryRoutes = DIMENSIONS.map(([dim, plural, what]) =>
  route({
    method: 'get',
    path: `${V2}/summary_reports/${dim}`,
    operationId: `get${plural}SummaryReport`,
    summary: `${plural.slice(0, -1)} summary report`,
    description: `${ADMIN_ONLY} ${WINDOW} ${what}. Each row equals \`reports/summary\` with \`type=${dim}&id=<id>\`.`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: reportQueryDoc,
    response: z.array(summaryRowResponse),
    errors: [403, 422],
    handler: async ({ query, accountId, ctx }, deps) => {
      const q = readReportQuery(query as Record<string, unknown>, { scoped: false });
      return summaryRowsFor(deps, accountId, dim, q, q.businessHours, ctx.requestId);
    },
  }),
);

export const summaryReportRoutes = [
  route({
    method: 'get',
    path: `${V2}/reports/bot_summary`,
    operationId: 'getBotSummary',
    summary: 'Bot summary',
    description: `${ADMIN_ONLY} ${WINDOW} Bot resolutions and hand-offs, and \`previous\`: the window of equal length before.`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: reportQueryDoc,
    response: z.object({ bot_resolutions_count: z.number().int(), bot_handoffs_count: z.number().int(), previous: z.object({ bot_resolutions_count: z.number().int(), bot_handoffs_count: z.number().int() }) }),
    errors: [403, 422],
    handler: async ({ query, accountId }, { pool }) => {
      const q = readReportQuery(query as Record<string, unknown>, { scoped: false });
      const length = q.until.getTime() - q.since.getTime();
      const [current, previous] = await Promise.all([botSummary(pool, accountId, q), botSummary(pool, accountId, { since: new Date(q.since.getTime() - length), until: q.since })]);
      return { ...current, previous };
    },
  }),
  route({
    method: 'get',
    path: `${V2}/reports/conversations`,
    operationId: 'getReportConversationCounts',
    summary: 'Conversation counts',
    description: `${ADMIN_ONLY} \`type=account\`: \`{open, unattended, unassigned, pending}\` now (pending counted, where Chatwoot always says 0). \`type=agent\`: every member with their open and unattended conversations, most open first, 25 a page. A missing or other \`type\`: 422.`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: conversationsQuery,
    response: z.union([liveCountsResponse, agentConversationsResponse]),
    errors: [403, 422],
    handler: async ({ query, accountId, ctx }, deps) => conversationCounts(deps, accountId, query as Record<string, unknown>, ctx.requestId),
  }),
  ...summaryRoutes,
  route({
    method: 'get',
    path: `${V2}/live_reports/conversation_metrics`,
    operationId: 'getLiveConversationMetrics',
    summary: 'Live conversation metrics',
    description: `${ADMIN_ONLY} \`{open, unattended, unassigned, pending}\` now, for the account or one team (\`team_id\`; 404 for a team the account does not have).`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: liveQuery,
    response: liveCountsResponse,
    errors: [403, 404],
    handler: async ({ query, accountId, ctx }, deps) => {
      const teamId = (query as { team_id?: number }).team_id;
      if (teamId !== undefined) await requireTeam(deps, accountId, teamId, ctx.requestId);
      return liveCounts(deps.pool, accountId, teamId !== undefined ? { teamId } : {});
    },
  }),
  route({
    method: 'get',
    path: `${V2}/live_reports/grouped_conversation_metrics`,
    operationId: 'getGroupedLiveConversationMetrics',
    summary: 'Live conversation metrics by team or assignee',
    description: `${ADMIN_ONLY} \`[{open, unattended, unassigned, <group_by>}]\` per team (\`group_by=team_id\`) or assignee (\`assignee_id\`); conversations without one are the row with null. Any other \`group_by\`: 422.`,
    tags: ['Reports'],
    security: ['userApiKey'],
    role: 'administrator',
    query: groupedQuery,
    response: z.array(z.object({ open: z.number().int(), unattended: z.number().int(), unassigned: z.number().int(), team_id: z.number().int().nullable().optional(), assignee_id: z.number().int().nullable().optional() })),
    errors: [403, 422],
    handler: async ({ query, accountId }, { pool }) => {
      const key = (query as { group_by?: string }).group_by;
      if (key !== 'team_id' && key !== 'assignee_id') throw new ValidationError('invalid group_by', [{ field: 'group_by', message: 'must be team_id or assignee_id', code: key === undefined ? 'blank' : 'inclusion' }]);
      return (await liveCountsBy(pool, accountId, key)).map((r) => ({ open: r.open, unattended: r.unattended, unassigned: r.unassigned, [key]: r.key }));
    },
  }),
];
