import { pathId, routeKit, unixSeconds, withTransaction, type RequestContext, type SecurityScheme } from '@parley/shared';
import { emptyObject } from '../common/validation';
import { conversationSnapshot } from '../common/snapshots';
import type { ConversationRow } from '../common/rows';
import { emit } from './changes';
import type { AppDeps } from '../deps';
import { multipartBody, uploadedFiles } from '../messages/uploads';
import { presentConversation, presentConversations } from './presenter';
import {
  assignmentBody, assignmentResponse, contactConversationsResponse, conversationListResponse, conversationResponse, conversationsMetaQuery, conversationsMetaResponse,
  createConversationBody, customAttributesBody, customAttributesResponse, labelsBody, labelsResponse, listConversationsQuery, toggleStatusBody, togglePriorityBody,
  toggleStatusResponse, toggleTypingStatusBody, updateConversationBody,
} from './schemas';
import * as service from './service';

const route = routeKit<AppDeps>();
const A = '/api/v1/accounts/{account_id}';
const C = `${A}/conversations/{conversation_id}`;
const user: SecurityScheme[] = ['userApiKey'];
/** Chatwoot's BOT_ACCESSIBLE_ENDPOINTS take agent-bot tokens too. */
const userOrBot: SecurityScheme[] = ['userApiKey', 'agentBotApiKey'];
const tags = ['Conversations'];
const conversation = { conversation_id: pathId('Conversation') };
const done = { description: 'Done', schema: emptyObject };
const theConversation = { description: 'The conversation', schema: conversationResponse };

const show = (deps: AppDeps, ctx: RequestContext, row: ConversationRow) => presentConversation(deps.pool, deps.projections, ctx, row);

