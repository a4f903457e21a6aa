import { createHmac } from 'node:crypto';
import { conversationFixture as conversation, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createBus, envelope, userActor, type TestBus } from '../../../services/automation/test/bus';
import { startReceiver, type Receiver } from '../../../services/automation/test/receiver';

/*
 * Deliveries of webhooks made through the gateway, fed by conversation events published on
 * the file's bus (the producer's side is the conversations service's to test), with the
 * account name coming from the real gateway. Receivers are real local HTTP servers, so
 * private targets are allowed here and retries are quick.
 */

/**
 * The automation service behind the gateway with `settings` (private targets allowed: receivers
 * are local), the file's bus, a seeded account and a receiver, for the describe that calls it.
 */
function deliveryStack(settings: Record<string, unknown>) {
  const t = {} as { stack: Stack; call: ReturnType<typeof client>; bus: TestBus; acc: SeededAccount; rx: Receiver };
  beforeAll(async () => {
    t.stack = await startStack({ only: ['automation'], service: { automation: { WEBHOOK_ALLOW_PRIVATE: true, ...settings } } });
    t.call = client(t.stack.gatewayUrl);
    t.bus = createBus(t.stack.env.namespace);
    t.acc = await seedAccount(t.stack);
    t.rx = await startReceiver();
  });
  afterAll(async () => {
    await t.rx?.close();
    await t.bus?.close();
    await t.stack?.stop();
  });
  return t;
}

describe('webhook deliveries through the gateway', () => {
  const t = deliveryStack({ WEBHOOK_RETRY_BASE_MS: 100, WEBHOOK_RETRY_MAX_DELAY_MS: 300, WEBHOOK_POLL_MS: 50 });

  it('when a receiver fails twice, then it gets the same signed delivery three times and the log shows each attempt', async () => {
    t.rx.respond = (_req, i) => ({ status: i < 2 ? 500 : 200 });
    const created = await t.call('POST', `/api/v1/accounts/${t.acc.accountId}/webhooks`, { token: t.acc.admin.token, body: { url: t.rx.url, subscriptions: ['conversation_created'] } });
    expect(created.status).toBe(200);
    const hook = created.body.payload.webhook;
    await t.bus.publish(envelope('conversation.created', t.acc.accountId, conversation(t.acc.accountId, 1), { actor: userActor }));

    await waitFor(() => t.rx.received.length === 3, { what: 'three attempts' });
    expect(new Set(t.rx.received.map((r) => r.headers['x-chatwoot-delivery'])).size).toBe(1);
    for (const r of t.rx.received) {
      const expected = `sha256=${createHmac('sha256', hook.secret).update(`${r.headers['x-chatwoot-timestamp']}.${r.body}`).digest('hex')}`;
      expect(r.headers['x-chatwoot-signature']).toBe(expected);
    }
    const account = (await t.call('GET', `/api/v1/accounts/${t.acc.accountId}`, { token: t.acc.admin.token })).body;
    expect(t.rx.received[2]?.json).toMatchObject({ event: 'conversation_created', id: 1, account: { id: t.acc.accountId, name: account.name } });

    const log = await waitFor(async () => {
      const res = await t.call('GET', `/api/v1/accounts/${t.acc.accountId}/webhooks/${hook.id}/deliveries`, { token: t.acc.admin.token });
      return res.body.payload[0]?.status === 'succeeded' ? res.body.payload[0] : null;
    });
    expect(log).toMatchObject({ delivery_id: t.rx.received[0]?.headers['x-chatwoot-delivery'], attempts: 3 });
    expect(log.attempt_log.map((a: any) => a.status_code)).toEqual([500, 500, 200]);
  });

  it('when an administrator rotates the secret, then later deliveries verify with the new secret only', async () => {
    const own = await startReceiver();
    const created = await t.call('POST', `/api/v1/accounts/${t.acc.accountId}/webhooks`, { token: t.acc.admin.token, body: { url: own.url, subscriptions: ['conversation_created'] } });
    expect(created.status).toBe(200);
    const hook = created.body.payload.webhook;
    const rotated = await t.call('POST', `/api/v1/accounts/${t.acc.accountId}/webhooks/${hook.id}/rotate_secret`, { token: t.acc.admin.token });
    expect(rotated.status).toBe(200);
    const secret = rotated.body.payload.webhook.secret;
    expect(secret).not.toBe(hook.secret);
    expect((await t.call('POST', `/api/v1/accounts/${t.acc.accountId}/webhooks/${hook.id}/rotate_secret`, { token: t.acc.agent.token })).status).toBe(403);

    await t.bus.publish(envelope('conversation.created', t.acc.accountId, conversation(t.acc.accountId, 2), { actor: userActor }));
    const got = await waitFor(() => own.received.find((r) => r.json?.id === 2), { what: 'delivery after rotation' }).finally(() => own.close());
    const sign = (key: string) => `sha256=${createHmac('sha256', key).update(`${got.headers['x-chatwoot-timestamp']}.${got.body}`).digest('hex')}`;
    expect(got.headers['x-chatwoot-signature']).toBe(sign(secret));
    expect(got.headers['x-chatwoot-signature']).not.toBe(sign(hook.secret));
  });
});

describe('webhook deliveries when the sender polls rarely', () => {
  // The sender's idle poll a minute apart: a delivery sent within seconds was woken by the fan-out's commit.
  const t = deliveryStack({ WEBHOOK_POLL_MS: 60_000 });

  it('when the fan-out commits a delivery, then the sender sends it at once, not at its next poll', async () => {
    const created = await t.call('POST', `/api/v1/accounts/${t.acc.accountId}/webhooks`, { token: t.acc.admin.token, body: { url: t.rx.url, subscriptions: ['conversation_created'] } });
    expect(created.status).toBe(200);
    // The sender's first poll (at its start) is behind it: it now waits out its minute.
    await new Promise((r) => setTimeout(r, 1000));
    const sent = Date.now();
    await t.bus.publish(envelope('conversation.created', t.acc.accountId, conversation(t.acc.accountId, 7), { actor: userActor }));
    await waitFor(() => t.rx.received.length === 1, { timeoutMs: 20_000, what: 'the delivery, well before the next poll' });
    expect(Date.now() - sent).toBeLessThan(20_000);
    expect(t.rx.received[0]?.json).toMatchObject({ event: 'conversation_created', id: 7 });
  });
});
