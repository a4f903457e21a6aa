import { Router, type RequestHandler } from 'express';
import { idParam, parseBody, parseQuery, requireRole, unwrap, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { portalOf } from '../portals/middleware';
import { createArticleBody, listArticlesQuery, reorderBody, updateArticleBody } from './schemas';
import * as service from './service';

const adminOnly = requireRole('administrator');

/**
 * `/portals/:portal_slug/articles` (the portal is already loaded). A single article is
 * answered as SPEC's Article record itself; Chatwoot wraps it as `{payload: {...}}` (SPEC
 * wins; docs/architecture.md).
 */
export function articlesRouter(deps: ServiceDeps<HelpcenterConfig>): Router {
  const router = Router({ mergeParams: true });

  router.get('/', async (req, res) => {
    const q = parseQuery(listArticlesQuery, req.query);
    res.json(await service.listArticles(deps.pool, req.ctx, portalOf(res), q));
  });

  router.post('/', adminOnly, async (req, res) => {
    const input = parseBody(createArticleBody, unwrap(req.body, 'article'));
    res.json(await service.createArticle(deps, req.ctx, portalOf(res), input));
  });

  router.post('/reorder', adminOnly, async (req, res) => {
    const input = parseBody(reorderBody, req.body);
    await service.reorderArticles(deps.pool, req.ctx, portalOf(res), input.positions_hash);
    res.json({});
  });

  router.get('/:id', async (req, res) => {
    res.json(await service.showArticle(deps.pool, portalOf(res), idParam(req, 'id', 'Article')));
  });

  const update: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'Article');
    const input = parseBody(updateArticleBody, unwrap(req.body, 'article'));
    res.json(await service.updateArticle(deps, req.ctx, portalOf(res), id, input));
  };
  router.patch('/:id', adminOnly, update);
  router.put('/:id', adminOnly, update);

  router.delete('/:id', adminOnly, async (req, res) => {
    await service.deleteArticle(deps.pool, req.ctx, portalOf(res), idParam(req, 'id', 'Article'));
    res.json({});
  });

  return router;
}
