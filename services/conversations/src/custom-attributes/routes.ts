import { NotFoundError, pathId, routeKit } from '@parley/shared';
import type { AppDeps } from '../deps';
import { emptyObject } from '../common/validation';
import { findCustomAttribute, listCustomAttributes } from './repository';
import { createCustomAttributeBody, customAttributeListResponse, customAttributeResponse, listCustomAttributesQuery, updateCustomAttributeBody } from './schemas';
import { createCustomAttribute, customAttributeData, deleteCustomAttribute, updateCustomAttribute } from './service';

const route = routeKit<AppDeps>();
const CA = '/api/v1/accounts/{account_id}/custom_attribute_definitions';
const WRAPPER = 'custom_attribute_definition';
const attrs = { tags: ['Custom Attributes'], security: ['userApiKey' as const] };
const attrId = { id: pathId('Custom attribute definition') };

/** `/custom_attribute_definitions`: every member reads, administrators write (Chatwoot's policy). */
export const customAttributeRoutes = [
  route({
    method: 'get', path: CA, operationId: 'listCustomAttributeDefinitions', summary: 'List custom attribute definitions', ...attrs,
    description: 'Every member. `attribute_model` (`conversation_attribute` or 0, `contact_attribute` or 1; `filter_type` is accepted for it) narrows the list; without it all come, oldest first.',
    query: listCustomAttributesQuery, response: { description: 'The definitions', schema: customAttributeListResponse },
    handler: async ({ query, accountId }, { pool }) => (await listCustomAttributes(pool, accountId, query.attribute_model ?? query.filter_type)).map(customAttributeData),
  }),
  route({
    method: 'post', path: CA, operationId: 'createCustomAttributeDefinition', summary: 'Create a custom attribute definition', ...attrs,
    description: "Administrators only. Flat or wrapped in `custom_attribute_definition`. `attribute_display_type` and `attribute_model` take the name or Chatwoot's integer. `attribute_key` is unique per account and model (409) and may not be a standard attribute of the model (422 `key_conflict`); a `list` needs `attribute_values`.",
    role: 'administrator', body: createCustomAttributeBody, wrap: WRAPPER, response: { description: 'The definition', schema: customAttributeResponse }, errors: [409],
    requestExample: { attribute_display_name: 'Order number', attribute_key: 'order_number', attribute_display_type: 'text', attribute_model: 'conversation_attribute' },
    handler: async ({ body, ctx, accountId }, { pool }) => customAttributeData(await createCustomAttribute(pool, ctx, accountId, body)),
  }),
  route({
    method: 'get', path: `${CA}/{id}`, operationId: 'getCustomAttributeDefinition', summary: 'Show a custom attribute definition', ...attrs,
    params: attrId, response: { description: 'The definition', schema: customAttributeResponse },
    handler: async ({ params, accountId }, { pool }) => {
      const row = await findCustomAttribute(pool, accountId, params.id);
      if (!row) throw new NotFoundError('Custom attribute definition', 'id');
      return customAttributeData(row);
    },
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${CA}/{id}`, ...attrs,
      ...(method === 'patch'
        ? { operationId: 'updateCustomAttributeDefinition', summary: 'Update a custom attribute definition', description: 'Administrators only.' }
        : { operationId: 'replaceCustomAttributeDefinition', summary: 'Update a custom attribute definition (same as PATCH)' }),
      role: 'administrator', params: attrId, body: updateCustomAttributeBody, wrap: WRAPPER, response: { description: 'The definition', schema: customAttributeResponse }, errors: [409],
      handler: async ({ params, body, ctx, accountId }, { pool }) => customAttributeData(await updateCustomAttribute(pool, ctx, accountId, params.id, body)),
    }),
  ),
  route({
    method: 'delete', path: `${CA}/{id}`, operationId: 'deleteCustomAttributeDefinition', summary: 'Delete a custom attribute definition', ...attrs,
    description: 'Administrators only. Values already stored under the key stay.',
    role: 'administrator', params: attrId, response: { description: 'Deleted', schema: emptyObject },
    handler: async ({ params, ctx, accountId }, { pool }) => {
      await deleteCustomAttribute(pool, ctx, accountId, params.id);
      return {};
    },
  }),
];
