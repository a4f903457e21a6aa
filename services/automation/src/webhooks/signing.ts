import { createHmac } from 'node:crypto';

/**
 * Chatwoot's webhook signature (v4.11+): `sha256=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>`,
 * with the timestamp (unix seconds) sent as `X-Chatwoot-Timestamp`. Receivers recompute it over
 * the exact bytes they received and should refuse old timestamps (replays).
 */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function deliveryHeaders(opts: { deliveryId: string; event: string; body: string; secret: string | null; timestamp: number }): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'Parley-Webhooks/1.0',
    'x-chatwoot-delivery': opts.deliveryId,
    'x-chatwoot-timestamp': String(opts.timestamp),
    'x-chatwoot-event': opts.event,
  };
  if (opts.secret) headers['x-chatwoot-signature'] = signature(opts.secret, opts.timestamp, opts.body);
  return headers;
}
