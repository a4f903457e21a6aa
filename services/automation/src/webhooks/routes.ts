import { Router, type Request, type Response } from 'express';
import { accountIdOf, idParam, NotFoundError, parseBody, parseQuery, requireAccount, requireRole, unixSeconds, unixSecondsOrNull, unwrap, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { listDeliveries, type AttemptRow, type DeliveryFilter, type DeliveryRow } from './deliveries-repository';
import { findWebhook } from './repository';
import { deliveriesQuery, webhookDeliveriesQuery, webhookSchemas } from './schemas';
import { createWebhook, deleteWebhook, listWebhooksJson, rotateWebhookSecret, showWebhook, updateWebhook } from './service';

const DELIVERIES_PER_PAGE = 25;

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

/** `/api/v1/accounts/:account_id/webhooks`: administrators only, as Chatwoot's WebhookPolicy. */
export function webhooksRouter(deps: ServiceDeps<AutomationConfig>): Router {
  const { pool } = deps;
  const schemas = webhookSchemas(deps.config.WEBHOOK_ALLOW_PRIVATE);
  const router = Router({ mergeParams: true });
  // Chatwoot checks the role before looking the record up: an agent gets 403 even for an unknown id.
  router.use(requireAccount, requireRole('administrator'));

  const deliveries = async (req: Request, res: Response, filter: DeliveryFilter, page: number) => {
    const { rows, count } = await listDeliveries(pool, accountIdOf(req), filter, DELIVERIES_PER_PAGE, (page - 1) * DELIVERIES_PER_PAGE);
    res.json({ meta: { count, current_page: page, per_page: DELIVERIES_PER_PAGE }, payload: rows.map(deliveryJson) });
  };

  router.get('/', async (req, res) => {
    res.json({ payload: { webhooks: await listWebhooksJson(deps, accountIdOf(req)) } });
  });

  // Chatwoot reads `{webhook: {...}}` and flat bodies alike (wrap_parameters).
  router.post('/', async (req, res) => {
    const input = parseBody(schemas.create, unwrap(req.body, 'webhook'));
    res.json({ payload: { webhook: await createWebhook(deps, req.ctx, accountIdOf(req), input) } });
  });

  // The whole account's delivery log (account webhooks, API inbox webhook_url, rule webhooks), filterable.
  router.get('/deliveries', async (req, res) => {
    const q = parseQuery(deliveriesQuery, req.query);
    await deliveries(req, res, { webhookId: q.webhook_id, inboxId: q.inbox_id, ruleId: q.rule_id, kind: q.kind, status: q.status }, q.page);
  });

  router.get('/:webhook_id', async (req, res) => {
    res.json({ payload: { webhook: await showWebhook(deps, accountIdOf(req), idParam(req, 'webhook_id', 'Webhook')) } });
  });

  const update = async (req: Request, res: Response) => {
    const id = idParam(req, 'webhook_id', 'Webhook');
    const input = parseBody(schemas.update, unwrap(req.body, 'webhook'));
    res.json({ payload: { webhook: await updateWebhook(deps, req.ctx, accountIdOf(req), id, input) } });
  };
  router.patch('/:webhook_id', update);
  router.put('/:webhook_id', update);

  // SPEC op 15: an empty JSON object (Chatwoot answers an empty body).
  router.delete('/:webhook_id', async (req, res) => {
    await deleteWebhook(deps, req.ctx, accountIdOf(req), idParam(req, 'webhook_id', 'Webhook'));
    res.json({});
  });

  // A new signing secret (answered once here, and by every later read, as Chatwoot 4.11+ does).
  router.post('/:webhook_id/rotate_secret', async (req, res) => {
    res.json({ payload: { webhook: await rotateWebhookSecret(deps, req.ctx, accountIdOf(req), idParam(req, 'webhook_id', 'Webhook')) } });
  });

  router.get('/:webhook_id/deliveries', async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'webhook_id', 'Webhook');
    const q = parseQuery(webhookDeliveriesQuery, req.query);
    if (!(await findWebhook(pool, accountId, id))) throw new NotFoundError('Webhook', 'webhook_id');
    await deliveries(req, res, { webhookId: id, status: q.status }, q.page);
  });

  return router;
}
