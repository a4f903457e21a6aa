import { NotFoundError, pathId, unixSeconds, unixSecondsOrNull, type Executor } from '@parley/shared';
import { emptyResponse } from '../rules/schemas';
import { route } from '../rules/routes';
import { listDeliveries, type AttemptRow, type DeliveryFilter, type DeliveryRow } from './deliveries-repository';
import { findWebhook } from './repository';
import { deliveriesQuery, deliveryListResponse, webhookDeliveriesQuery, webhookListResponse, webhookSchemas, webhookShowResponse } from './schemas';
import { createWebhook, deleteWebhook, listWebhooksJson, rotateWebhookSecret, showWebhook, updateWebhook } from './service';

const WEBHOOKS = '/api/v1/accounts/{account_id}/webhooks';
const DELIVERIES_PER_PAGE = 25;
/** Administrators only, as Chatwoot's WebhookPolicy (the role before the record: an agent gets 403 even for an unknown id). */
const hooks = { tags: ['Webhooks'], security: ['userApiKey' as const], role: 'administrator' as const };
/** SPEC op 15 names the path parameter `webhook_id`. */
const webhookId = { webhook_id: pathId('Webhook') };
/** What the document shows; requests are parsed with the schemas the deps configure (`WEBHOOK_ALLOW_PRIVATE`). */
const documented = webhookSchemas(false);

function deliveryJson(d: DeliveryRow & { attempt_log: AttemptRow[] }) {
  return {
    id: Number(d.id),
    delivery_id: d.delivery_id,
    kind: d.kind,
    webhook_id: d.webhook_id,
    inbox_id: d.inbox_id,
    rule_id: d.rule_id,
    url: d.url,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? unixSecondsOrNull(d.next_attempt_at) : null,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: unixSeconds(d.created_at),
    updated_at: unixSeconds(d.updated_at),
    payload: d.payload,
    attempt_log: d.attempt_log.map((a) => ({ attempt: a.attempt, status_code: a.status_code, error: a.error, duration_ms: a.duration_ms, created_at: unixSeconds(a.created_at) })),
  };
}

async function deliveries(pool: Executor, accountId: number, filter: DeliveryFilter, page: number) {
  const { rows, count } = await listDeliveries(pool, accountId, filter, DELIVERIES_PER_PAGE, (page - 1) * DELIVERIES_PER_PAGE);
  return { meta: { count, current_page: page, per_page: DELIVERIES_PER_PAGE }, payload: rows.map(deliveryJson) };
}

