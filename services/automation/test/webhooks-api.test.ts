import { Client } from 'pg';
import type { RunningService } from '@parley/shared';
import { createTestEnv, randomAccountId, type TestEnv, startPeerStub, type PeerStub } from '@parley/testkit';
import type { AutomationConfig } from '../src';
import { apiFor, expectError, startAutomation } from './helpers';
import { apiInbox } from './fixtures';

const DEFAULT_EVENTS = [
  'conversation_status_changed',
  'conversation_updated',
  'conversation_created',
  'contact_created',
  'contact_updated',
  'message_created',
  'message_updated',
  'webwidget_triggered',
];

describe('webhooks API (service level)', () => {
  let env: TestEnv;
  let svc: RunningService<AutomationConfig>;
  let lenient: RunningService<AutomationConfig>;
  let stub: PeerStub;
  let db: Client;

  beforeAll(async () => {
    env = await createTestEnv();
    stub = await startPeerStub();
    svc = await startAutomation(env, { WEBHOOK_ALLOW_PRIVATE: false, CONVERSATIONS_URL: stub.url });
    lenient = await startAutomation(env, { WEBHOOK_ALLOW_PRIVATE: true, CONVERSATIONS_URL: stub.url });
    db = new Client({ connectionString: env.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await svc?.stop();
    await lenient?.stop();
    await stub?.close();
    await env?.close();
  });

  async function outbox(type: string, id: number): Promise<any[]> {
    const { rows } = await db.query(`SELECT payload FROM automation.outbox WHERE routing_key = $1 AND (payload->'data'->>'id')::int = $2 ORDER BY id`, [type, id]);
    return rows.map((r) => r.payload);
  }

  it('when an administrator creates a webhook, then it answers the webhook with a secret and default subscriptions', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    const res = await api('POST', '/webhooks', { url: 'https://example.com/hook' });
    expect(res.status).toBe(200);
    const hook = res.body.payload.webhook;
    expect(hook).toMatchObject({ url: 'https://example.com/hook', account_id: accountId, name: null, subscriptions: DEFAULT_EVENTS });
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(hook).not.toHaveProperty('inbox');

    const list = await api('GET', '/webhooks');
    expect(list.body).toEqual({ payload: { webhooks: [hook] } });
    expect((await api('GET', `/webhooks/${hook.id}`)).body).toEqual({ payload: { webhook: hook } });

    const [ev] = await outbox('webhook.created', hook.id);
    expect(ev.data).toMatchObject({ id: hook.id, url: hook.url, subscriptions: DEFAULT_EVENTS });
    expect(JSON.stringify(ev)).not.toContain(hook.secret);
  });

  it('when the body is wrapped in {webhook: ...} with a name and subscriptions, then they are kept (duplicates once)', async () => {
    const api = apiFor(svc, randomAccountId());
    const res = await api('POST', '/webhooks', { webhook: { url: 'http://example.org/x', name: 'CRM', subscriptions: ['message_created', 'inbox_created', 'message_created'] } });
    expect(res.status).toBe(200);
    expect(res.body.payload.webhook).toMatchObject({ url: 'http://example.org/x', name: 'CRM', subscriptions: ['message_created', 'inbox_created'] });
  });

  it('when a webhook is updated, then the fields change, the secret stays and the event carries the changes without it', async () => {
    const api = apiFor(svc, randomAccountId());
    const hook = (await api('POST', '/webhooks', { url: 'https://example.com/a', subscriptions: ['conversation_created'] })).body.payload.webhook;
    const res = await api('PATCH', `/webhooks/${hook.id}`, { url: 'https://example.com/b', subscriptions: ['message_created'] });
    expect(res.status).toBe(200);
    expect(res.body.payload.webhook).toEqual({ ...hook, url: 'https://example.com/b', subscriptions: ['message_created'] });
    const [ev] = await outbox('webhook.updated', hook.id);
    expect(ev.changes).toEqual({ url: ['https://example.com/a', 'https://example.com/b'], subscriptions: [['conversation_created'], ['message_created']] });
    expect(JSON.stringify(ev)).not.toContain(hook.secret);
    const reset = await api('PUT', `/webhooks/${hook.id}`, { subscriptions: null });
    expect(reset.body.payload.webhook.subscriptions).toEqual(DEFAULT_EVENTS);
  });

  it('when a webhook\'s secret is rotated, then it answers a new secret, keeps it, and the event says the secret changed without either value', async () => {
    const api = apiFor(svc, randomAccountId());
    const hook = (await api('POST', '/webhooks', { url: 'https://example.com/rotate', subscriptions: ['conversation_created'] })).body.payload.webhook;
    const res = await api('POST', `/webhooks/${hook.id}/rotate_secret`);
    expect(res.status).toBe(200);
    const rotated = res.body.payload.webhook;
    expect(rotated.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated).toEqual({ ...hook, secret: rotated.secret });
    expect((await api('GET', `/webhooks/${hook.id}`)).body.payload.webhook.secret).toBe(rotated.secret);
    const [ev] = await outbox('webhook.updated', hook.id);
    expect(ev.changes).toEqual({ secret: ['[FILTERED]', '[FILTERED]'] });
    expect(JSON.stringify(ev)).not.toContain(hook.secret);
    expect(JSON.stringify(ev)).not.toContain(rotated.secret);
    expectError(await api('POST', '/webhooks/999999/rotate_secret'), 404, 'webhook_id');
    expectError(await apiFor(svc, randomAccountId())('POST', `/webhooks/${hook.id}/rotate_secret`), 404);
    expectError(await api('POST', `/webhooks/${hook.id}/rotate_secret`, undefined, { role: 'agent' }), 403);
    expect((await api('GET', `/webhooks/${hook.id}`)).body.payload.webhook.secret).toBe(rotated.secret);
  });

  it('when a webhook is deleted, then it answers {} and is gone, with a webhook.deleted event', async () => {
    const api = apiFor(svc, randomAccountId());
    const hook = (await api('POST', '/webhooks', { url: 'https://example.com/del' })).body.payload.webhook;
    const res = await api('DELETE', `/webhooks/${hook.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await api('GET', `/webhooks/${hook.id}`), 404);
    expectError(await api('DELETE', `/webhooks/${hook.id}`), 404);
    expect(await outbox('webhook.deleted', hook.id)).toHaveLength(1);
  });

  it('when the inbox_id is one of the account\'s inboxes, then the answer names it; an unknown inbox is 422', async () => {
    const accountId = randomAccountId();
    stub.addInbox(apiInbox(accountId, 41, { name: 'Support API' }));
    const api = apiFor(svc, accountId);
    const res = await api('POST', '/webhooks', { url: 'https://example.com/inbox', inbox_id: 41 });
    expect(res.status).toBe(200);
    expect(res.body.payload.webhook.inbox).toEqual({ id: 41, name: 'Support API' });
    expect((await api('GET', '/webhooks')).body.payload.webhooks[0].inbox).toEqual({ id: 41, name: 'Support API' });
    expectError(await api('POST', '/webhooks', { url: 'https://example.com/inbox2', inbox_id: 42 }), 422, 'inbox_id');
  });

  it('when the same URL is registered twice in an account, then 409 naming url; another account may use it', async () => {
    const api = apiFor(svc, randomAccountId());
    expect((await api('POST', '/webhooks', { url: 'https://example.com/same' })).status).toBe(200);
    const dup = await api('POST', '/webhooks', { url: 'https://example.com/same' });
    expectError(dup, 409, 'url');
    expect((await apiFor(svc, randomAccountId())('POST', '/webhooks', { url: 'https://example.com/same' })).status).toBe(200);
  });

  const badBodies: Array<[string, unknown, string]> = [
    ['url missing', {}, 'url'],
    ['url not a URL', { url: 'not a url' }, 'url'],
    ['url with another scheme', { url: 'ftp://example.com/x' }, 'url'],
    ['url on loopback', { url: 'http://127.0.0.1:8080/hook' }, 'url'],
    ['url on localhost', { url: 'http://localhost/hook' }, 'url'],
    ['url on a private network', { url: 'http://10.1.2.3/hook' }, 'url'],
    ['url on link-local (cloud metadata)', { url: 'http://169.254.169.254/latest' }, 'url'],
    ['url on IPv6 loopback', { url: 'http://[::1]/hook' }, 'url'],
    ['url on an IPv4-mapped private address', { url: 'http://[::ffff:192.168.1.1]/hook' }, 'url'],
    ['an unknown subscription', { url: 'https://example.com/s', subscriptions: ['everything'] }, 'subscriptions.0'],
    ['empty subscriptions', { url: 'https://example.com/s', subscriptions: [] }, 'subscriptions'],
    ['subscriptions not an array', { url: 'https://example.com/s', subscriptions: 'message_created' }, 'subscriptions'],
    ['inbox_id not a number', { url: 'https://example.com/s', inbox_id: 'abc' }, 'inbox_id'],
    ['name not a string', { url: 'https://example.com/s', name: 12 }, 'name'],
  ];
  it.each(badBodies.map(([what, body, field]) => [what, field, body] as const))('when the body has %s, then 422 naming %s', async (_what, field, body) => {
    const res = await apiFor(svc, randomAccountId())('POST', '/webhooks', body);
    expectError(res, 422, field);
  });

  it('when private targets are allowed (WEBHOOK_ALLOW_PRIVATE=true), then a loopback URL is accepted', async () => {
    const res = await apiFor(lenient, randomAccountId())('POST', '/webhooks', { url: 'http://127.0.0.1:8080/hook' });
    expect(res.status).toBe(200);
  });

  it('when an agent calls, then 403 for every webhook route; another account\'s webhook is 404', async () => {
    const accountId = randomAccountId();
    const api = apiFor(svc, accountId);
    const hook = (await api('POST', '/webhooks', { url: 'https://example.com/agent' })).body.payload.webhook;
    const agent = { role: 'agent' as const };
    expectError(await api('GET', '/webhooks', undefined, agent), 403);
    expectError(await api('POST', '/webhooks', { url: 'https://example.com/z' }, agent), 403);
    expectError(await api('PATCH', `/webhooks/${hook.id}`, { name: 'x' }, agent), 403);
    expectError(await api('DELETE', '/webhooks/999999', undefined, agent), 403);
    expectError(await api('GET', `/webhooks/${hook.id}/deliveries`, undefined, agent), 403);
    const other = apiFor(svc, randomAccountId());
    expectError(await other('GET', `/webhooks/${hook.id}`), 404);
    expectError(await other('PATCH', `/webhooks/${hook.id}`, { name: 'x' }), 404);
    expectError(await other('DELETE', `/webhooks/${hook.id}`), 404);
    expectError(await other('GET', `/webhooks/${hook.id}/deliveries`), 404);
    expect((await api('GET', `/webhooks/${hook.id}`)).status).toBe(200);
  });

  it('when a webhook has no deliveries yet, then its log is an empty page; a bad filter is 400', async () => {
    const api = apiFor(svc, randomAccountId());
    const hook = (await api('POST', '/webhooks', { url: 'https://example.com/log' })).body.payload.webhook;
    expect((await api('GET', `/webhooks/${hook.id}/deliveries`)).body).toEqual({ meta: { count: 0, current_page: 1, per_page: 25 }, payload: [] });
    expect((await api('GET', '/webhooks/deliveries?kind=inbox')).body.payload).toEqual([]);
    expectError(await api('GET', '/webhooks/deliveries?status=lost'), 400);
  });
});
