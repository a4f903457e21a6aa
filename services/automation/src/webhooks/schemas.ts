import { z } from 'zod';
import { WEBHOOK_EVENTS } from './payloads';
import { checkTargetUrl } from './url-guard';

/** An http(s) URL a webhook may target (private targets only when the deployment allows them). */
export function targetUrl(allowPrivate: boolean) {
  return z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .superRefine((v, ctx) => {
      const problem = checkTargetUrl(v, allowPrivate);
      if (problem === 'invalid') ctx.addIssue({ code: 'custom', message: 'is invalid (an http or https URL is required)' });
      else if (problem === 'private') ctx.addIssue({ code: 'custom', message: 'must not target a private, loopback or link-local address' });
    });
}

const subscriptions = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1, 'must name at least one event')
  .max(WEBHOOK_EVENTS.length * 2)
  .transform((list) => [...new Set(list)]);

export function webhookSchemas(allowPrivate: boolean) {
  const fields = {
    url: targetUrl(allowPrivate),
    name: z.string().trim().max(255).nullable().optional(),
    /** Absent or null: Chatwoot's default set of eight events. */
    subscriptions: subscriptions.nullable().optional(),
    inbox_id: z.number().int().positive().max(2_147_483_647).nullable().optional(),
  };
  return {
    create: z.object(fields),
    update: z.object(fields).partial(),
  };
}
export type WebhookCreateInput = z.infer<ReturnType<typeof webhookSchemas>['create']>;
export type WebhookUpdateInput = z.infer<ReturnType<typeof webhookSchemas>['update']>;

/** Chatwoot's `_webhook.json.jbuilder` plus the signing secret (Chatwoot 4.11+ returns it too). */
export const webhookResponse = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  url: z.string(),
  account_id: z.number().int(),
  subscriptions: z.array(z.string()),
  inbox: z.object({ id: z.number().int(), name: z.string().nullable() }).optional(),
  secret: z.string(),
});
export type WebhookJson = z.infer<typeof webhookResponse>;

export const webhookShowResponse = z.object({ payload: z.object({ webhook: webhookResponse }) });
export const webhookListResponse = z.object({ payload: z.object({ webhooks: z.array(webhookResponse) }) });

export const deliveryAttemptResponse = z.object({
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: z.number().int(),
});
export const deliveryResponse = z.object({
  id: z.number().int(),
  /** The `X-Chatwoot-Delivery` header: the same on every attempt. */
  delivery_id: z.string(),
  kind: z.enum(['webhook', 'inbox', 'rule']),
  webhook_id: z.number().int().nullable(),
  inbox_id: z.number().int().nullable(),
  rule_id: z.number().int().nullable(),
  url: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'dead']),
  attempts: z.number().int(),
  next_attempt_at: z.number().int().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  payload: z.record(z.string(), z.unknown()),
  attempt_log: z.array(deliveryAttemptResponse),
});
export const deliveryListResponse = z.object({
  meta: z.object({ count: z.number().int(), current_page: z.number().int(), per_page: z.number().int() }),
  payload: z.array(deliveryResponse),
});

const optionalId = z.coerce.number().int().positive().max(2_147_483_647).optional();
export const deliveriesQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  status: z.enum(['pending', 'succeeded', 'failed', 'dead']).optional(),
  kind: z.enum(['webhook', 'inbox', 'rule']).optional(),
  inbox_id: optionalId,
  webhook_id: optionalId,
  rule_id: optionalId,
});
export const webhookDeliveriesQuery = deliveriesQuery.pick({ page: true, status: true });
export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;
