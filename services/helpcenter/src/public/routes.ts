import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { NotFoundError, parseQuery, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { localeSchema, pageQuery, SLUG_RE } from '../common/validation';
import { findLivePortalBySlug, localeCountsByPortal, type PortalRow } from '../portals/repository';
import { presentPublicPortal } from '../portals/present';
import { articleCounts, countCategories, listCategories } from '../categories/repository';
import { presentPublicCategory } from '../categories/present';
import { countPublished, listPublished, viewPublished, type PublicFilter } from '../articles/repository';
import { presentPublicArticles } from '../articles/present';
import { publicListQuery } from '../articles/schemas';
import { toTsQuery } from '../articles/search';

const PAGE_SIZE = 25;
/** The public category list's query. */
export const publicCategoriesQuery = z.object({ locale: localeSchema.optional(), page: pageQuery });

function livePortal(deps: ServiceDeps<HelpcenterConfig>): RequestHandler {
  return async (req, res, next) => {
    const slug = req.params['portal_slug'];
    if (typeof slug !== 'string' || !SLUG_RE.test(slug)) throw new NotFoundError('Portal', 'portal_slug');
    const portal = await findLivePortalBySlug(deps.pool, slug);
    if (!portal) throw new NotFoundError('Portal', 'portal_slug');
    res.locals['portal'] = portal;
    next();
  };
}

const portalOf = (res: Response) => res.locals['portal'] as PortalRow;

/**
 * `/public/api/v1/portals/...`: no token. Only live (not archived) portals and published
 * articles exist here; anything else is a 404, never a hint that a draft exists.
 */
export function publicRouter(deps: ServiceDeps<HelpcenterConfig>): Router {
  const router = Router({ mergeParams: true });
  const portal = livePortal(deps);

  router.get('/:portal_slug', portal, async (_req, res) => {
    const p = portalOf(res);
    const locales = await localeCountsByPortal(deps.pool, [p.id], true);
    res.json(presentPublicPortal(p, locales.get(p.id) ?? new Map()));
  });

  router.get('/:portal_slug/categories', portal, async (req, res) => {
    const q = parseQuery(publicCategoriesQuery, req.query);
    const p = portalOf(res);
    const page = q.page ?? 1;
    const [rows, count] = await Promise.all([
      listCategories(deps.pool, p.account_id, p.id, q.locale ?? null, PAGE_SIZE, (page - 1) * PAGE_SIZE),
      countCategories(deps.pool, p.account_id, p.id, q.locale ?? null),
    ]);
    const counts = await articleCounts(deps.pool, rows.map((r) => r.id), true);
    res.json({ payload: rows.map((r) => presentPublicCategory(r, counts.get(r.id) ?? 0)), meta: { categories_count: count, current_page: page } });
  });

  router.get('/:portal_slug/articles', portal, async (req, res) => {
    const q = parseQuery(publicListQuery, req.query);
    const p = portalOf(res);
    const page = q.page ?? 1;
    const filter: PublicFilter = {
      portalId: p.id,
      locale: q.locale,
      categorySlug: q.category_slug,
      tsquery: q.query !== undefined && q.query.trim() !== '' ? toTsQuery(q.query) : undefined,
    };
    const [rows, count] = await Promise.all([listPublished(deps.pool, filter, q.sort ?? 'position', PAGE_SIZE, (page - 1) * PAGE_SIZE), countPublished(deps.pool, filter)]);
    res.json({ payload: await presentPublicArticles(deps.pool, rows), meta: { articles_count: count, current_page: page } });
  });

  /** Each read counts one view, atomically (`views = views + 1` in one statement). */
  router.get('/:portal_slug/articles/:article_slug', portal, async (req, res) => {
    const slug = req.params['article_slug'];
    if (typeof slug !== 'string' || !SLUG_RE.test(slug)) throw new NotFoundError('Article', 'article_slug');
    const row = await viewPublished(deps.pool, portalOf(res).id, slug);
    if (!row) throw new NotFoundError('Article', 'article_slug');
    const [article] = await presentPublicArticles(deps.pool, [row]);
    res.json(article);
  });

  return router;
}
