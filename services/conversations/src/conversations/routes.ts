import { Router, type RequestHandler } from 'express';
import { accountIdOf, idParam, parseBody, parseQuery, unixSeconds, withTransaction } from '@parley/shared';
import { conversationSnapshot } from '../common/snapshots';
import { emit } from './changes';
import type { AppDeps } from '../deps';
import { multipartBody, uploadedFiles } from '../messages/uploads';
import { presentConversation, presentConversations } from './presenter';
import {
  assignmentBody, conversationsMetaQuery, createConversationBody, customAttributesBody, labelsBody, listConversationsQuery, toggleStatusBody,
  togglePriorityBody, toggleTypingStatusBody, updateConversationBody,
} from './schemas';
import * as service from './service';

/** `/conversations` below `/api/v1/accounts/:account_id` (and a contact's conversations). */
export function conversationsRouter(deps: AppDeps): Router {
  const { pool, projections } = deps;
  const router = Router({ mergeParams: true });
  const convId = (req: Parameters<RequestHandler>[0]) => idParam(req, 'conversation_id', 'Conversation');
  const show = async (req: Parameters<RequestHandler>[0], row: Parameters<typeof presentConversation>[3]) => presentConversation(pool, projections, req.ctx, row);

  router.get('/conversations', async (req, res) => {
    const accountId = accountIdOf(req);
    const q = parseQuery(listConversationsQuery, req.query);
    const { meta, rows } = await service.listPage(deps, req.ctx, accountId, q);
    res.json({ data: { meta, payload: await presentConversations(pool, projections, req.ctx, accountId, rows) } });
  });

  router.get('/conversations/meta', async (req, res) => {
    const q = parseQuery(conversationsMetaQuery, req.query);
    res.json({ meta: await service.counts(deps, req.ctx, accountIdOf(req), q) });
  });

  router.post('/conversations', multipartBody(deps.config), async (req, res) => {
    const input = parseBody(createConversationBody, req.body);
    const row = await service.createConversation(deps, req.ctx, accountIdOf(req), input, uploadedFiles(req));
    res.json(await show(req, row));
  });

  router.get('/conversations/:conversation_id', async (req, res) => {
    res.json(await show(req, await service.loadConversation(pool, req.ctx, accountIdOf(req), convId(req))));
  });

  const update: RequestHandler = async (req, res) => {
    const input = parseBody(updateConversationBody, req.body);
    const accountId = accountIdOf(req);
    const row =
      input.priority !== undefined
        ? await service.setPriority(deps, { ctx: req.ctx }, accountId, convId(req), input.priority)
        : await service.loadConversation(pool, req.ctx, accountId, convId(req));
    res.json(await show(req, row));
  };
  router.patch('/conversations/:conversation_id', update);
  router.put('/conversations/:conversation_id', update);

  router.delete('/conversations/:conversation_id', async (req, res) => {
    await service.deleteConversation(deps, req.ctx, accountIdOf(req), convId(req));
    res.json({});
  });

  router.post('/conversations/:conversation_id/toggle_status', async (req, res) => {
    const input = parseBody(toggleStatusBody, req.body);
    const row = await service.toggleStatus(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), input);
    res.json({
      meta: {},
      payload: { success: true, conversation_id: row.display_id, current_status: row.status, snoozed_until: row.snoozed_until ? unixSeconds(row.snoozed_until) : null },
    });
  });

  // Typing changes nothing stored; the event is what carries it (to the realtime channel and webhooks).
  router.post('/conversations/:conversation_id/toggle_typing_status', async (req, res) => {
    const input = parseBody(toggleTypingStatusBody, req.body);
    const accountId = accountIdOf(req);
    await withTransaction(pool, async (tx) => {
      const c = await service.loadConversation(tx, req.ctx, accountId, convId(req));
      await emit(tx, { ctx: req.ctx }, input.typing_status === 'on' ? 'conversation.typing_on' : 'conversation.typing_off', accountId, { ...conversationSnapshot(c), is_private: input.is_private });
    });
    res.json({});
  });

  router.post('/conversations/:conversation_id/toggle_priority', async (req, res) => {
    const input = parseBody(togglePriorityBody, req.body);
    await service.setPriority(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), input.priority);
    res.json({});
  });

  router.post('/conversations/:conversation_id/assignments', async (req, res) => {
    const input = parseBody(assignmentBody, req.body);
    const { answer } = await service.assign(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), input);
    res.json(answer);
  });

  router.post('/conversations/:conversation_id/custom_attributes', async (req, res) => {
    const input = parseBody(customAttributesBody, req.body);
    const row = await service.setCustomAttributes(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), input.custom_attributes);
    res.json({ custom_attributes: row.custom_attributes });
  });

  router.get('/conversations/:conversation_id/labels', async (req, res) => {
    const row = await service.loadConversation(pool, req.ctx, accountIdOf(req), convId(req));
    res.json({ payload: row.labels });
  });

  router.post('/conversations/:conversation_id/labels', async (req, res) => {
    const input = parseBody(labelsBody, req.body);
    const row = await service.setLabels(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), input.labels ?? []);
    res.json({ payload: row.labels });
  });

  router.post('/conversations/:conversation_id/mute', async (req, res) => {
    await service.setMuted(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), true);
    res.json({});
  });

  router.post('/conversations/:conversation_id/unmute', async (req, res) => {
    await service.setMuted(deps, { ctx: req.ctx }, accountIdOf(req), convId(req), false);
    res.json({});
  });

  router.post('/conversations/:conversation_id/update_last_seen', async (req, res) => {
    res.json(await show(req, await service.markSeen(deps, req.ctx, accountIdOf(req), convId(req), 'now')));
  });

  router.post('/conversations/:conversation_id/unread', async (req, res) => {
    res.json(await show(req, await service.markSeen(deps, req.ctx, accountIdOf(req), convId(req), 'before_last_incoming')));
  });

  router.get('/contacts/:contact_id/conversations', async (req, res) => {
    const accountId = accountIdOf(req);
    const rows = await service.contactConversations(deps, req.ctx, accountId, idParam(req, 'contact_id', 'Contact'));
    res.json({ payload: await presentConversations(pool, projections, req.ctx, accountId, rows) });
  });

  return router;
}
