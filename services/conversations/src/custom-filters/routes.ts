import { z } from 'zod';
import { ForbiddenError, pathId, routeKit, type RequestContext } from '@parley/shared';
import type { AppDeps } from '../deps';
import { userIdOf } from '../common/access';
import { emptyObject } from '../common/validation';
import type { Owner } from './repository';
import { createCustomFilterBody, customFilterResponse, listCustomFiltersQuery, updateCustomFilterBody } from './schemas';
import { createFilter, listFilters, presentFilter, removeFilter, showFilter, updateFilter } from './service';

const route = routeKit<AppDeps>();
const CF = '/api/v1/accounts/{account_id}/custom_filters';
const tags = ['Custom Filters'];
const security = ['userApiKey' as const];
const role = ['administrator', 'agent'] as const;
const params = { id: pathId('Custom filter') };

function ownerOf(ctx: RequestContext, accountId: number): Owner {
  const userId = userIdOf(ctx);
  if (userId === null) throw new ForbiddenError('Saved filters belong to users');
  return { accountId, userId };
}

const example = {
  name: 'Open, unassigned',
  filter_type: 'conversation',
  query: { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: 'and' }, { attribute_key: 'assignee_id', filter_operator: 'is_not_present', values: [] }] },
};

/**
 * Saved filters live here, with the conversation filter and the custom attribute definitions,
 * because a saved query is checked as a filter of its type when saved: conversation filters
 * need the account's definitions, contact filters the kernel's contact key catalogue.
 */
export const customFilterRoutes = [
  route({
    method: 'get',
    path: CF,
    operationId: 'listCustomFilters',
    summary: 'List your saved filters',
    description: 'The caller\'s own filters of one type (`filter_type`: `conversation` (default), `contact`, `report`, or 0, 1, 2), oldest first. Filters are private to their user.',
    tags, security, role,
    query: listCustomFiltersQuery,
    response: { description: 'The filters', schema: z.array(customFilterResponse) },
    errors: [400],
    handler: async ({ query, ctx, accountId }, deps) => (await listFilters(deps.pool, ownerOf(ctx, accountId), query.filter_type ?? 'conversation')).map(presentFilter),
  }),
  route({
    method: 'post',
    path: CF,
    operationId: 'createCustomFilter',
    summary: 'Save a filter',
    description:
      'Flat or wrapped in `custom_filter`. `name` and `query` are required; `filter_type` (`conversation` by default, `contact`, `report`, or 0, 1, 2; `type` is taken for it too) is answered by name. `query` is the filter body (`{payload: [...]}`) and must be a valid filter of its type (422 naming `query.payload.N.field`); report queries are kept as sent. At most 1,000 per user and account (422 `limit_reached`).',
    tags, security, role,
    body: createCustomFilterBody,
    wrap: 'custom_filter',
    response: { description: 'The filter', schema: customFilterResponse },
    errors: [422],
    requestExample: example,
    handler: async ({ body, ctx, accountId }, deps) => presentFilter(await createFilter(deps.pool, ownerOf(ctx, accountId), body)),
  }),
  route({
    method: 'get',
    path: `${CF}/{id}`,
    operationId: 'getCustomFilter',
    summary: 'Show a saved filter',
    description: 'Another user\'s filter is 404.',
    tags, security, role, params,
    response: { description: 'The filter', schema: customFilterResponse },
    handler: async ({ params: p, ctx, accountId }, deps) => presentFilter(await showFilter(deps.pool, ownerOf(ctx, accountId), p.id)),
  }),
  route({
    method: ['patch', 'put'],
    path: `${CF}/{id}`,
    operationId: 'updateCustomFilter',
    summary: 'Update a saved filter',
    description: 'Any of `name`, `filter_type`, `query`, flat or wrapped in `custom_filter`; a new query or type is checked as on create. Another user\'s filter is 404.',
    tags, security, role, params,
    body: updateCustomFilterBody,
    wrap: 'custom_filter',
    response: { description: 'The filter', schema: customFilterResponse },
    errors: [422],
    handler: async ({ params: p, body, ctx, accountId }, deps) => presentFilter(await updateFilter(deps.pool, ownerOf(ctx, accountId), p.id, body)),
  }),
  route({
    method: 'delete',
    path: `${CF}/{id}`,
    operationId: 'deleteCustomFilter',
    summary: 'Delete a saved filter',
    description: 'Answers `{}` (Chatwoot: 204). Another user\'s filter is 404.',
    tags, security, role, params,
    response: { description: 'Deleted', schema: emptyObject },
    handler: async ({ params: p, ctx, accountId }, deps) => {
      await removeFilter(deps.pool, ownerOf(ctx, accountId), p.id);
      return {};
    },
  }),
];
