import { Router, type RequestHandler } from 'express';
import { NotFoundError, accountIdOf, diff, idParam, parseBody, unwrap, requireRole, withTransaction, writeEvent } from '@parley/shared';
import type { AppDeps } from '../deps';
import { deleteLabelRow, findLabel, insertLabel, listLabels, renameOnConversations, updateLabelRow, type LabelRow } from './repository';
import { createLabelBody, updateLabelBody, type LabelResponse } from './schemas';

export function labelData(l: LabelRow): LabelResponse {
  return { id: l.id, title: l.title, description: l.description, color: l.color, show_on_sidebar: l.show_on_sidebar };
}

const adminOnly = requireRole('administrator');

/** `/labels`: everyone reads, administrators write (Chatwoot's LabelPolicy). */
export function labelsRouter(deps: AppDeps): Router {
  const { pool } = deps;
  const router = Router({ mergeParams: true });

  router.get('/labels', async (req, res) => {
    res.json({ payload: (await listLabels(pool, accountIdOf(req))).map(labelData) });
  });

  router.get('/labels/:id', async (req, res) => {
    const label = await findLabel(pool, accountIdOf(req), idParam(req, 'id', 'Label'));
    if (!label) throw new NotFoundError('Label', 'id');
    res.json(labelData(label));
  });

  router.post('/labels', adminOnly, async (req, res) => {
    const accountId = accountIdOf(req);
    const input = parseBody(createLabelBody, unwrap(req.body, 'label'));
    const label = await withTransaction(pool, async (tx) => {
      const row = await insertLabel(tx, accountId, input);
      await writeEvent(tx, req.ctx, { type: 'label.created', accountId, data: labelData(row) });
      return row;
    });
    res.json(labelData(label));
  });

  const update: RequestHandler = async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Label');
    const input = parseBody(updateLabelBody, unwrap(req.body, 'label'));
    const label = await withTransaction(pool, async (tx) => {
      const before = await findLabel(tx, accountId, id, { forUpdate: true });
      if (!before) throw new NotFoundError('Label', 'id');
      const after = await updateLabelRow(tx, accountId, id, input);
      if (after.title !== before.title) await renameOnConversations(tx, accountId, before.title, after.title);
      await writeEvent(tx, req.ctx, { type: 'label.updated', accountId, data: labelData(after), changes: diff(labelData(before), labelData(after)) });
      return after;
    });
    res.json(labelData(label));
  };
  router.patch('/labels/:id', adminOnly, update);
  router.put('/labels/:id', adminOnly, update);

  router.delete('/labels/:id', adminOnly, async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Label');
    await withTransaction(pool, async (tx) => {
      const label = await findLabel(tx, accountId, id, { forUpdate: true });
      if (!label) throw new NotFoundError('Label', 'id');
      // Conversations keep the tag (Chatwoot removes only the Label record).
      await deleteLabelRow(tx, accountId, id);
      await writeEvent(tx, req.ctx, { type: 'label.deleted', accountId, data: labelData(label) });
    });
    res.json({});
  });

  return router;
}
