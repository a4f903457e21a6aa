import { z } from 'zod';
import { defineOperations, type OperationSpec } from '@parley/shared';
import { deliveriesQuery, deliveryListResponse, webhookDeliveriesQuery, webhookListResponse, webhookSchemas, webhookShowResponse } from './webhooks/schemas';
import { emptyResponse, idParams, ruleCreateResponse, ruleListResponse, ruleSchemas, ruleShowResponse, runsListResponse, runsQuery } from './rules/schemas';

/** SPEC op 15 names the path parameter `webhook_id`. */
const webhookIdParams = z.object({ webhook_id: z.number().int() });
const rules = ruleSchemas(false);
const hooks = webhookSchemas(false);
const WEBHOOKS = '/api/v1/accounts/{account_id}/webhooks';
const RULES = '/api/v1/accounts/{account_id}/automation_rules';
const adminOnly = { security: ['userApiKey'] as OperationSpec['security'] };
const ruleErrors = [401, 403, 404, 422];

/** Chatwoot routes `update` for both PATCH and PUT: the same operation twice, PUT named `replace…`. */
function patchAndPut(op: Omit<OperationSpec, 'method'> & { operationId: `update${string}` }): OperationSpec[] {
  const noun = op.operationId.slice('update'.length);
  return [
    { ...op, method: 'patch' },
    { ...op, method: 'put', operationId: `replace${noun}`, summary: op.summary.replace(/ \(any subset of the create fields\)$/, ' (same as PATCH)') },
  ];
}

