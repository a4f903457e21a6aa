import { routeKit } from '@parley/shared';
import type { AppDeps } from '../deps';
import { presentConversations } from './presenter';
import { conversationListResponse, searchConversationsQuery } from './schemas';
import { listPage } from './service';

const route = routeKit<AppDeps>();
const A = '/api/v1/accounts/{account_id}';

/** Chatwoot's `GET /conversations/search`: the list (its query, visibility and `q` matching) with `q` required. */
export const searchRoutes = [
  route({
    method: 'get',
    path: `${A}/conversations/search`,
    operationId: 'searchConversations',
    summary: 'Search conversations',
    description: [
      'The conversation list searched by `q` (required): conversations with an incoming or outgoing message containing it, or whose contact\'s name contains it (case-insensitive).',
      'Takes the list\'s other parameters; `status` is ignored (as with the list\'s `q`). 25 a page, newest activity first; `meta` counts as the list\'s.',
      'The payload items are the list\'s conversations (Chatwoot answers a compact partial). Agents see the conversations of their inboxes. A `team_id` that is no team of the account is 404 (Chatwoot). A missing `q` or a malformed or unknown parameter is 400.',
    ].join(' '),
    tags: ['Conversations'],
    security: ['userApiKey'],
    query: searchConversationsQuery,
    response: { description: 'Counts and one page of matching conversations', schema: conversationListResponse },
    errors: [400],
    handler: async ({ query, ctx, accountId }, deps) => {
      const { meta, rows, ...known } = await listPage(deps, ctx, accountId, query, { qMatchesContactName: true });
      return { data: { meta, payload: await presentConversations(deps.pool, deps.projections, ctx, accountId, rows, known) } };
    },
  }),
];
