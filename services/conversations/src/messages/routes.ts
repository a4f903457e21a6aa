import type { Response } from 'express';
import { NotFoundError, ValidationError, pathId, routeKit, type SecurityScheme } from '@parley/shared';
import type { AppDeps } from '../deps';
import { agentPartial } from '../common/agents';
import { contactPartial, loadRefs, messageData, presentMessages } from '../conversations/presenter';
import { loadConversation, mutateConversation } from '../conversations/service';
import { findAttachmentBlob, findMessage, listMessages } from './repository';
import { createMessageBody, listMessagesQuery, messageListResponse, messageResponse, updateMessageBody } from './schemas';
import { assertHasContent, createMessage, senderFor, softDeleteMessage, updateMessage, type MessagePatch } from './service';
import { multipartBody, uploadedFiles } from './uploads';

const route = routeKit<AppDeps>();
const C = '/api/v1/accounts/{account_id}/conversations/{conversation_id}';
const user: SecurityScheme[] = ['userApiKey'];
const tags = ['Messages'];
const conversation = { conversation_id: pathId('Conversation') };
const message = { ...conversation, id: pathId('Message') };
const theMessage = { description: 'The message', schema: messageResponse };
export const attachmentDescription = 'The file as uploaded (its own media type, sent as a download); not JSON.';

/** `/conversations/{conversation_id}/messages` below an account. */
export const messageRoutes = [
  route({
    method: 'get', path: `${C}/messages`, operationId: 'listMessages', summary: 'List messages',
    description: 'The newest 20, oldest first; `before` gives the 20 before a message id, `after` up to 100 after one.',
    tags, security: user, params: conversation, query: listMessagesQuery, response: { description: 'The messages', schema: messageListResponse },
    handler: async ({ params, query, ctx, accountId }, { pool, projections }) => {
      const conv = await loadConversation(pool, ctx, accountId, params.conversation_id);
      const rows = await listMessages(pool, accountId, conv.id, { before: query.before, after: query.after });
      const refs = await loadRefs(pool, projections, ctx, accountId, [conv], rows);
      const meta: Record<string, unknown> = {
        labels: conv.labels,
        additional_attributes: conv.additional_attributes,
        contact: contactPartial(conv.contact_id === null ? undefined : refs.contacts.get(conv.contact_id), conv.contact_id),
        agent_last_seen_at: conv.agent_last_seen_at ? Math.floor(conv.agent_last_seen_at.getTime() / 1000) : 0,
        assignee_last_seen_at: conv.assignee_last_seen_at ? Math.floor(conv.assignee_last_seen_at.getTime() / 1000) : 0,
      };
      if (conv.assignee_id !== null) meta['assignee'] = agentPartial(refs.agents.get(conv.assignee_id), conv.assignee_id);
      return { meta, payload: rows.map((m) => messageData(m, conv, refs)) };
    },
  }),
  route({
    method: 'post', path: `${C}/messages`, operationId: 'createMessage', summary: 'Create a message',
    description: 'Outgoing from the caller by default; `message_type: "incoming"` is from the contact and reopens a resolved or snoozed conversation. `private: true` is a note. Files come as multipart `attachments[]`.',
    tags, security: ['userApiKey', 'agentBotApiKey'], params: conversation, multipart: (deps) => multipartBody(deps.config), body: createMessageBody,
    response: theMessage, requestExample: { content: 'Hi, how can we help?' },
    handler: async ({ params, body, ctx, accountId, req }, { pool, projections }) => {
      const files = uploadedFiles(req);
      const type = body.message_type ?? 1;
      const contentType = body.content_type ?? 'text';
      assertHasContent(body.content, files, contentType);
      const cause = { ctx };
      const { message: m, conversation: c, copies } = await mutateConversation(pool, cause, accountId, params.conversation_id, (tx, conv) =>
        createMessage(tx, cause, conv, {
          message_type: type,
          content: body.content ?? null,
          content_type: contentType,
          content_attributes: body.content_attributes ?? {},
          private: body.private ?? false,
          source_id: body.source_id ?? null,
          ...senderFor(ctx, conv, type),
          files,
        }, { last: true, senderCopies: true }),
      );
      // The sender's copy came with the insert: only a miss is read through.
      const refs = await loadRefs(pool, projections, ctx, accountId, [], [m], { copies, myTeams: new Set() });
      return messageData(m, c, refs, 0, body.echo_id);
    },
  }),
  route({
    method: 'patch', path: `${C}/messages/{id}`, operationId: 'updateMessage', summary: 'Update a message', tags, security: user,
    params: message, body: updateMessageBody, response: theMessage,
    handler: async ({ params, body, ctx, accountId }, { pool, projections }) => {
      const cause = { ctx };
      const { message: m, conversation: c } = await mutateConversation(pool, cause, accountId, params.conversation_id, async (tx, conv) => {
        const found = await findMessage(tx, accountId, conv.id, params.id, { forUpdate: true });
        if (!found) throw new NotFoundError('Message', 'id');
        if (found.deleted) throw ValidationError.field('id', 'is a deleted message', 'deleted');
        const patch: MessagePatch = {};
        if (body.content !== undefined) patch.content = body.content;
        if (body.content_attributes !== undefined) patch.content_attributes = { ...found.content_attributes, ...body.content_attributes };
        if (body.status !== undefined) patch.status = body.status;
        return { message: await updateMessage(tx, cause, conv, found, patch), conversation: conv };
      });
      return (await presentMessages(pool, projections, ctx, c, [m]))[0];
    },
  }),
  route({
    method: 'delete', path: `${C}/messages/{id}`, operationId: 'deleteMessage', summary: 'Delete a message (softly)', description: 'The text becomes "This message was deleted" and the files go.',
    tags, security: user, params: message, response: { description: 'The message as it is now', schema: messageResponse },
    handler: async ({ params, ctx, accountId }, { pool, projections }) => {
      const cause = { ctx };
      const { message: m, conversation: c } = await mutateConversation(pool, cause, accountId, params.conversation_id, async (tx, conv) => {
        const found = await findMessage(tx, accountId, conv.id, params.id, { forUpdate: true });
        if (!found) throw new NotFoundError('Message', 'id');
        return { message: found.deleted ? found : await softDeleteMessage(tx, cause, conv, found), conversation: conv };
      });
      return (await presentMessages(pool, projections, ctx, c, [m]))[0];
    },
  }),
  route({
    method: 'get', path: `${C}/messages/{message_id}/attachments/{id}`, operationId: 'downloadAttachment', summary: 'Download an attachment', tags, security: user,
    params: { ...conversation, message_id: pathId('Message'), id: pathId('Attachment') }, response: { description: attachmentDescription },
    handler: async ({ params, ctx, accountId, res }, { pool }) => {
      const conv = await loadConversation(pool, ctx, accountId, params.conversation_id);
      const m = await findMessage(pool, accountId, conv.id, params.message_id);
      const blob = m ? await findAttachmentBlob(pool, accountId, m.id, params.id) : null;
      if (!blob) throw new NotFoundError('Attachment', 'id');
      sendBlob(res, blob);
    },
  }),
];

/** Attachment bytes, never rendered inline as active content. */
export function sendBlob(res: Response, blob: { content_type: string; file_name: string | null; data: Buffer }): void {
  res.setHeader('content-type', blob.content_type);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('content-disposition', `attachment; filename="${(blob.file_name ?? 'file').replace(/[^A-Za-z0-9._-]/g, '_')}"`);
  res.send(blob.data);
}
