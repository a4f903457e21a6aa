import { randomBytes } from 'node:crypto';
import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount } from '../../support/factories';
import { client } from '../../support/http';
import { apiInboxWithWebhook, publicConversation } from '../../support/automation';
import { scrape, total, type Sample } from '../../support/metrics';
import { startReceiver, type Receiver } from '../../../services/automation/test/receiver';

/**
 * Issue 18, metrics: every service serves Prometheus metrics on its own port (never through
 * the gateway), and after real traffic the counters have moved: requests per route template
 * and status, events handled per consumer and type, outbox rows published, webhook
 * deliveries, the gateway's upstream errors and rate-limit refusals, and Node's own metrics.
 */
describe('metrics on every service', () => {
  let stack: Stack;
  let receiver: Receiver;
  const names = ['gateway', 'conversations', 'contacts', 'automation', 'audit'];
  const urlOf = (name: string) => (name === 'gateway' ? stack.gateway.metricsUrl : stack.services[name]!.metricsUrl);
  const before: Record<string, Sample[]> = {};

  beforeAll(async () => {
    // helpcenter is left out on purpose: the gateway's calls to it are upstream errors.
    stack = await startStack({
      only: ['conversations', 'contacts', 'automation', 'audit'],
      gateway: { RATE_LIMIT_PER_TOKEN: 25 },
      service: { automation: { WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_POLL_MS: 50 } },
    });
    receiver = await startReceiver();
    for (const n of names) before[n] = await scrape(urlOf(n));
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('when there has been traffic, then each service\'s counters have moved, with bounded labels', async () => {
    const call = client(stack.gatewayUrl);
    const acc = await seedAccount(stack);
    const inbox = await apiInboxWithWebhook(call, acc, receiver.url);
    const conv = await publicConversation(call, inbox.inbox_identifier);
    await conv.send(`hello ${randomBytes(3).toString('hex')}`);
    const got = await call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.conversationId}`, { token: acc.admin.token });
    expect(got.status).toBe(200);
    expect((await call('GET', `/api/v1/accounts/${acc.accountId}/conversations/999999999`, { token: acc.admin.token })).status).toBe(404);
    // helpcenter is not running: the gateway answers 503 and counts an upstream error.
    expect((await call('GET', `/api/v1/accounts/${acc.accountId}/portals`, { token: acc.admin.token })).status).toBe(503);
    // The webhook was delivered (consumer -> delivery row -> POST).
    await waitFor(() => receiver.received.some((r) => r.json?.event === 'message_created'), { what: 'webhook delivery', timeoutMs: 30_000 });
    // The per-token limit (25 a window) refuses the rest.
    let limited = 0;
    for (let i = 0; i < 40 && limited === 0; i++) {
      if ((await call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.conversationId}`, { token: acc.admin.token })).status === 429) limited += 1;
    }
    expect(limited).toBe(1);

    const moved = (name: string, metric: string, labels: Record<string, string>, after: Sample[]) => total(after, metric, labels) - total(before[name]!, metric, labels);

    // Gateway: its own routes by template, proxied ones by upstream, upstream errors, refusals.
    const gw = await waitFor(async () => {
      const s = await scrape(urlOf('gateway'));
      return total(s, 'parley_gateway_rate_limited_total', { limit: 'token' }) > 0 ? s : null;
    }, { what: 'gateway metrics' });
    expect(moved('gateway', 'parley_gateway_upstream_errors_total', { code: 'unavailable' }, gw)).toBe(1);
    expect(moved('gateway', 'parley_gateway_rate_limited_total', { limit: 'token' }, gw)).toBe(1);
    expect(moved('gateway', 'http_server_request_duration_seconds_count', { status: '429' }, gw)).toBe(1);
    expect(moved('gateway', 'http_server_request_duration_seconds_count', { method: 'GET', status: '200' }, gw)).toBeGreaterThan(1);
    const gwRoutes = new Set(gw.filter((s) => s.name === 'http_server_request_duration_seconds_count').map((s) => s.labels['route']));
    expect([...gwRoutes].some((r) => r?.startsWith('proxy '))).toBe(true);

    // Conversations: route templates, not raw paths; a 404 counted apart; the outbox drained.
    const conversations = await waitFor(async () => {
      const s = await scrape(urlOf('conversations'));
      return total(s, 'parley_outbox_pending_rows') === 0 ? s : null;
    }, { what: 'conversations outbox drained' });
    // The template, whatever the routes call their params.
    const convRoutes = conversations.filter((s) => s.name === 'http_server_request_duration_seconds_count').map((s) => s.labels['route']!);
    const route = convRoutes.find((r) => /^\/api\/v1\/accounts\/:[a-z_]+\/conversations\/:[a-z_]+$/.test(r))!;
    expect(route).toBeDefined();
    expect(moved('conversations', 'http_server_request_duration_seconds_count', { route, method: 'GET', status: '404' }, conversations)).toBe(1);
    expect(moved('conversations', 'parley_outbox_published_total', {}, conversations)).toBeGreaterThan(0);
    expect(total(conversations, 'parley_outbox_oldest_pending_age_seconds')).toBe(0);

    // Consumers: the webhook fan-out and the audit log handled message.created.
    // The receiver records the POST when it arrives; the sender counts the delivery only after the
    // answer and its bookkeeping write, so the counter may trail what the receiver saw.
    const automation = await waitFor(async () => {
      const s = await scrape(urlOf('automation'));
      return moved('automation', 'parley_webhook_deliveries_total', { outcome: 'succeeded', attempt: '1' }, s) > 0 ? s : null;
    }, { what: 'automation delivery metrics' });
    expect(moved('automation', 'parley_consumer_events_total', { queue: 'automation.webhooks', type: 'message.created', outcome: 'handled' }, automation)).toBeGreaterThan(0);
    expect(moved('automation', 'parley_consumer_event_duration_seconds_count', { queue: 'automation.webhooks', type: 'message.created' }, automation)).toBeGreaterThan(0);
    expect(moved('automation', 'parley_webhook_deliveries_total', { outcome: 'succeeded', attempt: '1' }, automation)).toBeGreaterThan(0);
    const audit = await waitFor(async () => {
      const s = await scrape(urlOf('audit'));
      return total(s, 'parley_consumer_events_total', { queue: 'audit.events', outcome: 'handled' }) > total(before['audit']!, 'parley_consumer_events_total', { queue: 'audit.events', outcome: 'handled' }) ? s : null;
    }, { what: 'audit consumer metrics' });
    expect(total(audit, 'parley_consumer_event_duration_seconds_count', { queue: 'audit.events' })).toBeGreaterThan(0);
    const contacts = await scrape(urlOf('contacts'));
    const publicCreate = contacts.find((s) => s.name === 'http_server_request_duration_seconds_count' && /^\/public\/api\/v1\/inboxes\/:[a-z_]+\/contacts$/.test(s.labels['route']!) && s.labels['method'] === 'POST')!;
    expect(moved('contacts', 'http_server_request_duration_seconds_count', publicCreate.labels, contacts)).toBe(1);

    for (const [name, samples] of Object.entries({ gateway: gw, conversations, contacts, automation, audit })) {
      // Node's process metrics, and every sample labelled with its service.
      expect(total(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(samples.some((s) => s.name.startsWith('nodejs_eventloop_lag'))).toBe(true);
      expect(samples.filter((s) => s.name.startsWith('parley_') || s.name.startsWith('http_')).every((s) => s.labels['service'] === name)).toBe(true);
      // Bounded: no route label carries an id, a token or an identifier.
      const routes = samples.filter((s) => s.name === 'http_server_request_duration_seconds_count').map((s) => s.labels['route']!);
      expect(routes.filter((r) => !r.startsWith('proxy ') && (/\/\d+(\/|$)/.test(r) || r.includes(inbox.inbox_identifier) || r.includes(conv.sourceId)))).toEqual([]);
    }
  });

  it('when a service consumes a queue, then the service list names it (so the KEDA triggers in deploy/k8s cover it)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { services } = require('../../../scripts/services') as { services: Array<{ name: string; queues: string[] }> };
    for (const [name, svc] of Object.entries(stack.services)) {
      const declared = services.find((s) => s.name === name)!.queues;
      const consumed = svc.consumers.map((c) => c.queue.slice(stack.env.namespace.length));
      expect({ name, missing: consumed.filter((q) => !declared.includes(q)) }).toEqual({ name, missing: [] });
    }
  });

  it('when a client asks the gateway for /metrics, then it is not there; each service serves it on its own port only', async () => {
    const res = await fetch(`${stack.gatewayUrl}/metrics`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await res.text()).not.toContain('process_cpu');
    expect(new URL(stack.gateway.metricsUrl).port).not.toBe(new URL(stack.gatewayUrl).port);
    const other = await fetch(stack.gateway.metricsUrl.replace('/metrics', '/healthz'));
    expect(other.status).toBe(404);
  });
});
