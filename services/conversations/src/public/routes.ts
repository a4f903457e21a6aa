import { Router, type Request } from 'express';
import { NotFoundError, ValidationError, idParam, parseBody, parseQuery, withTransaction } from '@parley/shared';
import type { AppDeps } from '../deps';
import type { ConversationRow } from '../common/rows';
import { conversationSnapshot } from '../common/snapshots';
import { changeConversation, emit, type Cause } from '../conversations/changes';
import { openConversation } from '../conversations/service';
import { publicInboxData } from '../inboxes/present';
import { findAttachmentBlob, findMessage, listMessages } from '../messages/repository';
import { sendBlob } from '../messages/routes';
import { publicCreateMessageBody, publicListMessagesQuery, publicUpdateMessageBody } from '../messages/schemas';
import { assertHasContent, createMessage, markReadByContact, updateMessage } from '../messages/service';
import { multipartBody, uploadedFiles } from '../messages/uploads';
import { presentPublicConversations, presentPublicMessages } from './present';
import { publicCreateConversationBody, toggleTypingBody } from './schemas';
import { inboxByIdentifier, resolveScope, scopedConversation, scopedConversations, type PublicScope } from './service';

const CSAT_EDIT_WINDOW_MS = 14 * 24 * 3600 * 1000;

function capitalise(name: string | null | undefined): string {
  const n = (name ?? '').trim();
  return n ? n[0]!.toUpperCase() + n.slice(1) : 'Contact';
}

/**
 * `/public/api/v1/inboxes/...`: the client API of an API inbox's end users. No credential: the
 * inbox identifier and the contact inbox's source id are the keys, and anything they do not
 * reach is 404.
 */
