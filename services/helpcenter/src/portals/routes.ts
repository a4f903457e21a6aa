import { Router, type RequestHandler } from 'express';
import { accountIdOf, parseBody, parseQuery, requireRole, unwrap, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { loadPortal, portalOf } from './middleware';
import { categoriesRouter } from '../categories/routes';
import { articlesRouter } from '../articles/routes';
import { createPortalBody, showPortalQuery, updatePortalBody } from './schemas';
import * as service from './service';

/** Administrators write; any member of the account reads (Chatwoot's policies, 403 not 401). */
export const adminOnly: RequestHandler = requireRole('administrator');

/** `/api/v1/accounts/:account_id/portals`: portals by slug, and their categories and articles. */
export function portalsRouter(deps: ServiceDeps<HelpcenterConfig>): Router {
  const router = Router({ mergeParams: true });
  const portal = loadPortal(deps);

  router.get('/', async (req, res) => {
    const payload = await service.listPortals(deps.pool, req.ctx, accountIdOf(req));
    res.json({ payload, meta: { current_page: 1, portals_count: payload.length } });
  });

  router.post('/', adminOnly, async (req, res) => {
    const input = parseBody(createPortalBody, unwrap(req.body, 'portal'));
    res.json(await service.createPortal(deps.pool, req.ctx, accountIdOf(req), input));
  });

  router.get('/:portal_slug', portal, async (req, res) => {
    const q = parseQuery(showPortalQuery, req.query);
    const accountId = accountIdOf(req);
    res.json(await service.presentWithStats(deps.pool, accountId, portalOf(res), service.callerUserId(req.ctx), q.locale ?? null));
  });

  const update: RequestHandler = async (req, res) => {
    const input = parseBody(updatePortalBody, unwrap(req.body, 'portal'));
    res.json(await service.updatePortal(deps.pool, req.ctx, accountIdOf(req), portalOf(res).slug, input));
  };
  router.patch('/:portal_slug', portal, adminOnly, update);
  router.put('/:portal_slug', portal, adminOnly, update);

  router.delete('/:portal_slug', portal, adminOnly, async (req, res) => {
    await service.deletePortal(deps.pool, req.ctx, accountIdOf(req), portalOf(res).slug);
    res.json({});
  });

  router.use('/:portal_slug/categories', portal, categoriesRouter(deps));
  router.use('/:portal_slug/articles', portal, articlesRouter(deps));
  return router;
}
