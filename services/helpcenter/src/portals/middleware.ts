import type { RequestHandler, Response } from 'express';
import { accountIdOf, NotFoundError, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { SLUG_RE } from '../common/validation';
import type { PortalRow } from './repository';
import { requirePortal } from './service';

/** The portal named by `:portal_slug` in the caller's account, loaded once for nested routes. */
export function loadPortal(deps: ServiceDeps<HelpcenterConfig>): RequestHandler {
  return async (req, res, next) => {
    const slug = req.params['portal_slug'];
    if (typeof slug !== 'string' || !SLUG_RE.test(slug)) throw new NotFoundError('Portal', 'portal_slug');
    res.locals['portal'] = await requirePortal(deps.pool, accountIdOf(req), slug);
    next();
  };
}

export function portalOf(res: Response): PortalRow {
  return res.locals['portal'] as PortalRow;
}
