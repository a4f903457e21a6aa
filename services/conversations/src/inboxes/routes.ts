import { Router, type RequestHandler } from 'express';
import { accountIdOf, idParam, parseBody, requireRole } from '@parley/shared';
import type { AppDeps } from '../deps';
import { inboxData } from './present';
import { createInboxBody, inboxMembersBody, updateInboxBody } from './schemas';
import * as service from './service';

const adminOnly = requireRole('administrator');

/** `/inboxes` and `/inbox_members` below `/api/v1/accounts/:account_id`. */
export function inboxesRouter(deps: AppDeps): Router {
  const { pool } = deps;
  const router = Router({ mergeParams: true });

  router.get('/inboxes', async (req, res) => {
    const rows = await service.listVisibleInboxes(pool, req.ctx, accountIdOf(req));
    res.json({ payload: rows.map((r) => inboxData(r, req.ctx)) });
  });

  router.get('/inboxes/:id', async (req, res) => {
    const inbox = await service.loadVisibleInbox(pool, req.ctx, accountIdOf(req), idParam(req, 'id', 'Inbox'));
    res.json(inboxData(inbox, req.ctx));
  });

  router.post('/inboxes', adminOnly, async (req, res) => {
    const body = parseBody(createInboxBody, req.body);
    const inbox = await service.createInbox(deps, req.ctx, accountIdOf(req), body);
    res.json(inboxData(inbox, req.ctx));
  });

  const update: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'Inbox');
    const body = parseBody(updateInboxBody, req.body);
    const inbox = await service.updateInbox(deps, req.ctx, accountIdOf(req), id, body);
    res.json(inboxData(inbox, req.ctx));
  };
  router.patch('/inboxes/:id', adminOnly, update);
  router.put('/inboxes/:id', adminOnly, update);

  router.delete('/inboxes/:id', adminOnly, async (req, res) => {
    await service.deleteInbox(deps, req.ctx, accountIdOf(req), idParam(req, 'id', 'Inbox'));
    res.json({});
  });

  router.get('/inbox_members/:inbox_id', async (req, res) => {
    const accountId = accountIdOf(req);
    const inbox = await service.loadVisibleInbox(pool, req.ctx, accountId, idParam(req, 'inbox_id', 'Inbox'), 'inbox_id');
    res.json({ payload: await service.inboxMembers(deps, req.ctx, accountId, inbox.id) });
  });

  const members = (mode: 'add' | 'replace' | 'remove'): RequestHandler => async (req, res) => {
    const body = parseBody(inboxMembersBody, req.body);
    res.json({ payload: await service.changeInboxMembers(deps, req.ctx, accountIdOf(req), mode, body.inbox_id, body.user_ids) });
  };
  router.post('/inbox_members', adminOnly, members('add'));
  router.patch('/inbox_members', adminOnly, members('replace'));
  router.put('/inbox_members', adminOnly, members('replace'));
  router.delete('/inbox_members', adminOnly, members('remove'));

  return router;
}
