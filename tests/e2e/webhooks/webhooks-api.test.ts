import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';

/* Webhooks CRUD through the gateway (SPEC op 15 and Chatwoot's other webhook routes), with the production URL policy. */
describe('webhooks through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;

  beforeAll(async () => {
    stack = await startStack({ only: ['automation'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const base = () => `/api/v1/accounts/${acc.accountId}/webhooks`;

  it('when an administrator creates, lists, updates and deletes a webhook, then each answers Chatwoot\'s shape and DELETE answers {}', async () => {
    const url = `https://example.com/hooks/${Date.now()}`;
    const created = await call('POST', base(), { token: acc.admin.token, body: { webhook: { url, subscriptions: ['conversation_created', 'message_created'] } } });
    expect(created.status).toBe(200);
    const hook = created.body.payload.webhook;
    expect(hook).toMatchObject({ url, account_id: acc.accountId, subscriptions: ['conversation_created', 'message_created'] });
    expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);

    const list = await call('GET', base(), { token: acc.admin.token });
    expect(list.body.payload.webhooks).toContainEqual(hook);
    const updated = await call('PATCH', `${base()}/${hook.id}`, { token: acc.admin.token, body: { name: 'CRM sync' } });
    expect(updated.body.payload.webhook).toEqual({ ...hook, name: 'CRM sync' });
    const log = await call('GET', `${base()}/${hook.id}/deliveries`, { token: acc.admin.token });
    expect(log.body).toEqual({ meta: { count: 0, current_page: 1, per_page: 25 }, payload: [] });

    const del = await call('DELETE', `${base()}/${hook.id}`, { token: acc.admin.token });
    expect(del.status).toBe(200);
    expect(del.text).toBe('{}');
    const again = await call('DELETE', `${base()}/${hook.id}`, { token: acc.admin.token });
    expect(again.status).toBe(404);
    expectErrorBody(again.body, 'not_found');
  });

  it('when an agent calls any webhook route, then 403 with the Error body', async () => {
    for (const [method, path] of [
      ['GET', base()],
      ['POST', base()],
      ['DELETE', `${base()}/1`],
    ] as const) {
      const res = await call(method, path, { token: acc.agent.token, body: method === 'POST' ? { url: 'https://example.com/x' } : undefined });
      expect(res.status).toBe(403);
      expectErrorBody(res.body);
    }
  });

  it.each([
    ['a loopback URL', { url: 'http://127.0.0.1:3000/internal' }, 'url'],
    ['a private-network URL', { url: 'http://192.168.1.10/hook' }, 'url'],
    ['a link-local (metadata) URL', { url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
    ['localhost', { url: 'http://localhost:8080/' }, 'url'],
    ['not a URL', { url: 'example' }, 'url'],
    ['an unknown event', { url: 'https://example.com/e', subscriptions: ['conversation_deleted'] }, 'subscriptions.0'],
  ])('when the body has %s, then 422 naming the field', async (_what, body, field) => {
    const res = await call('POST', base(), { token: acc.admin.token, body });
    expect(res.status).toBe(422);
    expectErrorBody(res.body);
    expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  });

  it('when a URL is registered twice, then 409 naming url', async () => {
    const url = `https://example.com/dup/${Date.now()}`;
    expect((await call('POST', base(), { token: acc.admin.token, body: { url } })).status).toBe(200);
    const dup = await call('POST', base(), { token: acc.admin.token, body: { url } });
    expect(dup.status).toBe(409);
    expectErrorBody(dup.body, 'taken');
    expect(dup.body.errors[0].field).toBe('url');
  });
});