export const operations = defineOperations([
  {
    method: 'get',
    path: RULES,
    operationId: 'listAutomationRules',
    summary: 'List automation rules',
    tags: ['Automation Rule'],
    ...adminOnly,
    responses: { 200: { description: 'The account\'s rules, oldest first', schema: ruleListResponse } },
    errors: [401, 403, 404],
  },
  {
    method: 'post',
    path: RULES,
    operationId: 'createAutomationRule',
    summary: 'Create an automation rule',
    description: 'Administrators only. The whole body is validated: every problem is a 422 naming the field.',
    tags: ['Automation Rule'],
    ...adminOnly,
    body: rules.create,
    responses: { 200: { description: 'The new rule, inside a one-element payload array (SPEC op 2)', schema: ruleCreateResponse } },
    errors: ruleErrors,
    requestExample: {
      name: 'Refunds to billing',
      description: 'Label refund requests',
      event_name: 'message_created',
      active: true,
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['refund'], query_operator: null }],
      actions: [
        { action_name: 'add_label', action_params: ['billing'] },
        { action_name: 'change_priority', action_params: ['high'] },
      ],
    },
  },
  {
    method: 'get',
    path: `${RULES}/{id}`,
    operationId: 'getAutomationRule',
    summary: 'Show an automation rule',
    tags: ['Automation Rule'],
    ...adminOnly,
    params: idParams,
    responses: { 200: { description: 'The rule', schema: ruleShowResponse } },
    errors: [401, 403, 404],
  },
  ...patchAndPut({
    path: `${RULES}/{id}`,
    operationId: 'updateAutomationRule',
    summary: 'Update an automation rule (any subset of the create fields)',
    tags: ['Automation Rule'],
    ...adminOnly,
    params: idParams,
    body: rules.update,
    responses: { 200: { description: 'The updated rule', schema: ruleShowResponse } },
    errors: ruleErrors,
  }),
  {
    method: 'delete',
    path: `${RULES}/{id}`,
    operationId: 'deleteAutomationRule',
    summary: 'Delete an automation rule',
    tags: ['Automation Rule'],
    ...adminOnly,
    params: idParams,
    responses: { 200: { description: 'Deleted', schema: emptyResponse } },
    errors: [401, 403, 404],
  },
  {
    method: 'post',
    path: `${RULES}/{id}/clone`,
    operationId: 'cloneAutomationRule',
    summary: 'Copy an automation rule',
    tags: ['Automation Rule'],
    ...adminOnly,
    params: idParams,
    responses: { 200: { description: 'The copy', schema: ruleShowResponse } },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: `${RULES}/{id}/runs`,
    operationId: 'listAutomationRuleRuns',
    summary: 'Runs of a rule: each event it was evaluated for, whether it matched, what it did',
    tags: ['Automation Rule'],
    ...adminOnly,
    params: idParams,
    query: runsQuery,
    responses: { 200: { description: 'Newest first, 25 per page', schema: runsListResponse } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: WEBHOOKS,
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    tags: ['Webhooks'],
    ...adminOnly,
    responses: { 200: { description: 'Every webhook of the account (unpaginated, as Chatwoot)', schema: webhookListResponse } },
    errors: [401, 403, 404],
  },
  {
    method: 'post',
    path: WEBHOOKS,
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description:
      'Administrators only. `subscriptions` absent or null gives Chatwoot\'s default eight events. The answer carries the `secret` ' +
      'deliveries are signed with: `X-Chatwoot-Signature: sha256=<hex HMAC-SHA256(secret, "{X-Chatwoot-Timestamp}.{raw body}")>`. ' +
      'The body may also be wrapped as `{"webhook": {...}}`.',
    tags: ['Webhooks'],
    ...adminOnly,
    body: hooks.create,
    responses: { 200: { description: 'The new webhook', schema: webhookShowResponse } },
    errors: [401, 403, 404, 409, 422],
    requestExample: { url: 'https://example.com/chatwoot', subscriptions: ['conversation_created', 'message_created'] },
  },
  {
    method: 'get',
    path: `${WEBHOOKS}/deliveries`,
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery log of the account: account webhooks, API inbox webhook_url and rule webhooks',
    tags: ['Webhooks'],
    ...adminOnly,
    query: deliveriesQuery,
    responses: { 200: { description: 'Newest first, 25 per page, each with its attempts', schema: deliveryListResponse } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: `${WEBHOOKS}/{webhook_id}`,
    operationId: 'getWebhook',
    summary: 'Show a webhook',
    tags: ['Webhooks'],
    ...adminOnly,
    params: webhookIdParams,
    responses: { 200: { description: 'The webhook', schema: webhookShowResponse } },
    errors: [401, 403, 404],
  },
  ...patchAndPut({
    path: `${WEBHOOKS}/{webhook_id}`,
    operationId: 'updateWebhook',
    summary: 'Update a webhook (any subset of the create fields)',
    tags: ['Webhooks'],
    ...adminOnly,
    params: webhookIdParams,
    body: hooks.update,
    responses: { 200: { description: 'The updated webhook', schema: webhookShowResponse } },
    errors: [401, 403, 404, 409, 422],
  }),
  {
    method: 'post',
    path: `${WEBHOOKS}/{webhook_id}/rotate_secret`,
    operationId: 'rotateWebhookSecret',
    summary: 'Give a webhook a new signing secret',
    description:
      'Administrators only. The old secret stops signing at once: every delivery sent from now on, retries of earlier ones ' +
      'included, is signed with the new `secret` in the answer.',
    tags: ['Webhooks'],
    ...adminOnly,
    params: webhookIdParams,
    responses: { 200: { description: 'The webhook with its new secret', schema: webhookShowResponse } },
    errors: [401, 403, 404],
  },
  {
    method: 'delete',
    path: `${WEBHOOKS}/{webhook_id}`,
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook (SPEC op 15)',
    tags: ['Webhooks'],
    ...adminOnly,
    params: webhookIdParams,
    responses: { 200: { description: 'An empty JSON object', schema: emptyResponse } },
    errors: [401, 403, 404],
  },
  {
    method: 'get',
    path: `${WEBHOOKS}/{webhook_id}/deliveries`,
    operationId: 'listDeliveriesOfWebhook',
    summary: 'Delivery log of one webhook',
    tags: ['Webhooks'],
    ...adminOnly,
    params: webhookIdParams,
    query: webhookDeliveriesQuery,
    responses: { 200: { description: 'Newest first, 25 per page, each with its attempts', schema: deliveryListResponse } },
    errors: [400, 401, 403, 404],
  },
]);
