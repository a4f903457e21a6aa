import { Router, type Request } from 'express';
import { NotFoundError, ValidationError, accountIdOf, idParam, parseBody, parseQuery } from '@parley/shared';
import type { AppDeps } from '../deps';
import { agentPartial } from '../common/agents';
import { contactPartial, loadRefs, messageData, presentMessages } from '../conversations/presenter';
import { loadConversation, mutateConversation } from '../conversations/service';
import { findAttachmentBlob, findMessage, listMessages } from './repository';
import { createMessageBody, listMessagesQuery, updateMessageBody } from './schemas';
import { assertHasContent, createMessage, senderFor, softDeleteMessage, updateMessage, type MessagePatch } from './service';
import { multipartBody, uploadedFiles } from './uploads';

/** `/conversations/:conversation_id/messages` below `/api/v1/accounts/:account_id`. */
export function messagesRouter(deps: AppDeps): Router {
  const { pool, projections } = deps;
  const router = Router({ mergeParams: true });
  const convId = (req: Request) => idParam(req, 'conversation_id', 'Conversation');
  const base = '/conversations/:conversation_id/messages';

  router.get(base, async (req, res) => {
    const accountId = accountIdOf(req);
    const q = parseQuery(listMessagesQuery, req.query);
    const conv = await loadConversation(pool, req.ctx, accountId, convId(req));
    const rows = await listMessages(pool, accountId, conv.id, { before: q.before, after: q.after });
    const refs = await loadRefs(pool, projections, req.ctx, accountId, [conv], rows);
    const meta: Record<string, unknown> = {
      labels: conv.labels,
      additional_attributes: conv.additional_attributes,
      contact: contactPartial(conv.contact_id === null ? undefined : refs.contacts.get(conv.contact_id), conv.contact_id),
      agent_last_seen_at: conv.agent_last_seen_at ? Math.floor(conv.agent_last_seen_at.getTime() / 1000) : 0,
      assignee_last_seen_at: conv.assignee_last_seen_at ? Math.floor(conv.assignee_last_seen_at.getTime() / 1000) : 0,
    };
    if (conv.assignee_id !== null) meta['assignee'] = agentPartial(refs.agents.get(conv.assignee_id), conv.assignee_id);
    res.json({ meta, payload: rows.map((m) => messageData(m, conv, refs)) });
  });

  router.post(base, multipartBody(deps.config), async (req, res) => {
    const accountId = accountIdOf(req);
    const input = parseBody(createMessageBody, req.body);
    const files = uploadedFiles(req);
    const type = input.message_type ?? 1;
    const contentType = input.content_type ?? 'text';
    assertHasContent(input.content, files, contentType);
    const cause = { ctx: req.ctx };
    const { message, conversation } = await mutateConversation(pool, cause, accountId, convId(req), (tx, conv) =>
      createMessage(tx, cause, conv, {
        message_type: type,
        content: input.content ?? null,
        content_type: contentType,
        content_attributes: input.content_attributes ?? {},
        private: input.private ?? false,
        source_id: input.source_id ?? null,
        ...senderFor(req.ctx, conv, type),
        files,
      }),
    );
    const refs = await loadRefs(pool, projections, req.ctx, accountId, [], [message]);
    res.json(messageData(message, conversation, refs, 0, input.echo_id));
  });

  router.patch(`${base}/:id`, async (req, res) => {
    const accountId = accountIdOf(req);
    const input = parseBody(updateMessageBody, req.body);
    const id = idParam(req, 'id', 'Message');
    const cause = { ctx: req.ctx };
    const { message, conversation } = await mutateConversation(pool, cause, accountId, convId(req), async (tx, conv) => {
      const m = await findMessage(tx, accountId, conv.id, id, { forUpdate: true });
      if (!m) throw new NotFoundError('Message', 'id');
      if (m.deleted) throw ValidationError.field('id', 'is a deleted message', 'deleted');
      const patch: MessagePatch = {};
      if (input.content !== undefined) patch.content = input.content;
      if (input.content_attributes !== undefined) patch.content_attributes = { ...m.content_attributes, ...input.content_attributes };
      if (input.status !== undefined) patch.status = input.status;
      return { message: await updateMessage(tx, cause, conv, m, patch), conversation: conv };
    });
    res.json((await presentMessages(pool, projections, req.ctx, conversation, [message]))[0]);
  });

  router.delete(`${base}/:id`, async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Message');
    const cause = { ctx: req.ctx };
    const { message, conversation } = await mutateConversation(pool, cause, accountId, convId(req), async (tx, conv) => {
      const m = await findMessage(tx, accountId, conv.id, id, { forUpdate: true });
      if (!m) throw new NotFoundError('Message', 'id');
      return { message: m.deleted ? m : await softDeleteMessage(tx, cause, conv, m), conversation: conv };
    });
    res.json((await presentMessages(pool, projections, req.ctx, conversation, [message]))[0]);
  });

  router.get(`${base}/:message_id/attachments/:id`, async (req, res) => {
    const accountId = accountIdOf(req);
    const conv = await loadConversation(pool, req.ctx, accountId, convId(req));
    const m = await findMessage(pool, accountId, conv.id, idParam(req, 'message_id', 'Message'));
    const blob = m ? await findAttachmentBlob(pool, accountId, m.id, idParam(req, 'id', 'Attachment')) : null;
    if (!blob) throw new NotFoundError('Attachment', 'id');
    sendBlob(res, blob);
  });

  return router;
}

/** Attachment bytes, never rendered inline as active content. */
export function sendBlob(res: import('express').Response, blob: { content_type: string; file_name: string | null; data: Buffer }): void {
  res.setHeader('content-type', blob.content_type);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('content-disposition', `attachment; filename="${(blob.file_name ?? 'file').replace(/[^A-Za-z0-9._-]/g, '_')}"`);
  res.send(blob.data);
}
