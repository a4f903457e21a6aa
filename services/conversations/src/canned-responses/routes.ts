import { Router, type RequestHandler } from 'express';
import { NotFoundError, accountIdOf, diff, idParam, parseBody, parseQuery, unwrap, withTransaction, writeEvent } from '@parley/shared';
import type { AppDeps } from '../deps';
import {
  deleteCannedResponseRow, findCannedResponse, insertCannedResponse, listCannedResponses, updateCannedResponseRow, type CannedResponseRow,
} from './repository';
import { createCannedResponseBody, listCannedResponsesQuery, updateCannedResponseBody, type CannedResponseResponse } from './schemas';

export function cannedResponseData(c: CannedResponseRow): CannedResponseResponse {
  return { id: c.id, account_id: c.account_id, short_code: c.short_code, content: c.content, created_at: c.created_at.toISOString(), updated_at: c.updated_at.toISOString() };
}

/** `/canned_responses`: any member of the account, agents included (Chatwoot has no policy here). */
export function cannedResponsesRouter(deps: AppDeps): Router {
  const { pool } = deps;
  const router = Router({ mergeParams: true });

  router.get('/canned_responses', async (req, res) => {
    const q = parseQuery(listCannedResponsesQuery, req.query);
    res.json((await listCannedResponses(pool, accountIdOf(req), q.search?.trim() || undefined)).map(cannedResponseData));
  });

  router.post('/canned_responses', async (req, res) => {
    const accountId = accountIdOf(req);
    const input = parseBody(createCannedResponseBody, unwrap(req.body, 'canned_response'));
    const row = await withTransaction(pool, async (tx) => {
      const created = await insertCannedResponse(tx, accountId, input);
      await writeEvent(tx, req.ctx, { type: 'canned_response.created', accountId, data: cannedResponseData(created) });
      return created;
    });
    res.json(cannedResponseData(row));
  });

  const update: RequestHandler = async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Canned response');
    const input = parseBody(updateCannedResponseBody, unwrap(req.body, 'canned_response'));
    const row = await withTransaction(pool, async (tx) => {
      const before = await findCannedResponse(tx, accountId, id, { forUpdate: true });
      if (!before) throw new NotFoundError('Canned response', 'id');
      const after = await updateCannedResponseRow(tx, accountId, id, input);
      const a = cannedResponseData(after);
      await writeEvent(tx, req.ctx, { type: 'canned_response.updated', accountId, data: a, changes: diff(cannedResponseData(before), a, ['short_code', 'content']) });
      return after;
    });
    res.json(cannedResponseData(row));
  };
  router.patch('/canned_responses/:id', update);
  router.put('/canned_responses/:id', update);

  router.delete('/canned_responses/:id', async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Canned response');
    await withTransaction(pool, async (tx) => {
      const row = await findCannedResponse(tx, accountId, id, { forUpdate: true });
      if (!row) throw new NotFoundError('Canned response', 'id');
      await deleteCannedResponseRow(tx, accountId, id);
      await writeEvent(tx, req.ctx, { type: 'canned_response.deleted', accountId, data: cannedResponseData(row) });
    });
    res.json({});
  });

  return router;
}