/** `/conversations` below an account (and a contact's conversations). */
export const conversationRoutes = [
  route({
    method: 'get', path: `${A}/conversations`, operationId: 'listConversations', summary: 'List conversations',
    description: 'SPEC op 1. 25 a page, newest activity first by default. `meta` counts see every filter but `assignee_type` (and `updated_within`). `status` is ignored when `q` is given (Chatwoot). Agents see the conversations of their inboxes. A `team_id` that is no team of the account is 404 (Chatwoot). `updated_within` (seconds) answers every conversation updated since, unpaginated. `conversation_type`: `mention` (private notes @-mentioning the caller), `participating` (the caller wrote in, was mentioned in or is assigned; any inbox), `unattended`. Unknown or malformed parameters are 400.',
    tags, security: user, query: listConversationsQuery, response: { description: 'Counts and one page of conversations', schema: conversationListResponse },
    handler: async ({ query, ctx, accountId }, deps) => {
      const { meta, rows, ...known } = await service.listPage(deps, ctx, accountId, query);
      return { data: { meta, payload: await presentConversations(deps.pool, deps.projections, ctx, accountId, rows, known) } };
    },
  }),
  route({
    method: 'get', path: `${A}/conversations/meta`, operationId: 'getConversationCounts', summary: 'Conversation counts',
    description: 'The `meta` of the list for the same filters (a `team_id` that is no team of the account is 404).',
    tags, security: user, query: conversationsMetaQuery, response: { description: 'The counts', schema: conversationsMetaResponse },
    handler: async ({ query, ctx, accountId }, deps) => ({ meta: await service.counts(deps, ctx, accountId, query) }),
  }),
  route({
    method: 'post', path: `${A}/conversations`, operationId: 'createConversation', summary: 'Create a conversation',
    description: 'SPEC op 4. `inbox_id` with `contact_id` (the contact inbox is found or created; `source_id` optional) or with `source_id` of an existing contact inbox. `message` is the initial message (outgoing from the caller unless `message_type` says otherwise). Answers the full conversation.',
    tags, security: userOrBot, multipart: (deps) => multipartBody(deps.config), body: createConversationBody,
    response: { description: 'The new conversation (a superset of SPEC\'s {id, account_id, inbox_id})', schema: conversationResponse }, errors: [404, 422],
    requestExample: { inbox_id: 1, contact_id: 1, status: 'open', custom_attributes: { plan: 'pro' }, message: { content: 'Hello! How can we help?' } },
    handler: async ({ body, ctx, accountId, req }, deps) => show(deps, ctx, await service.createConversation(deps, ctx, accountId, body, uploadedFiles(req))),
  }),
  route({
    method: 'get', path: C, operationId: 'getConversation', summary: 'Show a conversation', tags, security: user, params: conversation, response: theConversation,
    handler: async ({ params, ctx, accountId }, deps) => show(deps, ctx, await service.loadConversation(deps.pool, ctx, accountId, params.conversation_id)),
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: C, tags, security: userOrBot,
      ...(method === 'patch'
        ? { operationId: 'updateConversation', summary: 'Update a conversation (priority)' }
        : { operationId: 'replaceConversation', summary: 'Update a conversation (same as PATCH)' }),
      params: conversation, body: updateConversationBody, response: theConversation,
      handler: async ({ params, body, ctx, accountId }, deps) => {
        const row =
          body.priority !== undefined
            ? await service.setPriority(deps, { ctx }, accountId, params.conversation_id, body.priority)
            : await service.loadConversation(deps.pool, ctx, accountId, params.conversation_id);
        return show(deps, ctx, row);
      },
    }),
  ),
  route({
    method: 'delete', path: C, operationId: 'deleteConversation', summary: 'Delete a conversation', description: 'Administrators only.', tags, security: user,
    params: conversation, response: { description: 'Deleted', schema: emptyObject },
    handler: async ({ params, ctx, accountId }, deps) => {
      await service.deleteConversation(deps, ctx, accountId, params.conversation_id);
      return {};
    },
  }),
  route({
    method: 'post', path: `${C}/toggle_status`, operationId: 'toggleConversationStatus', summary: 'Change or toggle the status',
    description: 'With `status` (`open`, `resolved`, `pending`, `snoozed` with `snoozed_until` in unix seconds or ISO-8601) it is set; without, open and resolved alternate. A snoozed conversation reopens by itself when the time comes.',
    tags, security: userOrBot, params: conversation, body: toggleStatusBody, response: { description: 'The new status', schema: toggleStatusResponse },
    handler: async ({ params, body, ctx, accountId }, deps) => {
      const row = await service.toggleStatus(deps, { ctx }, accountId, params.conversation_id, body);
      return {
        meta: {},
        payload: { success: true, conversation_id: row.display_id, current_status: row.status, snoozed_until: row.snoozed_until ? unixSeconds(row.snoozed_until) : null },
      };
    },
  }),
  route({
    method: 'post', path: `${C}/toggle_priority`, operationId: 'toggleConversationPriority', summary: 'Set the priority',
    description: 'SPEC op 7. `none` (or null, or no value) clears it.', tags, security: userOrBot, params: conversation, body: togglePriorityBody,
    response: done, requestExample: { priority: 'high' },
    handler: async ({ params, body, ctx, accountId }, deps) => {
      await service.setPriority(deps, { ctx }, accountId, params.conversation_id, body.priority);
      return {};
    },
  }),
  route({
    method: 'post', path: `${C}/assignments`, operationId: 'assignConversation', summary: 'Assign an agent or a team',
    description: '`assignee_id` (null unassigns) answers the agent or null; otherwise `team_id` (null unassigns the team) answers the team or null.',
    tags, security: userOrBot, params: conversation, body: assignmentBody, response: { description: 'The assignee, the team, or null', schema: assignmentResponse },
    handler: async ({ params, body, ctx, accountId }, deps) => (await service.assign(deps, { ctx }, accountId, params.conversation_id, body)).answer,
  }),
  route({
    method: 'post', path: `${C}/custom_attributes`, operationId: 'setConversationCustomAttributes', summary: 'Replace the custom attributes', tags, security: userOrBot,
    params: conversation, body: customAttributesBody, response: { description: 'The custom attributes now', schema: customAttributesResponse },
    handler: async ({ params, body, ctx, accountId }, deps) => {
      const row = await service.setCustomAttributes(deps, { ctx }, accountId, params.conversation_id, body.custom_attributes);
      return { custom_attributes: row.custom_attributes };
    },
  }),
  route({
    method: 'get', path: `${C}/labels`, operationId: 'listConversationLabels', summary: 'The labels of a conversation', tags, security: user,
    params: conversation, response: { description: 'The labels', schema: labelsResponse },
    handler: async ({ params, ctx, accountId }, deps) => ({ payload: (await service.loadConversation(deps.pool, ctx, accountId, params.conversation_id)).labels }),
  }),
  route({
    method: 'post', path: `${C}/labels`, operationId: 'setConversationLabels', summary: 'Add labels to a conversation', description: 'SPEC op 6: the list replaces the conversation\'s labels.',
    tags, security: user, params: conversation, body: labelsBody, response: { description: 'The labels now', schema: labelsResponse }, requestExample: { labels: ['billing', 'vip'] },
    handler: async ({ params, body, ctx, accountId }, deps) => ({ payload: (await service.setLabels(deps, { ctx }, accountId, params.conversation_id, body.labels ?? [])).labels }),
  }),
  route({
    method: 'post', path: `${C}/toggle_typing_status`, operationId: 'toggleConversationTyping', summary: 'Say the agent is typing (or stopped)',
    description: 'Sends `conversation.typing_on|typing_off` to the realtime channel (`/cable`): the conversation\'s agents and its contact; `is_private` marks typing of a private note.',
    tags, security: user, params: conversation, body: toggleTypingStatusBody, response: done,
    // Typing changes nothing stored; the event is what carries it (to the realtime channel and webhooks).
    handler: async ({ params, body, ctx, accountId }, deps) => {
      await withTransaction(deps.pool, async (tx) => {
        const c = await service.loadConversation(tx, ctx, accountId, params.conversation_id);
        await emit(tx, { ctx }, body.typing_status === 'on' ? 'conversation.typing_on' : 'conversation.typing_off', accountId, { ...conversationSnapshot(c), is_private: body.is_private });
      });
      return {};
    },
  }),
  route({
    method: 'post', path: `${C}/mute`, operationId: 'muteConversation', summary: 'Mute (and resolve) a conversation', tags, security: user, params: conversation, response: done,
    handler: async ({ params, ctx, accountId }, deps) => {
      await service.setMuted(deps, { ctx }, accountId, params.conversation_id, true);
      return {};
    },
  }),
  route({
    method: 'post', path: `${C}/unmute`, operationId: 'unmuteConversation', summary: 'Unmute a conversation', tags, security: user, params: conversation, response: done,
    handler: async ({ params, ctx, accountId }, deps) => {
      await service.setMuted(deps, { ctx }, accountId, params.conversation_id, false);
      return {};
    },
  }),
  route({
    method: 'post', path: `${C}/update_last_seen`, operationId: 'markConversationSeen', summary: 'Mark the conversation read by the caller', tags, security: user,
    params: conversation, response: theConversation,
    handler: async ({ params, ctx, accountId }, deps) => show(deps, ctx, await service.markSeen(deps, ctx, accountId, params.conversation_id, 'now')),
  }),
  route({
    method: 'post', path: `${C}/unread`, operationId: 'markConversationUnread', summary: 'Mark the last incoming message unread', tags, security: user,
    params: conversation, response: theConversation,
    handler: async ({ params, ctx, accountId }, deps) => show(deps, ctx, await service.markSeen(deps, ctx, accountId, params.conversation_id, 'before_last_incoming')),
  }),
  route({
    method: 'get', path: `${A}/contacts/{contact_id}/conversations`, operationId: 'listContactConversations', summary: 'The newest conversations of a contact', tags, security: user,
    params: { contact_id: pathId('Contact') }, response: { description: 'Up to 20 conversations', schema: contactConversationsResponse },
    handler: async ({ params, ctx, accountId }, deps) =>
      ({ payload: await presentConversations(deps.pool, deps.projections, ctx, accountId, await service.contactConversations(deps, ctx, accountId, params.contact_id)) }),
  }),
];
