import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import { NotFoundError, pathParam, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { localeSchema, pageQuery, SLUG_RE } from '../common/validation';
import { findLivePortalBySlug, localeCountsByPortal, type PortalRow } from '../portals/repository';
import { presentPublicPortal } from '../portals/present';
import { publicPortalResponse } from '../portals/schemas';
import { articleCounts, countCategories, listCategories } from '../categories/repository';
import { presentPublicCategory } from '../categories/present';
import { publicCategoryListResponse } from '../categories/schemas';
import { countPublished, listPublished, viewPublished, type PublicFilter } from '../articles/repository';
import { presentPublicArticles } from '../articles/present';
import { publicArticleListResponse, publicArticleResponse, publicListQuery } from '../articles/schemas';
import { anonymous, portalSlug, PUBLIC, route } from '../route';
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

const article = { ...portalSlug, article_slug: pathParam('Article', z.string().describe('The article slug')) };

/**
 * `/public/api/v1/portals/...`: no token. Only live (not archived) portals and published
 * articles exist here; anything else is a 404, never a hint that a draft exists.
 */
export const publicRoutes = [
  route({
    method: 'get', path: PUBLIC, operationId: 'getPublicPortal', summary: 'Show a portal to readers', ...anonymous,
    description: 'No credential. Archived portals are 404; counts are of published articles.',
    use: livePortal, params: portalSlug,
    response: { description: 'The portal', schema: publicPortalResponse }, errors: [404],
    handler: async ({ res }, deps) => {
      const p = portalOf(res);
      const locales = await localeCountsByPortal(deps.pool, [p.id], true);
      return presentPublicPortal(p, locales.get(p.id) ?? new Map());
    },
  }),
  route({
    method: 'get', path: `${PUBLIC}/categories`, operationId: 'listPublicCategories', summary: "List a portal's categories to readers", ...anonymous,
    description: 'No credential. By position, 25 a page; `meta.articles_count` counts published articles.',
    use: livePortal, params: portalSlug, query: publicCategoriesQuery,
    response: { description: 'One page of categories', schema: publicCategoryListResponse }, errors: [400, 404],
    handler: async ({ query: q, res }, deps) => {
      const p = portalOf(res);
      const page = q.page ?? 1;
      const [rows, count] = await Promise.all([
        listCategories(deps.pool, p.account_id, p.id, q.locale ?? null, PAGE_SIZE, (page - 1) * PAGE_SIZE),
        countCategories(deps.pool, p.account_id, p.id, q.locale ?? null),
      ]);
      const counts = await articleCounts(deps.pool, rows.map((r) => r.id), true);
      return { payload: rows.map((r) => presentPublicCategory(r, counts.get(r.id) ?? 0)), meta: { categories_count: count, current_page: page } };
    },
  }),
  route({
    method: 'get', path: `${PUBLIC}/articles`, operationId: 'listPublicArticles', summary: "List and search a portal's published articles", ...anonymous,
    description: 'No credential. Published articles only, 25 a page. `query` searches title, description and content (indexed full-text, every word as a prefix, best match first); otherwise by position, or by views with `sort=views`.',
    use: livePortal, params: portalSlug, query: publicListQuery,
    response: { description: 'One page of published articles', schema: publicArticleListResponse }, errors: [400, 404],
    handler: async ({ query: q, res }, deps) => {
      const p = portalOf(res);
      const page = q.page ?? 1;
      const filter: PublicFilter = {
        portalId: p.id,
        locale: q.locale,
        categorySlug: q.category_slug,
        tsquery: q.query !== undefined && q.query.trim() !== '' ? toTsQuery(q.query) : undefined,
      };
      const [rows, count] = await Promise.all([listPublished(deps.pool, filter, q.sort ?? 'position', PAGE_SIZE, (page - 1) * PAGE_SIZE), countPublished(deps.pool, filter)]);
      return { payload: await presentPublicArticles(deps.pool, rows), meta: { articles_count: count, current_page: page } };
    },
  }),
  /** Each read counts one view, atomically (`views = views + 1` in one statement). */
  route({
    method: 'get', path: `${PUBLIC}/articles/{article_slug}`, operationId: 'getPublicArticle', summary: 'Read a published article (counts one view)', ...anonymous,
    description: 'No credential. Drafts and archived articles are 404. Each read adds one to `views`.',
    use: livePortal, params: article,
    response: { description: 'The article, its view already counted', schema: publicArticleResponse }, errors: [404],
    handler: async ({ params, res }, deps) => {
      if (!SLUG_RE.test(params.article_slug)) throw new NotFoundError('Article', 'article_slug');
      const row = await viewPublished(deps.pool, portalOf(res).id, params.article_slug);
      if (!row) throw new NotFoundError('Article', 'article_slug');
      const [found] = await presentPublicArticles(deps.pool, [row]);
      return found;
    },
  }),
];
