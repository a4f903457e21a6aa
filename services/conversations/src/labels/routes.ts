import { NotFoundError, diff, pathId, routeKit, withTransaction, writeEvent } from '@parley/shared';
import { emptyObject } from '../common/validation';
import type { AppDeps } from '../deps';
import { deleteLabelRow, findLabel, insertLabel, listLabels, renameOnConversations, updateLabelRow, type LabelRow } from './repository';
import { createLabelBody, labelListResponse, labelResponse, updateLabelBody, type LabelResponse } from './schemas';

export function labelData(l: Pick<LabelRow, 'id' | 'title' | 'description' | 'color' | 'show_on_sidebar'>): LabelResponse {
  return { id: l.id, title: l.title, description: l.description, color: l.color, show_on_sidebar: l.show_on_sidebar };
}

const route = routeKit<AppDeps>();
const A = '/api/v1/accounts/{account_id}';
const labels = { tags: ['Labels'], security: ['userApiKey' as const] };
const labelId = { id: pathId('Label') };

/** `/labels`: everyone reads, administrators write (Chatwoot's LabelPolicy). */
export const labelRoutes = [
  route({
    method: 'get', path: `${A}/labels`, operationId: 'listLabels', summary: 'List labels', ...labels,
    response: { description: 'The labels', schema: labelListResponse },
    handler: async ({ accountId }, { pool }) => ({ payload: (await listLabels(pool, accountId)).map(labelData) }),
  }),
  route({
    method: 'get', path: `${A}/labels/{id}`, operationId: 'getLabel', summary: 'Show a label', ...labels,
    params: labelId, response: { description: 'The label', schema: labelResponse },
    handler: async ({ params, accountId }, { pool }) => {
      const label = await findLabel(pool, accountId, params.id);
      if (!label) throw new NotFoundError('Label', 'id');
      return labelData(label);
    },
  }),
  route({
    method: 'post', path: `${A}/labels`, operationId: 'createLabel', summary: 'Create a label', ...labels,
    description: 'Administrators only. Titles are letters, digits, `-` and `_`, stored lowercase, unique per account (409).',
    role: 'administrator', body: createLabelBody, wrap: 'label', response: { description: 'The label', schema: labelResponse }, errors: [409],
    handler: async ({ body, ctx, accountId }, { pool }) => {
      const label = await withTransaction(pool, async (tx) => {
        const row = await insertLabel(tx, accountId, body);
        await writeEvent(tx, ctx, { type: 'label.created', accountId, data: labelData(row) });
        return row;
      });
      return labelData(label);
    },
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${A}/labels/{id}`, ...labels,
      ...(method === 'patch'
        ? { operationId: 'updateLabel', summary: 'Update a label', description: 'Administrators only. A new title is applied to the conversations that carry the old one.' }
        : { operationId: 'replaceLabel', summary: 'Update a label (same as PATCH)' }),
      role: 'administrator', params: labelId, body: updateLabelBody, wrap: 'label', response: { description: 'The label', schema: labelResponse }, errors: [409],
      handler: async ({ params, body, ctx, accountId }, { pool }) => {
        const label = await withTransaction(pool, async (tx) => {
          const before = await findLabel(tx, accountId, params.id, { forUpdate: true });
          if (!before) throw new NotFoundError('Label', 'id');
          const after = await updateLabelRow(tx, accountId, params.id, body);
          if (after.title !== before.title) await renameOnConversations(tx, accountId, before.title, after.title);
          await writeEvent(tx, ctx, { type: 'label.updated', accountId, data: labelData(after), changes: diff(labelData(before), labelData(after)) });
          return after;
        });
        return labelData(label);
      },
    }),
  ),
  route({
    method: 'delete', path: `${A}/labels/{id}`, operationId: 'deleteLabel', summary: 'Delete a label', ...labels,
    role: 'administrator', params: labelId, response: { description: 'Deleted', schema: emptyObject },
    handler: async ({ params, ctx, accountId }, { pool }) => {
      await withTransaction(pool, async (tx) => {
        const label = await findLabel(tx, accountId, params.id, { forUpdate: true });
        if (!label) throw new NotFoundError('Label', 'id');
        // Conversations keep the tag (Chatwoot removes only the Label record).
        await deleteLabelRow(tx, accountId, params.id);
        await writeEvent(tx, ctx, { type: 'label.deleted', accountId, data: labelData(label) });
      });
      return {};
    },
  }),
];
