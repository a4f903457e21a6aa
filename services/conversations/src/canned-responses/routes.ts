import { NotFoundError, diff, pathId, routeKit, withTransaction, writeEvent } from '@parley/shared';
import { emptyObject } from '../common/validation';
import type { AppDeps } from '../deps';
import {
  deleteCannedResponseRow, findCannedResponse, insertCannedResponse, listCannedResponses, updateCannedResponseRow, type CannedResponseRow,
} from './repository';
import { cannedResponseListResponse, cannedResponseResponse, createCannedResponseBody, listCannedResponsesQuery, updateCannedResponseBody, type CannedResponseResponse } from './schemas';

export function cannedResponseData(c: CannedResponseRow): CannedResponseResponse {
  return { id: c.id, account_id: c.account_id, short_code: c.short_code, content: c.content, created_at: c.created_at.toISOString(), updated_at: c.updated_at.toISOString() };
}

const route = routeKit<AppDeps>();
const A = '/api/v1/accounts/{account_id}';
const canned = { tags: ['Canned Responses'], security: ['userApiKey' as const] };
const cannedId = { id: pathId('Canned response') };

/** `/canned_responses`: any member of the account, agents included (Chatwoot has no policy here). */
export const cannedResponseRoutes = [
  route({
    method: 'get', path: `${A}/canned_responses`, operationId: 'listCannedResponses', summary: 'List canned responses', ...canned,
    description: '`search` matches short code or content; short codes starting with it first.',
    query: listCannedResponsesQuery, response: { description: 'The canned responses', schema: cannedResponseListResponse },
    handler: async ({ query, accountId }, { pool }) => (await listCannedResponses(pool, accountId, query.search?.trim() || undefined)).map(cannedResponseData),
  }),
  route({
    method: 'post', path: `${A}/canned_responses`, operationId: 'createCannedResponse', summary: 'Create a canned response', ...canned,
    description: 'Any member. Flat or wrapped in `canned_response`. Short codes are unique per account (409).',
    body: createCannedResponseBody, wrap: 'canned_response', response: { description: 'The canned response', schema: cannedResponseResponse }, errors: [409],
    handler: async ({ body, ctx, accountId }, { pool }) => {
      const row = await withTransaction(pool, async (tx) => {
        const created = await insertCannedResponse(tx, accountId, body);
        await writeEvent(tx, ctx, { type: 'canned_response.created', accountId, data: cannedResponseData(created) });
        return created;
      });
      return cannedResponseData(row);
    },
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${A}/canned_responses/{id}`, ...canned,
      operationId: method === 'patch' ? 'updateCannedResponse' : 'replaceCannedResponse',
      summary: method === 'patch' ? 'Update a canned response' : 'Update a canned response (same as PATCH)',
      params: cannedId, body: updateCannedResponseBody, wrap: 'canned_response', response: { description: 'The canned response', schema: cannedResponseResponse }, errors: [409],
      handler: async ({ params, body, ctx, accountId }, { pool }) => {
        const row = await withTransaction(pool, async (tx) => {
          const before = await findCannedResponse(tx, accountId, params.id, { forUpdate: true });
          if (!before) throw new NotFoundError('Canned response', 'id');
          const after = await updateCannedResponseRow(tx, accountId, params.id, body);
          const a = cannedResponseData(after);
          await writeEvent(tx, ctx, { type: 'canned_response.updated', accountId, data: a, changes: diff(cannedResponseData(before), a, ['short_code', 'content']) });
          return after;
        });
        return cannedResponseData(row);
      },
    }),
  ),
  route({
    method: 'delete', path: `${A}/canned_responses/{id}`, operationId: 'deleteCannedResponse', summary: 'Delete canned response', ...canned,
    description: 'SPEC op 11. Any member, agents included.',
    params: cannedId, response: { description: 'Deleted', schema: emptyObject },
    handler: async ({ params, ctx, accountId }, { pool }) => {
      await withTransaction(pool, async (tx) => {
        const row = await findCannedResponse(tx, accountId, params.id, { forUpdate: true });
        if (!row) throw new NotFoundError('Canned response', 'id');
        await deleteCannedResponseRow(tx, accountId, params.id);
        await writeEvent(tx, ctx, { type: 'canned_response.deleted', accountId, data: cannedResponseData(row) });
      });
      return {};
    },
  }),
];