export const webhookRoutes = [
  route({
    method: 'get', path: WEBHOOKS, operationId: 'listWebhooks', summary: 'List webhooks', ...hooks,
    response: { description: 'Every webhook of the account (unpaginated, as Chatwoot)', schema: webhookListResponse }, errors: [401, 403, 404],
    handler: async ({ accountId }, deps) => ({ payload: { webhooks: await listWebhooksJson(deps, accountId) } }),
  }),
  // Chatwoot reads `{webhook: {...}}` and flat bodies alike (wrap_parameters).
  route({
    method: 'post', path: WEBHOOKS, operationId: 'createWebhook', summary: 'Create a webhook', ...hooks,
    description:
      'Administrators only. `subscriptions` absent or null gives Chatwoot\'s default eight events. The answer carries the `secret` ' +
      'deliveries are signed with: `X-Chatwoot-Signature: sha256=<hex HMAC-SHA256(secret, "{X-Chatwoot-Timestamp}.{raw body}")>`. ' +
      'The body may also be wrapped as `{"webhook": {...}}`.',
    body: documented.create, bodyOf: (deps) => webhookSchemas(deps.config.WEBHOOK_ALLOW_PRIVATE).create, wrap: 'webhook',
    response: { description: 'The new webhook', schema: webhookShowResponse }, errors: [401, 403, 404, 409, 422],
    requestExample: { url: 'https://example.com/chatwoot', subscriptions: ['conversation_created', 'message_created'] },
    handler: async ({ body, ctx, accountId }, deps) => ({ payload: { webhook: await createWebhook(deps, ctx, accountId, body) } }),
  }),
  // The whole account's delivery log (account webhooks, API inbox webhook_url, rule webhooks), filterable.
  route({
    method: 'get', path: `${WEBHOOKS}/deliveries`, operationId: 'listWebhookDeliveries', summary: 'Delivery log of the account: account webhooks, API inbox webhook_url and rule webhooks', ...hooks,
    query: deliveriesQuery, response: { description: 'Newest first, 25 per page, each with its attempts', schema: deliveryListResponse }, errors: [400, 401, 403, 404],
    handler: async ({ query: q, accountId }, { pool }) => deliveries(pool, accountId, { webhookId: q.webhook_id, inboxId: q.inbox_id, ruleId: q.rule_id, kind: q.kind, status: q.status }, q.page),
  }),
  route({
    method: 'get', path: `${WEBHOOKS}/{webhook_id}`, operationId: 'getWebhook', summary: 'Show a webhook', ...hooks,
    params: webhookId, response: { description: 'The webhook', schema: webhookShowResponse }, errors: [401, 403, 404],
    handler: async ({ params, accountId }, deps) => ({ payload: { webhook: await showWebhook(deps, accountId, params.webhook_id) } }),
  }),
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${WEBHOOKS}/{webhook_id}`, ...hooks,
      operationId: method === 'patch' ? 'updateWebhook' : 'replaceWebhook',
      summary: method === 'patch' ? 'Update a webhook (any subset of the create fields)' : 'Update a webhook (same as PATCH)',
      params: webhookId, body: documented.update, bodyOf: (deps) => webhookSchemas(deps.config.WEBHOOK_ALLOW_PRIVATE).update, wrap: 'webhook',
      response: { description: 'The updated webhook', schema: webhookShowResponse }, errors: [401, 403, 404, 409, 422],
      handler: async ({ params, body, ctx, accountId }, deps) => ({ payload: { webhook: await updateWebhook(deps, ctx, accountId, params.webhook_id, body) } }),
    }),
  ),
  // A new signing secret (answered once here, and by every later read, as Chatwoot 4.11+ does).
  route({
    method: 'post', path: `${WEBHOOKS}/{webhook_id}/rotate_secret`, operationId: 'rotateWebhookSecret', summary: 'Give a webhook a new signing secret', ...hooks,
    description:
      'Administrators only. The old secret stops signing at once: every delivery sent from now on, retries of earlier ones ' +
      'included, is signed with the new `secret` in the answer.',
    params: webhookId, response: { description: 'The webhook with its new secret', schema: webhookShowResponse }, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, deps) => ({ payload: { webhook: await rotateWebhookSecret(deps, ctx, accountId, params.webhook_id) } }),
  }),
  // SPEC op 15: an empty JSON object (Chatwoot answers an empty body).
  route({
    method: 'delete', path: `${WEBHOOKS}/{webhook_id}`, operationId: 'deleteWebhook', summary: 'Delete a webhook (SPEC op 15)', ...hooks,
    params: webhookId, response: { description: 'An empty JSON object', schema: emptyResponse }, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, deps) => {
      await deleteWebhook(deps, ctx, accountId, params.webhook_id);
      return {};
    },
  }),
  route({
    method: 'get', path: `${WEBHOOKS}/{webhook_id}/deliveries`, operationId: 'listDeliveriesOfWebhook', summary: 'Delivery log of one webhook', ...hooks,
    params: webhookId, query: webhookDeliveriesQuery, response: { description: 'Newest first, 25 per page, each with its attempts', schema: deliveryListResponse }, errors: [400, 401, 403, 404],
    handler: async ({ params, query: q, accountId }, { pool }) => {
      if (!(await findWebhook(pool, accountId, params.webhook_id))) throw new NotFoundError('Webhook', 'webhook_id');
      return deliveries(pool, accountId, { webhookId: params.webhook_id, status: q.status }, q.page);
    },
  }),
];
