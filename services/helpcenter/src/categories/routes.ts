import { Router, type RequestHandler } from 'express';
import { idParam, parseBody, parseQuery, requireRole, unwrap, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { portalOf } from '../portals/middleware';
import { createCategoryBody, listCategoriesQuery, updateCategoryBody } from './schemas';
import * as service from './service';

const adminOnly = requireRole('administrator');

/** `/portals/:portal_slug/categories` (the portal is already loaded). Categories are addressed by id, as in Chatwoot. */
export function categoriesRouter(deps: ServiceDeps<HelpcenterConfig>): Router {
  const router = Router({ mergeParams: true });

  router.get('/', async (req, res) => {
    const q = parseQuery(listCategoriesQuery, req.query);
    const page = q.page ?? 1;
    const { payload, count } = await service.listCategories(deps.pool, portalOf(res), q.locale ?? null, page);
    res.json({ payload, meta: { current_page: page, categories_count: count } });
  });

  router.post('/', adminOnly, async (req, res) => {
    const input = parseBody(createCategoryBody, unwrap(req.body, 'category'));
    res.json({ payload: await service.createCategory(deps.pool, req.ctx, portalOf(res), input) });
  });

  router.get('/:id', async (req, res) => {
    res.json({ payload: await service.showCategory(deps.pool, portalOf(res), idParam(req, 'id', 'Category')) });
  });

  const update: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'Category');
    const input = parseBody(updateCategoryBody, unwrap(req.body, 'category'));
    res.json({ payload: await service.updateCategory(deps.pool, req.ctx, portalOf(res), id, input) });
  };
  router.patch('/:id', adminOnly, update);
  router.put('/:id', adminOnly, update);

  router.delete('/:id', adminOnly, async (req, res) => {
    await service.deleteCategory(deps.pool, req.ctx, portalOf(res), idParam(req, 'id', 'Category'));
    res.json({});
  });

  return router;
}
