import { pathId, routeKit } from '@parley/shared';
import type { AppDeps } from '../deps';
import { emptyObject } from '../common/validation';
import { inboxData } from './present';
import { createInboxBody, inboxListResponse, inboxMembersBody, inboxMembersResponse, inboxResponse, updateInboxBody } from './schemas';
import * as service from './service';

const route = routeKit<AppDeps>();
const A = '/api/v1/accounts/{account_id}';
const inboxes = { tags: ['Inboxes'], security: ['userApiKey' as const] };
const inboxId = { id: pathId('Inbox') };

/** `/inboxes` and `/inbox_members`: every member reads (agents their own inboxes), administrators write. */
export const inboxRoutes = [
  route({
    method: 'get', path: `${A}/inboxes`, operationId: 'listInboxes', summary: 'List inboxes', ...inboxes,
    description: 'Agents see the inboxes they are members of; administrators all (with `hmac_token`).',
    response: { description: 'The inboxes', schema: inboxListResponse },
    handler: async ({ ctx, accountId }, { pool }) => ({ payload: (await service.listVisibleInboxes(pool, ctx, accountId)).map((r) => inboxData(r, ctx)) }),
  }),
  route({
    method: 'post', path: `${A}/inboxes`, operationId: 'createInbox', summary: 'Create an API inbox', ...inboxes,
    description: 'Administrators only. Only the API channel exists (`channel.type: "api"`). The answer carries `inbox_identifier` (for the public API) and `hmac_token`.',
    role: 'administrator', body: createInboxBody, response: { description: 'The new inbox', schema: inboxResponse },
    requestExample: { name: 'Website', channel: { type: 'api', webhook_url: 'https://example.com/hooks/parley' } },
    handler: async ({ body, ctx, accountId }, deps) => inboxData(await service.createInbox(deps, ctx, accountId, body), ctx),
  }),
  route({
    method: 'get', path: `${A}/inboxes/{id}`, operationId: 'getInbox', summary: 'Show an inbox', ...inboxes,
    params: inboxId, response: { description: 'The inbox', schema: inboxResponse },
    handler: async ({ params, ctx, accountId }, { pool }) => inboxData(await service.loadVisibleInbox(pool, ctx, accountId, params.id), ctx),
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${A}/inboxes/{id}`, ...inboxes,
      ...(method === 'patch' ? { operationId: 'updateInbox', summary: 'Update an inbox', description: 'Administrators only.' } : { operationId: 'replaceInbox', summary: 'Update an inbox (same as PATCH)' }),
      role: 'administrator', params: inboxId, body: updateInboxBody, response: { description: 'The inbox', schema: inboxResponse },
      handler: async ({ params, body, ctx, accountId }, deps) => inboxData(await service.updateInbox(deps, ctx, accountId, params.id, body), ctx),
    }),
  ),
  route({
    method: 'delete', path: `${A}/inboxes/{id}`, operationId: 'deleteInbox', summary: 'Delete an inbox', ...inboxes,
    description: 'Administrators only. Its conversations and messages go with it.',
    role: 'administrator', params: inboxId, response: { description: 'Deleted', schema: emptyObject },
    handler: async ({ params, ctx, accountId }, deps) => {
      await service.deleteInbox(deps, ctx, accountId, params.id);
      return {};
    },
  }),
  route({
    method: 'get', path: `${A}/inbox_members/{inbox_id}`, operationId: 'listInboxMembers', summary: 'List the agents of an inbox', ...inboxes,
    params: { inbox_id: pathId('Inbox') }, response: { description: 'The members', schema: inboxMembersResponse },
    handler: async ({ params, ctx, accountId }, deps) => {
      const inbox = await service.loadVisibleInbox(deps.pool, ctx, accountId, params.inbox_id, 'inbox_id');
      return { payload: await service.inboxMembers(deps, ctx, accountId, inbox.id) };
    },
  }),
  ...([
    ['post', 'add', 'addInboxMembers', 'Add agents to an inbox', 'Administrators only. Every user must be an agent of the account (422 otherwise).'],
    ['patch', 'replace', 'setInboxMembers', 'Replace the agents of an inbox', undefined],
    ['put', 'replace', 'replaceInboxMembers', 'Replace the agents of an inbox (same as PATCH)', undefined],
    ['delete', 'remove', 'removeInboxMembers', 'Remove agents from an inbox', undefined],
  ] as const).map(([method, mode, operationId, summary, description]) =>
    route({
      method, path: `${A}/inbox_members`, operationId, summary, ...(description ? { description } : {}), ...inboxes,
      role: 'administrator', body: inboxMembersBody, response: { description: 'The members now', schema: inboxMembersResponse },
      handler: async ({ body, ctx, accountId }, deps) => ({ payload: await service.changeInboxMembers(deps, ctx, accountId, mode, body.inbox_id, body.user_ids) }),
    }),
  ),
];
