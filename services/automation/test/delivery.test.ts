import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Client } from 'pg';
import type { RunningService } from '@parley/shared';
import { createTestEnv, randomAccountId, waitFor, type TestEnv, startPeerStub, userFixture, type PeerStub } from '@parley/testkit';
import type { AutomationConfig } from '../src';
import { apiFor, refundRule } from './helpers';
import { contactActor, createBus, envelope, userActor, type TestBus } from './bus';
import { startReceiver, type Received, type Receiver } from './receiver';
import { agent, apiInbox, contact, conversation, message } from './fixtures';
import { startAutomation } from './helpers';
import { finishAttempts } from '../src/webhooks/deliveries-repository';

/** What a receiver does to check a delivery: HMAC over "{timestamp}.{raw body}" with the webhook's secret. */
function verify(req: Received, secret: string): boolean {
  const ts = String(req.headers['x-chatwoot-timestamp']);
  const given = String(req.headers['x-chatwoot-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', secret).update(`${ts}.${req.body}`).digest('hex')}`;
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

describe('webhook delivery', () => {
  let env: TestEnv;
  let svc: RunningService<AutomationConfig>;
  let stub: PeerStub;
  let bus: TestBus;
  const receivers: Receiver[] = [];
  let seq = 0;

  beforeAll(async () => {
    env = await createTestEnv();
    stub = await startPeerStub();
    svc = await startAutomation(env, {
      CONVERSATIONS_URL: stub.url,
      CONTACTS_URL: stub.url,
      GATEWAY_INTERNAL_URL: stub.url,
      WEBHOOK_RETRY_BASE_MS: 100,
      WEBHOOK_RETRY_MAX_DELAY_MS: 400,
      WEBHOOK_MAX_ATTEMPTS: 4,
      WEBHOOK_TIMEOUT_MS: 1500,
      WEBHOOK_PER_URL_CONCURRENCY: 2,
      PEER_LOOKUP_TIMEOUT_MS: 300,
      PEER_LOOKUP_BACKOFF_MS: 60_000,
    });
    bus = createBus(env.namespace);
  });
  afterAll(async () => {
    await bus?.close();
    await svc?.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await stub?.close();
    await env?.close();
  });

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  /** An account (named, with an API inbox and a contact the stub knows) and one conversation. */
  function setup() {
    const accountId = randomAccountId();
    seq += 1;
    stub.addAccount(accountId, { name: `Acme ${seq}` });
    stub.addInbox(apiInbox(accountId, 1, { name: 'Website API' }));
    stub.addContact(accountId, contact(accountId, 1, { name: 'Jane Doe' }));
    const conv = conversation(accountId, seq);
    return { accountId, conv, api: apiFor(svc, accountId) };
  }

  async function hook(api: ReturnType<typeof apiFor>, url: string, subscriptions?: string[]): Promise<any> {
    const res = await api('POST', '/webhooks', { url, ...(subscriptions ? { subscriptions } : {}) });
    expect(res.status).toBe(200);
    return res.body.payload.webhook;
  }

  it('when a message is created, then a subscribed receiver gets a Chatwoot-shaped payload it can verify', async () => {
    const { accountId, conv, api } = setup();
    const rx = await receiver();
    const wh = await hook(api, rx.url, ['message_created']);
    const msg = message(conv, { content: 'Where is my parcel?' });
    await bus.publish(envelope('message.created', accountId, msg));

    const [req] = await waitFor(() => (rx.received.length === 1 ? rx.received : null), { what: 'delivery' });
    expect(req).toBeDefined();
    const got = req as Received;
    expect(verify(got, wh.secret)).toBe(true);
    expect(verify(got, 'not-the-secret')).toBe(false);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-chatwoot-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Number(got.headers['x-chatwoot-timestamp']) - Date.now() / 1000)).toBeLessThan(600);
    expect(got.json).toMatchObject({
      event: 'message_created',
      id: msg['id'],
      content: 'Where is my parcel?',
      message_type: 'incoming',
      private: false,
      account: { id: accountId, name: stub.accounts.get(accountId)?.name },
      inbox: { id: 1, name: 'Website API' },
      conversation: { id: conv['id'], inbox_id: 1, status: 'open', labels: [], meta: { sender: { id: 1, name: 'Jane Doe', email: 'jane@example.com' } } },
      sender: { id: 1, name: 'Jane Doe' },
    });
    expect(typeof got.json.created_at).toBe('string');

    const log = await waitFor(async () => {
      const res = await api('GET', `/webhooks/${wh.id}/deliveries`);
      return res.body.payload[0]?.status === 'succeeded' ? res.body : null;
    });
    expect(log.meta.count).toBe(1);
    expect(log.payload[0]).toMatchObject({
      delivery_id: got.headers['x-chatwoot-delivery'],
      kind: 'webhook',
      webhook_id: wh.id,
      event: 'message_created',
      attempts: 1,
      last_status_code: 200,
      attempt_log: [{ attempt: 1, status_code: 200, error: null }],
    });
  });

  it('when a conversation is assigned after messages, then its payload carries Chatwoot\'s meta.assignee, meta.team and the last public message', async () => {
    const { accountId, conv, api } = setup();
    stub.addAgent(accountId, 42, { name: 'Ada Lovelace', available_name: 'Ada', email: 'ada@example.com', thumbnail: 'https://cdn.example.com/ada.png' });
    stub.addTeam({ id: 3, name: 'Billing', description: '', allow_auto_assign: true, account_id: accountId });
    const rx = await receiver();
    await hook(api, rx.url, ['conversation_updated', 'message_created']);
    const incoming = message(conv, { content: 'My invoice is wrong', created_at: 1_700_000_000 });
    const note = message(conv, { content: 'checking with finance', private: true, message_type: 1, sender_type: 'User', sender_id: 42 });
    // One after the other: the consumer handles a batch concurrently, and the note's payload
    // should see the incoming message as the conversation's last one.
    await bus.publish(envelope('message.created', accountId, incoming));
    await waitFor(() => rx.received.some((r) => r.json.event === 'message_created' && r.json.id === incoming['id']), { what: 'incoming delivery' });
    await bus.publish(envelope('message.created', accountId, note, { actor: userActor }));
    await waitFor(() => rx.received.filter((r) => r.json.event === 'message_created').length === 2, { what: 'message deliveries' });

    const waitingSince = 1_700_000_000;
    const assigned = { ...conv, assignee_id: 42, team_id: 3, waiting_since: null };
    await bus.publish(
      envelope('conversation.updated', accountId, assigned, { actor: userActor, changes: { assignee_id: [null, 42], team_id: [null, 3], waiting_since: [waitingSince, null] } }),
    );
    const got = await waitFor(() => rx.received.find((r) => r.json.event === 'conversation_updated'), { what: 'conversation_updated' });
    expect(got.json.meta).toEqual({
      sender: { additional_attributes: { city: 'Lisbon', country_code: 'PT', company_name: 'Acme' }, custom_attributes: {}, email: 'jane@example.com', id: 1, identifier: null, name: 'Jane Doe', phone_number: '+15550001111', thumbnail: '', blocked: false, type: 'contact' },
      assignee: { id: 42, name: 'Ada Lovelace', available_name: 'Ada', avatar_url: 'https://cdn.example.com/ada.png', type: 'user', availability_status: 'online', thumbnail: 'https://cdn.example.com/ada.png' },
      assignee_type: 'User',
      team: { id: 3, name: 'Billing' },
      hmac_verified: false,
    });
    // The last public message (the private note does not count), as push data: integer type, unix created_at.
    expect(got.json.messages).toHaveLength(1);
    expect(got.json.messages[0]).toMatchObject({
      id: incoming['id'],
      content: 'My invoice is wrong',
      message_type: 0,
      created_at: 1_700_000_000,
      updated_at: new Date(1_700_000_000_000).toISOString(),
      private: false,
      conversation_id: conv['id'],
      sender_type: 'Contact',
      sender: { id: 1, name: 'Jane Doe', type: 'contact' },
      conversation: { assignee_id: 42, unread_count: 0 },
    });
    // Timestamps in changed_attributes are ISO-8601, as Chatwoot serialises previous_changes.
    expect(got.json.changed_attributes).toEqual([
      { assignee_id: { previous_value: null, current_value: 42 } },
      { team_id: { previous_value: null, current_value: 3 } },
      { waiting_since: { previous_value: new Date(waitingSince * 1000).toISOString(), current_value: null } },
    ]);

    // The note's own delivery: a user sender is Chatwoot's user webhook_data; the conversation's messages still show the last public one.
    const noteDelivery = rx.received.find((r) => r.json.event === 'message_created' && r.json.id === note['id']);
    expect(noteDelivery?.json).toMatchObject({ private: true, message_type: 'outgoing', sender: { id: 42, name: 'Ada Lovelace', email: 'ada@example.com', type: 'user' } });
    expect(noteDelivery?.json.conversation.messages.map((m: any) => m.id)).toEqual([incoming['id']]);
    // A contact sender is Chatwoot's contact webhook_data: account and avatar, no type.
    const incomingDelivery = rx.received.find((r) => r.json.event === 'message_created' && r.json.id === incoming['id']);
    expect(incomingDelivery?.json.sender).toEqual({
      account: { id: accountId, name: stub.accounts.get(accountId)?.name },
      additional_attributes: { city: 'Lisbon', country_code: 'PT', company_name: 'Acme' },
      avatar: '',
      custom_attributes: {},
      email: 'jane@example.com',
      id: 1,
      identifier: null,
      name: 'Jane Doe',
      phone_number: '+15550001111',
      thumbnail: '',
      blocked: false,
    });
  });

  it('when agent, user and team events arrive, then later payloads show the names they carry (no lookup needed)', async () => {
    const { accountId, conv, api } = setup();
    const rx = await receiver();
    await hook(api, rx.url, ['conversation_created', 'conversation_typing_on']);
    // Unknown to the gateway stub: only the events can name them.
    await bus.publish(
      envelope('agent.added', accountId, agent(accountId, 77, { name: 'Grace Hopper', available_name: 'Grace' }), { actor: userActor }),
      envelope('team.created', accountId, { id: 9, name: 'Escalations', description: '', allow_auto_assign: false, account_id: accountId }, { actor: userActor }),
    );
    await waitFor(async () => (await svc.deps.pool.query(`SELECT 1 FROM projections WHERE account_id = $1 AND kind IN ('agent', 'team')`, [accountId])).rowCount === 2, { what: 'projections' });
    const userRenamed = envelope('user.updated', accountId, userFixture(77, { name: 'Grace B. Hopper', display_name: 'Amazing Grace', email: 'grace@example.com' }), { actor: userActor });
    await bus.publish({ ...userRenamed, account_id: null });
    await waitFor(async () => (await svc.deps.pool.query(`SELECT 1 FROM projections WHERE account_id = $1 AND kind = 'agent' AND data->>'name' = 'Grace B. Hopper'`, [accountId])).rowCount === 1, {
      what: 'renamed agent',
    });

    await bus.publish(
      envelope('conversation.created', accountId, { ...conv, assignee_id: 77, team_id: 9 }, { actor: userActor }),
      envelope('conversation.typing_on', accountId, { ...conv, is_private: true }, { actor: { type: 'user', id: 77, name: 'Grace' } }),
    );
    const created = await waitFor(() => rx.received.find((r) => r.json.event === 'conversation_created'), { what: 'conversation_created' });
    expect(created.json.meta.assignee).toMatchObject({ id: 77, name: 'Grace B. Hopper', available_name: 'Amazing Grace', type: 'user' });
    expect(created.json.meta.team).toEqual({ id: 9, name: 'Escalations' });
    const typing = await waitFor(() => rx.received.find((r) => r.json.event === 'conversation_typing_on'), { what: 'typing' });
    expect(typing.json.user).toEqual({ id: 77, name: 'Grace B. Hopper', email: 'grace@example.com', type: 'user' });
    expect(typing.json.is_private).toBe(true);
    expect(typing.json.conversation).toMatchObject({ id: conv['id'], meta: { sender: { id: 1, name: 'Jane Doe' } } });

    // A contact typing is named by the contact's webhook_data; an assignee no one knows goes out with its id only.
    await bus.publish(
      envelope('conversation.typing_on', accountId, { ...conv, assignee_id: 404, is_private: false }, { actor: contactActor }),
    );
    const byContact = await waitFor(() => rx.received.find((r) => r.json.event === 'conversation_typing_on' && r.json.user?.id === 1), { what: 'contact typing' });
    expect(byContact.json.user).toMatchObject({ id: 1, name: 'Jane Doe', email: 'jane@example.com', account: { id: accountId } });
    expect(byContact.json.conversation.meta.assignee).toEqual({ id: 404, name: null, available_name: null, avatar_url: '', type: 'user', availability_status: null, thumbnail: '' });
  });

  it('when a receiver fails twice, then the retries carry the same delivery id, each signed, until it succeeds', async () => {
    const { accountId, conv, api } = setup();
    const rx = await receiver();
    rx.respond = (_req, i) => ({ status: i === 0 ? 500 : i === 1 ? 503 : 200 });
    const wh = await hook(api, rx.url, ['conversation_created']);
    await bus.publish(envelope('conversation.created', accountId, conv, { actor: userActor }));

    await waitFor(() => rx.received.length === 3, { what: 'three attempts' });
    const ids = rx.received.map((r) => r.headers['x-chatwoot-delivery']);
    expect(new Set(ids).size).toBe(1);
    for (const r of rx.received) expect(verify(r, wh.secret)).toBe(true);
    expect(rx.received[0]?.json).toMatchObject({ event: 'conversation_created', id: conv['id'], account: { id: accountId } });
    expect(rx.received[2]?.body).toBe(rx.received[0]?.body);

    const d = await waitFor(async () => {
      const res = await api('GET', `/webhooks/${wh.id}/deliveries`);
      return res.body.payload[0]?.status === 'succeeded' ? res.body.payload[0] : null;
    });
    expect(d).toMatchObject({ delivery_id: ids[0], attempts: 3, last_status_code: 200 });
    expect(d.attempt_log.map((a: any) => a.status_code)).toEqual([500, 503, 200]);
    expect(d.attempt_log[0].error).toMatch(/^HTTP 500/);
  });

  it('when a sender died mid-send (attempt counted, lease run out, nothing recorded), then the retry goes out under the same delivery id and the cut-off attempt is in the log as interrupted', async () => {
    const { accountId, api } = setup();
    const rx = await receiver();
    const wh = await hook(api, rx.url, ['conversation_created']);
    const deliveryId = randomUUID();
    // The state a crash leaves: claimDueDeliveries counted attempt 1 and leased the row; the
    // process died before finishAttempt; the lease has run out.
    const db = new Client({ connectionString: env.db.url });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO automation.webhook_deliveries (account_id, kind, webhook_id, url, dedupe_key, delivery_id, event, payload, attempts, next_attempt_at)
         VALUES ($1, 'webhook', $2, $3, $4, $5, 'conversation_created', '{"event":"conversation_created"}', 1, now())`,
        [accountId, wh.id, rx.url, `crash-${deliveryId}`, deliveryId],
      );
    } finally {
      await db.end();
    }
    await waitFor(() => rx.received.length === 1, { what: 'the retry' });
    expect(rx.received[0]?.headers['x-chatwoot-delivery']).toBe(deliveryId);
    const d = await waitFor(async () => {
      const res = await api('GET', `/webhooks/${wh.id}/deliveries`);
      return res.body.payload[0]?.status === 'succeeded' ? res.body.payload[0] : null;
    });
    expect(d.attempts).toBe(2);
    expect(d.attempt_log.map((a: any) => [a.attempt, a.status_code])).toEqual([
      [1, null],
      [2, 200],
    ]);
    expect(d.attempt_log[0].error).toMatch(/^interrupted/);
  });

  it('when the secret is rotated while a delivery waits for its retry, then the retry is signed with the new secret', async () => {
    const { accountId, conv, api } = setup();
    const rx = await receiver();
    let rotated: string | null = null;
    let rotationDone: () => void = () => undefined;
    const rotation = new Promise<void>((resolve) => (rotationDone = resolve));
    // Fails until the secret has been rotated, so the retries straddle the rotation. An attempt made
    // before it is answered only once it is done: on a slow machine the retries (100-400 ms apart,
    // four attempts) could otherwise all fail before the rotation's request is answered.
    rx.respond = async () => (rotated ? { status: 200 } : (await rotation, { status: 503 }));
    const wh = await hook(api, rx.url, ['conversation_created']);
    await bus.publish(envelope('conversation.created', accountId, conv, { actor: userActor }));
    await waitFor(() => rx.received.length >= 1, { what: 'first attempt' });
    const res = await api('POST', `/webhooks/${wh.id}/rotate_secret`);
    expect(res.status).toBe(200);
    rotated = res.body.payload.webhook.secret as string;
    rotationDone();
    const ok = await waitFor(() => rx.received.find((r) => verify(r, rotated as string)), { what: 'a retry signed with the new secret' });
    expect(verify(rx.received[0] as Received, wh.secret)).toBe(true);
    expect(verify(ok, wh.secret)).toBe(false);
    expect(ok.headers['x-chatwoot-delivery']).toBe(rx.received[0]?.headers['x-chatwoot-delivery']);
  });

  it('when a receiver keeps failing, then the delivery goes dead after the last attempt; a 4xx fails at once', async () => {
    const { accountId, conv, api } = setup();
    const down = await receiver();
    down.respond = () => ({ status: 502 });
    const refusing = await receiver();
    refusing.respond = () => ({ status: 410 });
    const h1 = await hook(api, down.url, ['conversation_created']);
    const h2 = await hook(api, refusing.url, ['conversation_created']);
    await bus.publish(envelope('conversation.created', accountId, conv, { actor: userActor }));

    const dead = await waitFor(async () => {
      const res = await api('GET', `/webhooks/${h1.id}/deliveries`);
      return res.body.payload[0]?.status === 'dead' ? res.body.payload[0] : null;
    }, { what: 'dead delivery' });
    expect(dead).toMatchObject({ attempts: 4, next_attempt_at: null, last_status_code: 502 });
    expect(down.received).toHaveLength(4);
    const failed = (await api('GET', `/webhooks/${h2.id}/deliveries`)).body.payload[0];
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
    expect(refusing.received).toHaveLength(1);
    const byStatus = await api('GET', '/webhooks/deliveries?status=dead');
    expect(byStatus.body.payload.map((x: any) => x.webhook_id)).toEqual([h1.id]);
  });

  it('when one receiver hangs, then it holds at most its per-URL slots and the others still get every delivery', async () => {
    const { accountId, api } = setup();
    const slow = await receiver();
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    slow.respond = async () => {
      await released;
      return { status: 200 };
    };
    const fast = await receiver();
    await hook(api, slow.url, ['conversation_created']);
    await hook(api, fast.url, ['conversation_created']);
    const events = Array.from({ length: 12 }, (_, i) => envelope('conversation.created', accountId, conversation(accountId, 1000 + i), { actor: userActor }));
    await bus.publish(...events);

    await waitFor(() => new Set(fast.received.map((r) => r.headers['x-chatwoot-delivery'])).size === 12, { what: 'all fast deliveries', timeoutMs: 30_000 });
    expect(slow.maxActive).toBeLessThanOrEqual(2);
    expect(slow.received.length).toBeGreaterThan(0);
    release();
    await waitFor(() => new Set(slow.received.map((r) => r.headers['x-chatwoot-delivery'])).size === 12, { what: 'slow deliveries after release', timeoutMs: 30_000 });
    expect(slow.maxActive).toBeLessThanOrEqual(2);
  });

  it('when an API inbox has a webhook_url, then its conversation and message events go there, signed with the inbox token', async () => {
    const { accountId, conv } = setup();
    const rx = await receiver();
    const inbox = apiInbox(accountId, 7, { webhook_url: rx.url, hmac_token: 'inbox-7-token' });
    await bus.publish(envelope('inbox.created', accountId, inbox, { actor: userActor }));
    await waitFor(async () => (await svc.deps.pool.query(`SELECT 1 FROM projections WHERE account_id = $1 AND kind = 'inbox' AND id = 7 AND data->>'webhook_url' IS NOT NULL`, [accountId])).rowCount === 1, {
      what: 'inbox projection',
    });
    const c7 = { ...conv, inbox_id: 7 };
    await bus.publish(
      envelope('message.created', accountId, message(c7, { content: 'hi there' })),
      envelope('message.created', accountId, message(c7, { message_type: 2, content: 'activity', sender_type: null, sender_id: null })),
      envelope('contact.created', accountId, contact(accountId, 1)),
      envelope('conversation.status_changed', accountId, { ...c7, status: 'resolved' }, { actor: userActor, changes: { status: ['open', 'resolved'] } }),
    );
    await waitFor(() => rx.received.length === 2, { what: 'two inbox deliveries' });
    const events = rx.received.map((r) => r.json.event).sort();
    expect(events).toEqual(['conversation_status_changed', 'message_created']);
    for (const r of rx.received) expect(verify(r, 'inbox-7-token')).toBe(true);
    const changed = rx.received.find((r) => r.json.event === 'conversation_status_changed');
    expect(changed?.json.changed_attributes).toEqual([{ status: { previous_value: 'open', current_value: 'resolved' } }]);
    const log = await apiFor(svc, accountId)('GET', '/webhooks/deliveries?inbox_id=7&kind=inbox');
    expect(log.body.payload).toHaveLength(2);
  });

  it('when an API inbox is deleted, then what still waits for its webhook_url is dropped (it would go out unsigned)', async () => {
    const { accountId, conv } = setup();
    const rx = await receiver();
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    rx.respond = async () => {
      await released;
      return { status: 503 };
    };
    const inbox = apiInbox(accountId, 8, { webhook_url: rx.url });
    await bus.publish(envelope('inbox.created', accountId, inbox, { actor: userActor }));
    await waitFor(async () => (await svc.deps.pool.query(`SELECT 1 FROM projections WHERE account_id = $1 AND kind = 'inbox' AND id = 8 AND data->>'webhook_url' IS NOT NULL`, [accountId])).rowCount === 1, { what: 'inbox projection' });
    await bus.publish(envelope('message.created', accountId, message({ ...conv, inbox_id: 8 }, { content: 'to a doomed inbox' })));
    await waitFor(() => rx.received.length === 1, { what: 'attempt in flight' });

    await bus.publish(envelope('inbox.deleted', accountId, inbox, { actor: userActor }));
    const pending = () => svc.deps.pool.query(`SELECT 1 FROM webhook_deliveries WHERE account_id = $1 AND kind = 'inbox' AND inbox_id = 8`, [accountId]);
    await waitFor(async () => (await pending()).rowCount === 0, { what: 'pending delivery dropped' });
    release();
    await waitFor(() => rx.active === 0, { what: 'attempt answered' });
    expect((await apiFor(svc, accountId)('GET', '/webhooks/deliveries?inbox_id=8')).body.payload).toEqual([]);
  });

  it('when subscriptions leave an event out, then that receiver does not get it', async () => {
    const { accountId, conv, api } = setup();
    const onlyCreated = await receiver();
    const all = await receiver();
    await hook(api, onlyCreated.url, ['conversation_created']);
    await hook(api, all.url);
    await bus.publish(
      envelope('conversation.updated', accountId, { ...conv, priority: 'high' }, { actor: userActor, changes: { priority: [null, 'high'] } }),
      envelope('conversation.created', accountId, conv, { actor: userActor }),
    );
    await waitFor(() => all.received.length === 2 && onlyCreated.received.length === 1, { what: 'deliveries' });
    expect(onlyCreated.received[0]?.json.event).toBe('conversation_created');
    const updated = all.received.find((r) => r.json.event === 'conversation_updated');
    expect(updated?.json).toMatchObject({ priority: 'high', changed_attributes: [{ priority: { previous_value: null, current_value: 'high' } }] });
  });

  it('when a rule sends a webhook event, then the URL gets the conversation with event automation_event.<name>', async () => {
    const { accountId, conv, api } = setup();
    const rx = await receiver();
    const res = await api('POST', '/automation_rules', { ...refundRule, actions: [{ action_name: 'send_webhook_event', action_params: [rx.url] }] });
    expect(res.status).toBe(200);
    const ev = envelope('message.created', accountId, message(conv, { content: 'refund please' }));
    await bus.publish(ev, ev);
    await waitFor(() => rx.received.length === 1, { what: 'rule webhook' });
    expect(rx.received[0]?.json).toMatchObject({ event: 'automation_event.message_created', id: conv['id'], account: { id: accountId } });
    // Not an account webhook URL: nothing to sign with.
    expect(rx.received[0]?.headers['x-chatwoot-signature']).toBeUndefined();
    const log = await api('GET', `/webhooks/deliveries?rule_id=${res.body.payload[0].id}`);
    expect(log.body.payload).toHaveLength(1);
  });
  // Last in the file: it leaves agent lookups switched off for the backoff.
  it('when the gateway hangs on agent lookups, then deliveries go out with the assignee minimal and only the first one waits for it', async () => {
    const { accountId, conv, api } = setup();
    const rx = await receiver();
    await hook(api, rx.url, ['conversation_created']);
    stub.hang.add('agents');
    const before = stub.lookups.agents;
    await bus.publish(envelope('conversation.created', accountId, { ...conv, assignee_id: 601 }, { actor: userActor }));
    const first = await waitFor(() => rx.received.find((r) => r.json.meta.assignee?.id === 601), { what: 'first delivery' });
    expect(first.json.meta.assignee).toMatchObject({ id: 601, name: null, type: 'user' });
    // The first payload asks for its assignee and its actor at once (the kit reads misses in parallel).
    const afterFirst = stub.lookups.agents;
    expect(afterFirst).toBeGreaterThan(before);

    await bus.publish(...[602, 603, 604].map((id) => envelope('conversation.created', accountId, { ...conv, id: conv['id'] + id, assignee_id: id }, { actor: userActor })));
    await waitFor(() => rx.received.length === 4, { what: 'the other deliveries' });
    expect(rx.received.map((r) => r.json.meta.assignee.name)).toEqual([null, null, null, null]);
    // The breaker was open: nobody else asked the hung gateway.
    expect(stub.lookups.agents).toBe(afterFirst);
  });

  it('when several attempts are recorded together, then each delivery moves on by its own outcome and each attempt is logged once', async () => {
    const { accountId, api } = setup();
    const wh = await hook(api, 'http://127.0.0.1:9/never', ['conversation_created']);
    const db = new Client({ connectionString: env.db.url });
    await db.connect();
    try {
      // Attempt 1 counted and leased for an hour: the running sender leaves them alone.
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO automation.webhook_deliveries (account_id, kind, webhook_id, url, dedupe_key, delivery_id, event, payload, attempts, next_attempt_at)
         SELECT $1, 'webhook', $2, 'http://127.0.0.1:9/never', 'together-' || g || '-' || $3, gen_random_uuid(), 'conversation_created', '{}', 1, now() + interval '1 hour'
         FROM generate_series(1, 3) g ORDER BY g RETURNING id`,
        [accountId, wh.id, randomUUID()],
      );
      const [ok, retry, refused] = rows.map((r) => r.id) as [string, string, string];
      await finishAttempts(svc.deps.pool, [
        { id: ok, status: 'succeeded', attempt: 1, statusCode: 200, error: null, durationMs: 12.4, retryInMs: null },
        { id: retry, status: 'pending', attempt: 1, statusCode: 503, error: null, durationMs: 30, retryInMs: 60_000 },
        { id: refused, status: 'failed', attempt: 1, statusCode: 404, error: null, durationMs: 5, retryInMs: null },
      ]);
      const after = await db.query(
        `SELECT d.id, d.status, d.last_status_code, d.next_attempt_at > now() + interval '50 seconds' AS later, d.next_attempt_at IS NULL AS done,
                (SELECT json_agg(json_build_array(a.attempt, a.status_code, a.duration_ms)) FROM automation.webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS log
           FROM automation.webhook_deliveries d WHERE d.id = ANY($1::bigint[]) ORDER BY d.id`,
        [[ok, retry, refused]],
      );
      expect(after.rows.map((r) => [r.status, r.last_status_code, r.later, r.done, r.log])).toEqual([
        ['succeeded', 200, null, true, [[1, 200, 12]]],
        ['pending', 503, true, false, [[1, 503, 30]]],
        ['failed', 404, null, true, [[1, 404, 5]]],
      ]);
    } finally {
      await db.end();
    }
  });
});
