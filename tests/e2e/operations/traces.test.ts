import { randomBytes } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { buildEnvelope, signContext, startTracing, systemContext, traceIdOf, verifyContext, type Tracing } from '@parley/shared';
import { contactFixture, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount } from '../../support/factories';
import { client } from '../../support/http';
import { apiInboxWithWebhook } from '../../support/automation';
import { startReceiver, type Receiver } from '../../../services/automation/test/receiver';

/**
 * Issue 18, traces: one trace follows a message from the client's request through the gateway
 * (signed context), the conversations service, the event (envelope written with the outbox row),
 * RabbitMQ, the automation consumer, and the webhook it sent (stored with the delivery, passed
 * to the receiver as `traceparent`). Spans go to an in-memory exporter. jest loads modules its
 * own way, so the http/express/pg/amqplib/ioredis instrumentations cannot patch them here; the
 * spans below are Parley's own at each hop, the ones that carry the context across.
 */
describe('one trace across the services', () => {
  const SECRET = 'trace-test-secret-0123456789';

  it('when tracing is off, then nothing carries a trace context', () => {
    const env = buildEnvelope(systemContext('test', 1, 'r'), { type: 'contact.deleted', accountId: 1, data: { ...contactFixture(1, 1) } });
    expect(env).not.toHaveProperty('traceparent');
    const ctx = verifyContext(signContext(systemContext('test', 1, 'r'), SECRET), SECRET);
    expect(ctx).not.toHaveProperty('traceparent');
  });

  describe('with tracing on', () => {
    const exporter = new InMemorySpanExporter();
    let tracing: Tracing;
    let stack: Stack;
    let receiver: Receiver;

    beforeAll(async () => {
      tracing = startTracing({ serviceName: 'parley-test', exporter, simple: true, instrument: false });
      stack = await startStack({ only: ['conversations', 'contacts', 'automation'], service: { automation: { WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_POLL_MS: 50 } } });
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      await stack?.stop();
      await tracing?.shutdown();
    });

    const parentOf = (s: ReadableSpan): string | undefined => (s as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;

    it('when a client sends a message, then the gateway, the service, the consumer and the webhook delivery are one trace', async () => {
      const call = client(stack.gatewayUrl);
      const acc = await seedAccount(stack);
      const inbox = await apiInboxWithWebhook(call, acc, receiver.url);
      const base = `/public/api/v1/inboxes/${inbox.inbox_identifier}`;
      const contact = await call('POST', `${base}/contacts`, { body: { name: 'Tracy' } });
      const conv = await call('POST', `${base}/contacts/${contact.body.source_id}/conversations`, { body: {} });
      expect(conv.status).toBe(200);

      // The client starts the trace.
      const traceId = randomBytes(16).toString('hex');
      const clientSpan = randomBytes(8).toString('hex');
      const marker = `trace me ${randomBytes(4).toString('hex')}`;
      const sent = await call('POST', `${base}/contacts/${contact.body.source_id}/conversations/${conv.body.id}/messages`, {
        body: { content: marker },
        headers: { traceparent: `00-${traceId}-${clientSpan}-01` },
      });
      expect(sent.status).toBe(200);

      const delivered = await waitFor(() => receiver.received.find((r) => r.json?.event === 'message_created' && r.json?.content === marker), { what: 'webhook for the traced message', timeoutMs: 30_000 });
      // The receiver is told the trace too.
      expect(traceIdOf(String(delivered.headers['traceparent']))).toBe(traceId);

      const spans = await waitFor(() => {
        const mine = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
        return mine.some((s) => s.name === 'webhook POST') ? mine : null;
      }, { what: 'the webhook span' });
      const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));

      // gateway: continues the client's span.
      const gateway = spans.find((s) => parentOf(s) === clientSpan)!;
      expect(gateway.name).toMatch(/^POST proxy /);
      // conversations: a child of the gateway's span, from the signed context.
      const service = spans.find((s) => parentOf(s) === gateway.spanContext().spanId)!;
      expect(service.name).toMatch(/^POST \/public\/api\/v1\/inboxes\/:inbox_identifier\/contacts\/:contact_identifier\/conversations\/:[a-z_]+\/messages$/);
      expect(service.attributes['http.response.status_code']).toBe(200);
      // automation: the webhook consumer handled message.created as a child of that request.
      const consumer = spans.find((s) => s.name === 'automation.webhooks process' && s.attributes['parley.event.type'] === 'message.created')!;
      expect(parentOf(consumer)).toBe(service.spanContext().spanId);
      // the delivery: a child of the consumer's span, and the receiver's parent.
      const webhook = spans.find((s) => s.name === 'webhook POST')!;
      expect(parentOf(webhook)).toBe(consumer.spanContext().spanId);
      expect(String(delivered.headers['traceparent']).split('-')[2]).toBe(webhook.spanContext().spanId);
      // Every span of the trace hangs off another span of it (or the client's).
      for (const s of spans) expect([clientSpan, ...byId.keys()]).toContain(parentOf(s));
    });
  });
});
