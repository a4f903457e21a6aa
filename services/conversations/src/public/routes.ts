import { NotFoundError, ValidationError, pathId, pathParam, routeKit, withTransaction, type RequestContext } from '@parley/shared';
import type { AppDeps } from '../deps';
import type { ConversationRow } from '../common/rows';
import { emptyObject } from '../common/validation';
import { conversationSnapshot } from '../common/snapshots';
import { changeConversation, emit, type Cause } from '../conversations/changes';
import { openConversation } from '../conversations/service';
import { publicInboxData } from '../inboxes/present';
import { publicInboxResponse } from '../inboxes/schemas';
import { findAttachmentBlob, findMessage, listMessages } from '../messages/repository';
import { attachmentDescription, sendBlob } from '../messages/routes';
import { publicCreateMessageBody, publicListMessagesQuery, publicMessageResponse, publicUpdateMessageBody } from '../messages/schemas';
import { assertHasContent, createMessage, markReadByContact, updateMessage } from '../messages/service';
import { multipartBody, uploadedFiles } from '../messages/uploads';
import { z } from 'zod';
import { presentPublicConversations, presentPublicMessages } from './present';
import { publicConversationListResponse, publicConversationResponse, publicCreateConversationBody, toggleTypingBody } from './schemas';
import { inboxByIdentifier, mutatePublicConversation, publicConversation, resolveScope, scopedConversations, type PublicScope } from './service';

const CSAT_EDIT_WINDOW_MS = 14 * 24 * 3600 * 1000;

function capitalise(name: string | null | undefined): string {
  const n = (name ?? '').trim();
  return n ? n[0]!.toUpperCase() + n.slice(1) : 'Contact';
}

const route = routeKit<AppDeps>();
const P = '/public/api/v1/inboxes/{inbox_identifier}';
const PC = `${P}/contacts/{contact_identifier}/conversations`;
const ONE = `${PC}/{conversation_id}`;
const tags = ['Public conversations'];
const inbox = { inbox_identifier: pathParam('Inbox') };
const contact = { ...inbox, contact_identifier: pathParam('Contact') };
const conversation = { ...contact, conversation_id: pathId('Conversation') };
const theConversation = { description: 'The conversation', schema: publicConversationResponse };
const theMessage = { description: 'The message', schema: publicMessageResponse };

/** The contact inbox the path's identifiers name (404 for anything they do not reach). */
const scopeOf = (deps: AppDeps, ctx: RequestContext, p: { inbox_identifier: string; contact_identifier: string }) =>
  resolveScope(deps, ctx, p.inbox_identifier, p.contact_identifier);
const present = async (deps: AppDeps, scope: PublicScope, conv: ConversationRow) => (await presentPublicConversations(deps.pool, deps.projections, scope, [conv]))[0];

/**
 * `/public/api/v1/inboxes/...`: the client API of an API inbox's end users. No credential: the
 * inbox identifier and the contact inbox's source id are the keys, and anything they do not
 * reach is 404.
 */