export function publicRouter(deps: AppDeps): Router {
  const { pool, projections } = deps;
  const router = Router();
  const param = (req: Request, name: string): string | undefined => (typeof req.params[name] === 'string' ? (req.params[name] as string) : undefined);
  const scopeOf = (req: Request): Promise<PublicScope> => resolveScope(deps, req.ctx, param(req, 'inbox_identifier'), param(req, 'contact_identifier'));
  const convId = (req: Request) => idParam(req, 'conversation_id', 'Conversation');
  const present = async (scope: PublicScope, conv: Parameters<typeof presentPublicConversations>[3][number]) =>
    (await presentPublicConversations(pool, projections, scope, [conv]))[0];
  const conversations = '/:inbox_identifier/contacts/:contact_identifier/conversations';
  const one = `${conversations}/:conversation_id`;

  router.get('/:inbox_identifier', async (req, res) => {
    res.json(publicInboxData(await inboxByIdentifier(pool, param(req, 'inbox_identifier'))));
  });

  router.get(conversations, async (req, res) => {
    const scope = await scopeOf(req);
    res.json(await presentPublicConversations(pool, projections, scope, await scopedConversations(pool, scope)));
  });

  router.post(conversations, async (req, res) => {
    const body = parseBody(publicCreateConversationBody, req.body);
    const scope = await scopeOf(req);
    const conv = await openConversation(pool, { ctx: scope.ctx }, scope.inbox, { contact: scope.contact, contact_inbox: scope.contactInbox }, {
      status: 'open',
      snoozedUntil: null,
      assigneeId: null,
      teamId: null,
      additionalAttributes: {},
      customAttributes: body.custom_attributes ?? {},
      message: null,
    });
    res.json(await present(scope, conv));
  });

  router.get(one, async (req, res) => {
    const scope = await scopeOf(req);
    res.json(await present(scope, await scopedConversation(pool, scope, convId(req))));
  });

  router.post(`${one}/toggle_status`, async (req, res) => {
    const scope = await scopeOf(req);
    const cause: Cause = { ctx: scope.ctx };
    // Chatwoot: a contact can only resolve; an already resolved conversation stays as it is.
    const conv = await withTransaction(pool, async (tx) => {
      const c = await scopedConversation(tx, scope, convId(req), { forUpdate: true });
      if (c.status === 'resolved') return c;
      return changeConversation(tx, cause, c, { status: 'resolved' }, { statusActivity: `Conversation was resolved by ${capitalise(scope.contact.name)}` });
    });
    res.json(await present(scope, conv));
  });

  router.post(`${one}/toggle_typing`, async (req, res) => {
    const body = parseBody(toggleTypingBody, req.body);
    const scope = await scopeOf(req);
    await withTransaction(pool, async (tx) => {
      const c = await scopedConversation(tx, scope, convId(req));
      await emit(tx, { ctx: scope.ctx }, body.typing_status === 'on' ? 'conversation.typing_on' : 'conversation.typing_off', c.account_id, { ...conversationSnapshot(c), is_private: false });
    });
    res.json({});
  });

  router.post(`${one}/update_last_seen`, async (req, res) => {
    const scope = await scopeOf(req);
    await withTransaction(pool, async (tx) => {
      const c = await scopedConversation(tx, scope, convId(req), { forUpdate: true });
      const { rows } = await tx.query<ConversationRow>('UPDATE conversations SET contact_last_seen_at = now() WHERE id = $1 RETURNING *', [c.id]);
      const seen = rows[0] as ConversationRow;
      await emit(tx, { ctx: scope.ctx }, 'conversation.read', c.account_id, conversationSnapshot(seen));
      await markReadByContact(tx, { ctx: scope.ctx }, seen);
    });
    res.json({});
  });

  router.get(`${one}/messages`, async (req, res) => {
    const q = parseQuery(publicListMessagesQuery, req.query);
    const scope = await scopeOf(req);
    const conv = await scopedConversation(pool, scope, convId(req));
    const rows = await listMessages(pool, conv.account_id, conv.id, { before: q.before, after: q.after, publicOnly: true });
    res.json(await presentPublicMessages(pool, projections, scope, conv, rows));
  });

  router.post(`${one}/messages`, multipartBody(deps.config), async (req, res) => {
    const body = parseBody(publicCreateMessageBody, req.body);
    const files = uploadedFiles(req);
    assertHasContent(body.content, files, 'text');
    const scope = await scopeOf(req);
    const cause: Cause = { ctx: scope.ctx };
    const { message, conversation } = await withTransaction(pool, async (tx) => {
      const c = await scopedConversation(tx, scope, convId(req), { forUpdate: true });
      return createMessage(tx, cause, c, {
        message_type: 0,
        content: body.content ?? null,
        content_type: 'text',
        content_attributes: {},
        private: false,
        source_id: null,
        sender_type: 'Contact',
        sender_id: scope.contact.id,
        files,
      });
    });
    res.json((await presentPublicMessages(pool, projections, scope, conversation, [message]))[0]);
  });

  router.patch(`${one}/messages/:id`, async (req, res) => {
    const body = parseBody(publicUpdateMessageBody, req.body);
    const scope = await scopeOf(req);
    const cause: Cause = { ctx: scope.ctx };
    const { message, conversation } = await withTransaction(pool, async (tx) => {
      const c = await scopedConversation(tx, scope, convId(req), { forUpdate: true });
      const m = await findMessage(tx, c.account_id, c.id, idParam(req, 'id', 'Message'), { forUpdate: true });
      if (!m || m.private || m.message_type === 2) throw new NotFoundError('Message', 'id');
      if (m.content_type === 'input_csat' && Date.now() - m.created_at.getTime() > CSAT_EDIT_WINDOW_MS) {
        throw ValidationError.field('submitted_values', 'cannot be changed on a CSAT survey after 14 days', 'expired');
      }
      const updated = await updateMessage(tx, cause, c, m, { content_attributes: { ...m.content_attributes, submitted_values: body.submitted_values } });
      return { message: updated, conversation: c };
    });
    res.json((await presentPublicMessages(pool, projections, scope, conversation, [message]))[0]);
  });

  router.get(`${one}/messages/:message_id/attachments/:id`, async (req, res) => {
    const scope = await scopeOf(req);
    const conv = await scopedConversation(pool, scope, convId(req));
    const m = await findMessage(pool, conv.account_id, conv.id, idParam(req, 'message_id', 'Message'));
    const blob = m && !m.private ? await findAttachmentBlob(pool, conv.account_id, m.id, idParam(req, 'id', 'Attachment')) : null;
    if (!blob) throw new NotFoundError('Attachment', 'id');
    sendBlob(res, blob);
  });

  return router;
}
