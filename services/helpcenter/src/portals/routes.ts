import { ADMIN, PORTAL, PORTALS, portalSlug, READ_ERRORS, route, user, WRITE_ERRORS } from '../route';
import { loadPortal, portalOf } from './middleware';
import { createPortalBody, emptyResponse, portalListResponse, portalResponse, showPortalQuery, updatePortalBody } from './schemas';
import * as service from './service';

/**
 * Portals by slug (their categories and articles are in their own folders). Administrators
 * write; any member of the account reads (Chatwoot's policies, 403 not 401).
 */
export const portalRoutes = [
  route({
    method: 'get', path: PORTALS, operationId: 'listPortals', summary: 'List the portals of the account', ...user,
    response: { description: 'Every portal of the account, oldest first, with article and category counts', schema: portalListResponse },
    errors: READ_ERRORS,
    handler: async ({ ctx, accountId }, deps) => {
      const payload = await service.listPortals(deps.pool, ctx, accountId);
      return { payload, meta: { current_page: 1, portals_count: payload.length } };
    },
  }),
  route({
    method: 'post', path: PORTALS, operationId: 'createPortal', summary: 'Create a portal', ...user,
    description: `${ADMIN} The slug is unique across all accounts (the public API addresses a portal by slug alone): a taken slug is 409.`,
    role: 'administrator', body: createPortalBody, wrap: 'portal',
    response: { description: 'The new portal', schema: portalResponse }, errors: WRITE_ERRORS,
    requestExample: { name: 'Acme Help', slug: 'acme-help', color: '#1f93ff', header_text: 'How can we help?', config: { allowed_locales: ['en', 'fr'], default_locale: 'en' } },
    handler: async ({ body, ctx, accountId }, deps) => service.createPortal(deps.pool, ctx, accountId, body),
  }),
  route({
    method: 'get', path: PORTAL, operationId: 'getPortal', summary: 'Show a portal', ...user,
    description: 'With `locale`, the article counts in `meta` are of that locale only.',
    use: loadPortal, params: portalSlug, query: showPortalQuery,
    response: { description: 'The portal', schema: portalResponse }, errors: [400, ...READ_ERRORS],
    handler: async ({ query, ctx, accountId, res }, deps) => service.presentWithStats(deps.pool, accountId, portalOf(res), service.callerUserId(ctx), query.locale ?? null),
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: PORTAL, operationId: method === 'patch' ? 'updatePortal' : 'replacePortal', summary: method === 'patch' ? 'Update a portal' : 'Update a portal (same as PATCH)', ...user,
      description: `${ADMIN} Any subset of the create fields; \`config\` is merged over the stored one.`,
      use: loadPortal, role: 'administrator', params: portalSlug, body: updatePortalBody, wrap: 'portal',
      response: { description: 'The updated portal', schema: portalResponse }, errors: WRITE_ERRORS,
      handler: async ({ body, ctx, accountId, res }, deps) => service.updatePortal(deps.pool, ctx, accountId, portalOf(res).slug, body),
    }),
  ),
  route({
    method: 'delete', path: PORTAL, operationId: 'deletePortal', summary: 'Delete a portal with its categories and articles', ...user,
    description: ADMIN,
    use: loadPortal, role: 'administrator', params: portalSlug,
    response: { description: 'Deleted', schema: emptyResponse }, errors: READ_ERRORS,
    handler: async ({ ctx, accountId, res }, deps) => {
      await service.deletePortal(deps.pool, ctx, accountId, portalOf(res).slug);
      return {};
    },
  }),
];
