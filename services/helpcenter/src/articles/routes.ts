import { pathId } from '@parley/shared';
import { ADMIN, PORTAL, portalSlug, READ_ERRORS, route, user, WRITE_ERRORS } from '../route';
import { loadPortal, portalOf } from '../portals/middleware';
import { emptyResponse } from '../portals/schemas';
import { articleListResponse, articleResponse, createArticleBody, listArticlesQuery, reorderBody, updateArticleBody } from './schemas';
import * as service from './service';

const article = { ...portalSlug, id: pathId('Article', 'Article id') };

const articleExample = {
  title: 'Resetting your password',
  content: 'Open Settings, then Security, then choose Reset password.',
  description: 'How to get back into your account',
  author_id: 1,
  category_id: 3,
  status: 1,
  locale: 'en',
  meta: { title: 'Reset your password', description: 'Step by step', tags: ['account', 'password'] },
};

/**
 * A portal's articles (the portal loaded first). A single article is answered as SPEC's
 * Article record itself; Chatwoot wraps it as `{payload: {...}}` (SPEC wins; docs/architecture.md).
 */
export const articleRoutes = [
  route({
    method: 'get', path: `${PORTAL}/articles`, operationId: 'listArticles', summary: 'List the articles of a portal', ...user,
    description:
      'Every status, 25 a page, newest change first (by position when a category is given). Filters: `status`, `category_id` or `category_slug`, `author_id`, `locale`, and `query` (full-text, every word as a prefix).',
    use: loadPortal, params: portalSlug, query: listArticlesQuery,
    response: { description: 'One page of articles with counts', schema: articleListResponse }, errors: [400, ...READ_ERRORS],
    handler: async ({ query, ctx, res }, deps) => service.listArticles(deps.pool, ctx, portalOf(res), query),
  }),
  route({
    method: 'post', path: `${PORTAL}/articles`, operationId: 'createArticle', summary: 'Create article in a portal', ...user,
    description: `${ADMIN} The portal is named by its slug. \`title\`, \`content\` and \`author_id\` (an agent of the account, checked with the identity service) are required. \`status\` takes 0/1/2 or draft/published/archived and defaults to draft; the answer names it. The slug is generated from the title when absent and is unique per portal; the position defaults to the end of the category. An article in a category takes the category's locale. \`category_id\` and \`associated_article_id\` take 0 or null for none (the record answers 0). Unknown \`category_id\`, \`associated_article_id\` or \`author_id\`: 422 naming the field.`,
    use: loadPortal, role: 'administrator', params: portalSlug, body: createArticleBody, wrap: 'article',
    response: { description: 'The new Article', schema: articleResponse }, errors: [...WRITE_ERRORS, 503], requestExample: articleExample,
    handler: async ({ body, ctx, res }, deps) => service.createArticle(deps, ctx, portalOf(res), body),
  }),
  route({
    method: 'post', path: `${PORTAL}/articles/reorder`, operationId: 'reorderArticles', summary: 'Set the positions of articles', ...user,
    description: `${ADMIN} \`positions_hash\` maps article ids to positions; an id that is not in this portal fails the whole request (422) and nothing moves.`,
    use: loadPortal, role: 'administrator', params: portalSlug, body: reorderBody,
    response: { description: 'Reordered', schema: emptyResponse }, errors: [400, 401, 403, 404, 422], requestExample: { positions_hash: { '12': 10, '15': 20 } },
    handler: async ({ body, ctx, res }, deps) => {
      await service.reorderArticles(deps.pool, ctx, portalOf(res), body.positions_hash);
      return {};
    },
  }),
  route({
    method: 'get', path: `${PORTAL}/articles/{id}`, operationId: 'getArticle', summary: 'Show an article', ...user,
    use: loadPortal, params: article,
    response: { description: 'The Article', schema: articleResponse }, errors: READ_ERRORS,
    handler: async ({ params, res }, deps) => service.showArticle(deps.pool, portalOf(res), params.id),
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${PORTAL}/articles/{id}`, operationId: method === 'patch' ? 'updateArticle' : 'replaceArticle', summary: method === 'patch' ? 'Update an article' : 'Update an article (same as PATCH)', ...user,
      description: `${ADMIN} Any subset of the create fields. Status moves: draft <-> published, published -> archived; any other move is 422 (\`invalid_transition\`).`,
      use: loadPortal, role: 'administrator', params: article, body: updateArticleBody, wrap: 'article',
      response: { description: 'The updated Article', schema: articleResponse }, errors: [...WRITE_ERRORS, 503],
      handler: async ({ params, body, ctx, res }, deps) => service.updateArticle(deps, ctx, portalOf(res), params.id, body),
    }),
  ),
  route({
    method: 'delete', path: `${PORTAL}/articles/{id}`, operationId: 'deleteArticle', summary: 'Delete an article', ...user,
    description: ADMIN,
    use: loadPortal, role: 'administrator', params: article,
    response: { description: 'Deleted', schema: emptyResponse }, errors: READ_ERRORS,
    handler: async ({ params, ctx, res }, deps) => {
      await service.deleteArticle(deps.pool, ctx, portalOf(res), params.id);
      return {};
    },
  }),
];
