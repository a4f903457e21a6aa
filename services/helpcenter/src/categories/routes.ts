import { pathId } from '@parley/shared';
import { ADMIN, PORTAL, portalSlug, READ_ERRORS, route, user, WRITE_ERRORS } from '../route';
import { loadPortal, portalOf } from '../portals/middleware';
import { emptyResponse } from '../portals/schemas';
import { categoryListResponse, categoryShowResponse, createCategoryBody, listCategoriesQuery, updateCategoryBody } from './schemas';
import * as service from './service';

const category = { ...portalSlug, id: pathId('Category', 'Category id') };

/** A portal's categories (the portal loaded first). Categories are addressed by id, as in Chatwoot. */
export const categoryRoutes = [
  route({
    method: 'get', path: `${PORTAL}/categories`, operationId: 'listCategories', summary: 'List the categories of a portal', ...user,
    description: 'By position, 25 a page; `locale` narrows to one locale.',
    use: loadPortal, params: portalSlug, query: listCategoriesQuery,
    response: { description: 'One page of categories', schema: categoryListResponse }, errors: [400, ...READ_ERRORS],
    handler: async ({ query, res }, deps) => {
      const page = query.page ?? 1;
      const { payload, count } = await service.listCategories(deps.pool, portalOf(res), query.locale ?? null, page);
      return { payload, meta: { current_page: page, categories_count: count } };
    },
  }),
  route({
    method: 'post', path: `${PORTAL}/categories`, operationId: 'createCategory', summary: 'Create a category in a portal', ...user,
    description: `${ADMIN} The locale defaults to the portal's default and must be one of its allowed locales; the slug (generated from the name when absent) is unique per portal and locale; the position defaults to the end of the locale's list.`,
    use: loadPortal, role: 'administrator', params: portalSlug, body: createCategoryBody, wrap: 'category',
    response: { description: 'The new category', schema: categoryShowResponse }, errors: WRITE_ERRORS,
    requestExample: { name: 'Billing', slug: 'billing', locale: 'en', description: 'Invoices and payments', position: 10 },
    handler: async ({ body, ctx, res }, deps) => ({ payload: await service.createCategory(deps.pool, ctx, portalOf(res), body) }),
  }),
  route({
    method: 'get', path: `${PORTAL}/categories/{id}`, operationId: 'getCategory', summary: 'Show a category', ...user,
    use: loadPortal, params: category,
    response: { description: 'The category', schema: categoryShowResponse }, errors: READ_ERRORS,
    handler: async ({ params, res }, deps) => ({ payload: await service.showCategory(deps.pool, portalOf(res), params.id) }),
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${PORTAL}/categories/{id}`, operationId: method === 'patch' ? 'updateCategory' : 'replaceCategory', summary: method === 'patch' ? 'Update a category' : 'Update a category (same as PATCH)', ...user,
      description: `${ADMIN} Moving a category to another locale moves its articles with it.`,
      use: loadPortal, role: 'administrator', params: category, body: updateCategoryBody, wrap: 'category',
      response: { description: 'The updated category', schema: categoryShowResponse }, errors: WRITE_ERRORS,
      handler: async ({ params, body, ctx, res }, deps) => ({ payload: await service.updateCategory(deps.pool, ctx, portalOf(res), params.id, body) }),
    }),
  ),
  route({
    method: 'delete', path: `${PORTAL}/categories/{id}`, operationId: 'deleteCategory', summary: 'Delete a category (its articles stay, without a category)', ...user,
    description: ADMIN,
    use: loadPortal, role: 'administrator', params: category,
    response: { description: 'Deleted', schema: emptyResponse }, errors: READ_ERRORS,
    handler: async ({ params, ctx, res }, deps) => {
      await service.deleteCategory(deps.pool, ctx, portalOf(res), params.id);
      return {};
    },
  }),
];
