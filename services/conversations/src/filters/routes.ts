import { z } from 'zod';
import { filterBodySchema, filterPage, routeKit } from '@parley/shared';
import type { AppDeps } from '../deps';
import { userIdOf, visibleInboxIds } from '../common/access';
import { presentConversations } from '../conversations/presenter';
import { conversationResponse } from '../conversations/schemas';
import { checkConversationFilter, runConversationFilter } from './conversation-filter';

const route = routeKit<AppDeps>();
const A = '/api/v1/accounts/{account_id}';

export const conversationFilterResponse = z.object({
  meta: z.object({ mine_count: z.number(), unassigned_count: z.number(), all_count: z.number() }),
  payload: z.array(conversationResponse),
});

export const filterRoutes = [
  route({
    method: 'post',
    path: `${A}/conversations/filter`,
    operationId: 'filterConversations',
    summary: 'Filter conversations',
    description: [
      "Chatwoot's conversation filter. `payload` is a list of conditions `{attribute_key, filter_operator, values, query_operator}`.",
      'Keys: `status` (names, `all` = every status) and `priority` (names, `none` = no priority): equal_to, not_equal_to; `assignee_id`, `inbox_id`, `team_id`, `campaign_id`, `labels`: equal_to, not_equal_to, is_present, is_not_present;',
      '`display_id`: equal_to, not_equal_to, contains, does_not_contain; `browser_language`, `conversation_language`, `country_code`: equal_to, not_equal_to; `referer`, `mail_subject`: those and contains, does_not_contain;',
      '`created_at`, `last_activity_at`: is_greater_than, is_less_than (compared as UTC dates), days_before (N days before today); any other key must be a conversation custom attribute definition of the account, with operators by its type.',
      '`query_operator` (AND/OR, any case) joins a condition to the next one, left to right without grouping, so AND binds before OR (`a AND b OR c` is `(a AND b) OR c`), as in Chatwoot; the last condition\'s is ignored (null, empty, omitted or trailing).',
      '`not_equal_to` also matches conversations without a value. No default status applies. Agents see the conversations of their inboxes.',
      '25 a page (`page` in the body or the query), newest activity first; the counts cover the whole filtered set. A bad key, operator, value or query_operator is 422 naming the condition (`payload.1.filter_operator`).',
    ].join(' '),
    tags: ['Conversations'],
    security: ['userApiKey'],
    role: ['administrator', 'agent'],
    query: z.object({ page: filterPage.optional() }),
    body: filterBodySchema,
    response: { description: 'Counts over the filtered set and one page of conversations', schema: conversationFilterResponse },
    errors: [400, 422],
    requestExample: {
      payload: [
        { attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: 'AND' },
        { attribute_key: 'assignee_id', filter_operator: 'is_not_present', values: [], query_operator: null },
      ],
      page: 1,
    },
    handler: async ({ body, query, ctx, accountId }, deps) => {
      const checked = await checkConversationFilter(deps.pool, accountId, body.payload);
      const scope = { accountId, visibleInboxIds: await visibleInboxIds(deps.pool, ctx, accountId), userId: userIdOf(ctx) };
      const { meta, rows } = await runConversationFilter(deps.pool, scope, checked, query.page ?? body.page ?? 1);
      return { meta, payload: await presentConversations(deps.pool, deps.projections, ctx, accountId, rows) };
    },
  }),
];