export const publicRoutes = [
  route({
    method: 'get', path: P, operationId: 'getPublicInbox', summary: 'Show an API inbox to its clients', tags, security: [], params: inbox,
    response: { description: 'The inbox', schema: publicInboxResponse },
    handler: async ({ params }, { pool }) => publicInboxData(await inboxByIdentifier(pool, params.inbox_identifier)),
  }),
  route({
    method: 'get', path: PC, operationId: 'listPublicConversations', summary: 'List the contact\'s conversations',
    description: 'Those of this contact inbox; every conversation of the contact when its identity is HMAC-verified.', tags, security: [], params: contact,
    response: { description: 'The conversations', schema: publicConversationListResponse },
    handler: async ({ params, ctx }, deps) => {
      const scope = await scopeOf(deps, ctx, params);
      return presentPublicConversations(deps.pool, deps.projections, scope, await scopedConversations(deps.pool, scope));
    },
  }),
  route({
    method: 'post', path: PC, operationId: 'createPublicConversation', summary: 'Start a conversation', tags, security: [], params: contact,
    body: publicCreateConversationBody, response: theConversation,
    handler: async ({ params, body, ctx }, deps) => {
      const scope = await scopeOf(deps, ctx, params);
      const conv = await openConversation(deps.pool, { ctx: scope.ctx }, scope.inbox, { contact: scope.contact, contact_inbox: scope.contactInbox }, {
        status: 'open',
        snoozedUntil: null,
        assigneeId: null,
        teamId: null,
        additionalAttributes: {},
        customAttributes: body.custom_attributes ?? {},
        message: null,
      });
      return present(deps, scope, conv);
    },
  }),
  route({
    method: 'get', path: ONE, operationId: 'getPublicConversation', summary: 'Get a single conversation (public)',
    description: 'SPEC op 14. The chat messages only (no private notes, no activity), oldest first. A wrong inbox, contact or conversation is 404.',
    tags, security: [], params: conversation, response: theConversation,
    handler: async ({ params, ctx }, deps) => {
      const { scope, conversation } = await publicConversation(deps, ctx, params);
      return present(deps, scope, conversation);
    },
  }),
  route({
    method: 'post', path: `${ONE}/toggle_status`, operationId: 'resolvePublicConversation', summary: 'Resolve the conversation',
    description: 'A contact can only resolve (Chatwoot); it reopens with their next message.', tags, security: [], params: conversation, response: theConversation,
    handler: async ({ params, ctx }, deps) => {
      // Chatwoot: a contact can only resolve; an already resolved conversation stays as it is.
      const { scope, value: conv } = await mutatePublicConversation(deps, ctx, params, async (tx, c, scope) => {
        if (c.status === 'resolved') return c;
        return changeConversation(tx, { ctx: scope.ctx }, c, { status: 'resolved' }, { statusActivity: `Conversation was resolved by ${capitalise(scope.contact.name)}`, last: true });
      });
      return present(deps, scope, conv);
    },
  }),
  route({
    method: 'post', path: `${ONE}/toggle_typing`, operationId: 'togglePublicTyping', summary: 'Say the contact is typing (or stopped)', tags, security: [], params: conversation,
    body: toggleTypingBody, response: { description: 'Done', schema: emptyObject },
    handler: async ({ params, body, ctx }, deps) => {
      const { scope, conversation: c } = await publicConversation(deps, ctx, params);
      await withTransaction(deps.pool, async (tx) => {
        await emit(tx, { ctx: scope.ctx }, body.typing_status === 'on' ? 'conversation.typing_on' : 'conversation.typing_off', c.account_id, { ...conversationSnapshot(c), is_private: false });
      });
      return {};
    },
  }),
  route({
    method: 'post', path: `${ONE}/update_last_seen`, operationId: 'markPublicConversationSeen', summary: 'Mark the conversation read by the contact', tags, security: [], params: conversation,
    response: { description: 'Done', schema: emptyObject },
    handler: async ({ params, ctx }, deps) => {
      await mutatePublicConversation(deps, ctx, params, async (tx, c, scope) => {
        const { rows } = await tx.query<ConversationRow>('UPDATE conversations SET contact_last_seen_at = now() WHERE id = $1 RETURNING *', [c.id]);
        const seen = rows[0] as ConversationRow;
        await emit(tx, { ctx: scope.ctx }, 'conversation.read', c.account_id, conversationSnapshot(seen));
        await markReadByContact(tx, { ctx: scope.ctx }, seen);
      });
      return {};
    },
  }),
  route({
    method: 'get', path: `${ONE}/messages`, operationId: 'listPublicMessages', summary: 'List messages', description: 'The newest 20 chat messages, oldest first; `before` pages back.',
    tags, security: [], params: conversation, query: publicListMessagesQuery, response: { description: 'The messages', schema: z.array(publicMessageResponse) },
    handler: async ({ params, query, ctx }, deps) => {
      const { scope, conversation: conv } = await publicConversation(deps, ctx, params);
      const rows = await listMessages(deps.pool, conv.account_id, conv.id, { before: query.before, after: query.after, publicOnly: true });
      return presentPublicMessages(deps.pool, deps.projections, scope, conv, rows);
    },
  }),
  route({
    method: 'post', path: `${ONE}/messages`, operationId: 'createPublicMessage', summary: 'Send a message as the contact',
    description: 'An incoming message; reopens a resolved or snoozed conversation. Files come as multipart `attachments[]`.', tags, security: [], params: conversation,
    multipart: (deps) => multipartBody(deps.config), body: publicCreateMessageBody, response: theMessage, requestExample: { content: 'Hello, I need help' },
    handler: async ({ params, body, ctx, req }, deps) => {
      const files = uploadedFiles(req);
      assertHasContent(body.content, files, 'text');
      const { scope, value: { message, conversation: conv } } = await mutatePublicConversation(deps, ctx, params, async (tx, c, scope) => {
        return createMessage(tx, { ctx: scope.ctx }, c, {
          message_type: 0,
          content: body.content ?? null,
          content_type: 'text',
          content_attributes: {},
          private: false,
          source_id: null,
          sender_type: 'Contact',
          sender_id: scope.contact.id,
          files,
        }, { last: true });
      });
      return (await presentPublicMessages(deps.pool, deps.projections, scope, conv, [message], { ownOnly: true }))[0];
    },
  }),
  route({
    method: 'patch', path: `${ONE}/messages/{id}`, operationId: 'updatePublicMessage', summary: 'Answer a form or survey message', tags, security: [],
    params: { ...conversation, id: pathId('Message') }, body: publicUpdateMessageBody, response: theMessage,
    handler: async ({ params, body, ctx }, deps) => {
      const { scope, value: { message, conversation: conv } } = await mutatePublicConversation(deps, ctx, params, async (tx, c, scope) => {
        const cause: Cause = { ctx: scope.ctx };
        const m = await findMessage(tx, c.account_id, c.id, params.id, { forUpdate: true });
        if (!m || m.private || m.message_type === 2) throw new NotFoundError('Message', 'id');
        if (m.content_type === 'input_csat' && Date.now() - m.created_at.getTime() > CSAT_EDIT_WINDOW_MS) {
          throw ValidationError.field('submitted_values', 'cannot be changed on a CSAT survey after 14 days', 'expired');
        }
        const updated = await updateMessage(tx, cause, c, m, { content_attributes: { ...m.content_attributes, submitted_values: body.submitted_values } });
        return { message: updated, conversation: c };
      });
      return (await presentPublicMessages(deps.pool, deps.projections, scope, conv, [message]))[0];
    },
  }),
  route({
    method: 'get', path: `${ONE}/messages/{message_id}/attachments/{id}`, operationId: 'downloadPublicAttachment', summary: 'Download an attachment', tags, security: [],
    params: { ...conversation, message_id: pathId('Message'), id: pathId('Attachment') }, response: { description: attachmentDescription },
    handler: async ({ params, ctx, res }, deps) => {
      const { conversation: conv } = await publicConversation(deps, ctx, params);
      const m = await findMessage(deps.pool, conv.account_id, conv.id, params.message_id);
      const blob = m && !m.private ? await findAttachmentBlob(deps.pool, conv.account_id, m.id, params.id) : null;
      if (!blob) throw new NotFoundError('Attachment', 'id');
      sendBlob(res, blob);
    },
  }),
];
