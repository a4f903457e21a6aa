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
describe('webhook deliveries through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let bus: TestBus;
  let acc: SeededAccount;
  let rx: Receiver;

  beforeAll(async () => {
    stack = await startStack({ only: ['automation'], service: { automation: { WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_RETRY_BASE_MS: 100, WEBHOOK_RETRY_MAX_DELAY_MS: 300, WEBHOOK_POLL_MS: 50 } } });
    call = client(stack.gatewayUrl);
    bus = createBus(stack.env.namespace);
    acc = await seedAccount(stack);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await bus?.close();
    await stack?.stop();
  });

  it('when a receiver fails twice, then it gets the same signed delivery three times and the log shows each attempt', async () => {
    rx.respond = (_req, i) => ({ status: i < 2 ? 500 : 200 });
    const created = await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks`, { token: acc.admin.token, body: { url: rx.url, subscriptions: ['conversation_created'] } });
    expect(created.status).toBe(200);
    const hook = created.body.payload.webhook;
    await bus.publish(envelope('conversation.created', acc.accountId, conversation(acc.accountId, 1), { actor: userActor }));

    await waitFor(() => rx.received.length === 3, { what: 'three attempts' });
    expect(new Set(rx.received.map((r) => r.headers['x-chatwoot-delivery'])).size).toBe(1);
    for (const r of rx.received) {
      const expected = `sha256=${createHmac('sha256', hook.secret).update(`${r.headers['x-chatwoot-timestamp']}.${r.body}`).digest('hex')}`;
      expect(r.headers['x-chatwoot-signature']).toBe(expected);
    }
    const account = (await call('GET', `/api/v1/accounts/${acc.accountId}`, { token: acc.admin.token })).body;
    expect(rx.received[2]?.json).toMatchObject({ event: 'conversation_created', id: 1, account: { id: acc.accountId, name: account.name } });

    const log = await waitFor(async () => {
      const res = await call('GET', `/api/v1/accounts/${acc.accountId}/webhooks/${hook.id}/deliveries`, { token: acc.admin.token });
      return res.body.payload[0]?.status === 'succeeded' ? res.body.payload[0] : null;
    });
    expect(log).toMatchObject({ delivery_id: rx.received[0]?.headers['x-chatwoot-delivery'], attempts: 3 });
    expect(log.attempt_log.map((a: any) => a.status_code)).toEqual([500, 500, 200]);
  });

  it('when an administrator rotates the secret, then later deliveries verify with the new secret only', async () => {
    const own = await startReceiver();
    const created = await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks`, { token: acc.admin.token, body: { url: own.url, subscriptions: ['conversation_created'] } });
    expect(created.status).toBe(200);
    const hook = created.body.payload.webhook;
    const rotated = await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks/${hook.id}/rotate_secret`, { token: acc.admin.token });
    expect(rotated.status).toBe(200);
    const secret = rotated.body.payload.webhook.secret;
    expect(secret).not.toBe(hook.secret);
    expect((await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks/${hook.id}/rotate_secret`, { token: acc.agent.token })).status).toBe(403);

    await bus.publish(envelope('conversation.created', acc.accountId, conversation(acc.accountId, 2), { actor: userActor }));
    const got = await waitFor(() => own.received.find((r) => r.json?.id === 2), { what: 'delivery after rotation' }).finally(() => own.close());
    const sign = (key: string) => `sha256=${createHmac('sha256', key).update(`${got.headers['x-chatwoot-timestamp']}.${got.body}`).digest('hex')}`;
    expect(got.headers['x-chatwoot-signature']).toBe(sign(secret));
    expect(got.headers['x-chatwoot-signature']).not.toBe(sign(hook.secret));
  });
});

describe('webhook deliveries when the sender polls rarely', () => {
  let stack: Stack;
  let bus: TestBus;
  let acc: SeededAccount;
  let rx: Receiver;

  beforeAll(async () => {
    // The sender's idle poll a minute apart: a delivery sent within seconds was woken by the fan-out's commit.
    stack = await startStack({ only: ['automation'], service: { automation: { WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_POLL_MS: 60_000 } } });
    bus = createBus(stack.env.namespace);
    acc = await seedAccount(stack);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await bus?.close();
    await stack?.stop();
  });

  it('when the fan-out commits a delivery, then the sender sends it at once, not at its next poll', async () => {
    const call = client(stack.gatewayUrl);
    const created = await call('POST', `/api/v1/accounts/${acc.accountId}/webhooks`, { token: acc.admin.token, body: { url: rx.url, subscriptions: ['conversation_created'] } });
    expect(created.status).toBe(200);
    // The sender's first poll (at its start) is behind it: it now waits out its minute.
    await new Promise((r) => setTimeout(r, 1000));
    const sent = Date.now();
    await bus.publish(envelope('conversation.created', acc.accountId, conversation(acc.accountId, 7), { actor: userActor }));
    await waitFor(() => rx.received.length === 1, { timeoutMs: 20_000, what: 'the delivery, well before the next poll' });
    expect(Date.now() - sent).toBeLessThan(20_000);
    expect(rx.received[0]?.json).toMatchObject({ event: 'conversation_created', id: 7 });
  });
});
