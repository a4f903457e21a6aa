import { Router, type RequestHandler } from 'express';
import { NotFoundError, accountIdOf, idParam, parseBody, parseQuery, requireRole, unwrap } from '@parley/shared';
import type { AppDeps } from '../deps';
import { findCustomAttribute, listCustomAttributes } from './repository';
import { createCustomAttributeBody, listCustomAttributesQuery, updateCustomAttributeBody } from './schemas';
import { createCustomAttribute, customAttributeData, deleteCustomAttribute, updateCustomAttribute } from './service';

const adminOnly = requireRole('administrator');
const WRAPPER = 'custom_attribute_definition';

/** `/custom_attribute_definitions`: every member reads, administrators write (Chatwoot's policy). */
export function customAttributesRouter(deps: AppDeps): Router {
  const { pool } = deps;
  const router = Router({ mergeParams: true });
  const base = '/custom_attribute_definitions';
  const idOf = (req: Parameters<RequestHandler>[0]) => idParam(req, 'id', 'Custom attribute definition');

  router.get(base, async (req, res) => {
    const q = parseQuery(listCustomAttributesQuery, req.query);
    res.json((await listCustomAttributes(pool, accountIdOf(req), q.attribute_model ?? q.filter_type)).map(customAttributeData));
  });

  router.get(`${base}/:id`, async (req, res) => {
    const row = await findCustomAttribute(pool, accountIdOf(req), idOf(req));
    if (!row) throw new NotFoundError('Custom attribute definition', 'id');
    res.json(customAttributeData(row));
  });

  router.post(base, adminOnly, async (req, res) => {
    const input = parseBody(createCustomAttributeBody, unwrap(req.body, WRAPPER));
    res.json(customAttributeData(await createCustomAttribute(pool, req.ctx, accountIdOf(req), input)));
  });

  const update: RequestHandler = async (req, res) => {
    const input = parseBody(updateCustomAttributeBody, unwrap(req.body, WRAPPER));
    res.json(customAttributeData(await updateCustomAttribute(pool, req.ctx, accountIdOf(req), idOf(req), input)));
  };
  router.patch(`${base}/:id`, adminOnly, update);
  router.put(`${base}/:id`, adminOnly, update);

  router.delete(`${base}/:id`, adminOnly, async (req, res) => {
    await deleteCustomAttribute(pool, req.ctx, accountIdOf(req), idOf(req));
    res.json({});
  });

  return router;
}
