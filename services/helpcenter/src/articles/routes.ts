import { Router, type RequestHandler } from 'express';
import { idParam, parseBody, parseQuery, requireRole, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { unwrap } from '../common/validation';
import { portalOf } from '../portals/middleware';
import type { Article } from './present';
import { createArticleBody, listArticlesQuery, reorderBody, updateArticleBody } from './schemas';
import * as service from './service';

const adminOnly = requireRole('administrator');

/**
 * SPEC answers the Article record itself; Chatwoot wraps it as `{payload: {...}}`. The record
 * is at the top level and the same object is repeated under `payload`, so both kinds of
 * clients read the answer unchanged.
 */
function single(article: Article) {
  return { ...article, payload: article };
}

/** `/portals/:portal_slug/articles` (the portal is already loaded). */
export function articlesRouter(deps: ServiceDeps<HelpcenterConfig>): Router {
  const router = Router({ mergeParams: true });

  router.get('/', async (req, res) => {
    const q = parseQuery(listArticlesQuery, req.query);
    res.json(await service.listArticles(deps.pool, req.ctx, portalOf(res), q));
  });

  router.post('/', adminOnly, async (req, res) => {
    const input = parseBody(createArticleBody, unwrap(req.body, 'article'));
    res.json(single(await service.createArticle(deps, req.ctx, portalOf(res), input)));
  });

  router.post('/reorder', adminOnly, async (req, res) => {
    const input = parseBody(reorderBody, req.body);
    await service.reorderArticles(deps.pool, req.ctx, portalOf(res), input.positions_hash);
    res.json({});
  });

  router.get('/:id', async (req, res) => {
    res.json(single(await service.showArticle(deps.pool, portalOf(res), idParam(req, 'id', 'Article'))));
  });

  const update: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'Article');
    const input = parseBody(updateArticleBody, unwrap(req.body, 'article'));
    res.json(single(await service.updateArticle(deps, req.ctx, portalOf(res), id, input)));
  };
  router.patch('/:id', adminOnly, update);
  router.put('/:id', adminOnly, update);

  router.delete('/:id', adminOnly, async (req, res) => {
    await service.deleteArticle(deps.pool, req.ctx, portalOf(res), idParam(req, 'id', 'Article'));
    res.json({});
  });

  return router;
}
