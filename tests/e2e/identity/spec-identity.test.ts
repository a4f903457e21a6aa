import { startStack, PLATFORM_TOKEN, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody, type ApiResponse } from '../../support/http';

/*
 * SPEC operations 8 (`GET /api/v1/profile`) and 12 (`DELETE /api/v1/accounts/{account_id}/agents/{id}`)
 * through the gateway: every field of SPEC's User record and of its account membership items
 * with its JSON type (and null only where SPEC allows it), and the error answers with SPEC's
 * Error body. Every answer is also checked against the OpenAPI document by the client.
 */

type JsonType = 'number' | 'string' | 'boolean' | 'object' | 'array' | 'null';

function typeOf(v: unknown): JsonType | 'undefined' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v as JsonType | 'undefined';
}

/** SPEC "User (profile)": field -> the JSON types SPEC allows. */
const USER_FIELDS: Record<string, JsonType[]> = {
  id: ['number'],
  access_token: ['string'],
  account_id: ['number'],
  available_name: ['string'],
  avatar_url: ['string'],
  confirmed: ['boolean'],
  display_name: ['string', 'null'],
  message_signature: ['string', 'null'],
  email: ['string'],
  hmac_identifier: ['string'],
  inviter_id: ['number', 'null'],
  name: ['string'],
  provider: ['string'],
  pubsub_token: ['string'],
  role: ['string'],
  ui_settings: ['object'],
  uid: ['string'],
  type: ['string', 'null'],
  accounts: ['array'],
};

/** SPEC "Account membership item". */
const MEMBERSHIP_FIELDS: Record<string, JsonType[]> = {
  id: ['number'],
  name: ['string'],
  status: ['string'],
  active_at: ['string', 'null'],
  role: ['string'],
  permissions: ['array'],
  availability: ['string'],
  availability_status: ['string'],
  auto_offline: ['boolean'],
  custom_role_id: ['number', 'null'],
  custom_role: ['object', 'null'],
};

function expectFields(record: any, fields: Record<string, JsonType[]>, what: string): void {
  for (const [field, types] of Object.entries(fields)) {
    expect(`${what}.${field}: ${typeOf(record[field])}`).toMatch(new RegExp(`: (${types.join('|')})$`));
  }
}

function expectUserRecord(u: any): void {
  expectFields(u, USER_FIELDS, 'user');
  expect(['agent', 'administrator']).toContain(u.role);
  expect(Number.isInteger(u.id)).toBe(true);
  expect(u.uid).toBe(u.email);
  if ('custom_attributes' in u) expect(typeOf(u.custom_attributes)).toBe('object');
  expect(u.accounts.length).toBeGreaterThan(0);
  for (const m of u.accounts) {
    expectFields(m, MEMBERSHIP_FIELDS, 'membership');
    expect(['agent', 'administrator']).toContain(m.role);
    expect(m.permissions.every((p: unknown) => typeof p === 'string')).toBe(true);
    if (m.active_at !== null) expect(Number.isNaN(Date.parse(m.active_at))).toBe(false);
  }
}

describe('SPEC operation 8: fetch user profile, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  const platform = { headers: { api_access_token: PLATFORM_TOKEN } };

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  function ok(res: ApiResponse, what: string): any {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  }

  it('when an agent fetches the profile, then the User record has every SPEC field with its type, nullable ones null when unset', async () => {
    const res = await call('GET', '/api/v1/profile', { token: acc.agent.token });
    expect(res.status).toBe(200);
    expectUserRecord(res.body);
    expect(res.body).toMatchObject({
      id: acc.agent.userId,
      access_token: acc.agent.token,
      account_id: acc.accountId,
      available_name: acc.agent.name,
      avatar_url: '',
      display_name: null,
      message_signature: null,
      email: acc.agent.email,
      inviter_id: null,
      name: acc.agent.name,
      role: 'agent',
      type: null,
    });
    expect(res.body).not.toHaveProperty('custom_attributes');
    expect(res.body.accounts).toEqual([
      {
        id: acc.accountId,
        name: expect.any(String),
        status: 'active',
        active_at: null,
        role: 'agent',
        permissions: ['agent'],
        availability: 'online',
        availability_status: 'online',
        auto_offline: true,
        custom_role_id: null,
        custom_role: null,
      },
    ]);
  });

  it('when the optional fields are set, then they come back as strings and numbers, and active_at is a date-time', async () => {
    const mail = `spec-${Date.now()}@example.com`;
    const added = ok(await call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'Invited One', email: mail, role: 'administrator' } }), 'agent');
    const token = ok(await call('POST', `/platform/api/v1/users/${added.id}/token`, platform), 'token').access_token;
    await call('PATCH', `/platform/api/v1/users/${added.id}`, { ...platform, body: { custom_attributes: { plan: 'pro' } } });
    ok(await call('PUT', '/api/v1/profile', { token, body: { display_name: 'Vee', message_signature: '-- V', ui_settings: { theme: 'dark' }, account_id: acc.accountId } }), 'update');
    const res = await call('GET', '/api/v1/profile', { token });
    expect(res.status).toBe(200);
    expectUserRecord(res.body);
    expect(res.body).toMatchObject({
      available_name: 'Vee',
      display_name: 'Vee',
      message_signature: '-- V',
      inviter_id: acc.admin.userId,
      role: 'administrator',
      ui_settings: { theme: 'dark' },
      custom_attributes: { plan: 'pro' },
    });
    expect(res.body.accounts[0].permissions).toEqual(['administrator']);
    expect(new Date(res.body.accounts[0].active_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('when no token, an unknown token or an agent-bot token is sent, then 401, 401 and 403 with the Error body', async () => {
    const none = await call('GET', '/api/v1/profile');
    expect(none.status).toBe(401);
    expectErrorBody(none.body, 'unauthorized');
    const unknown = await call('GET', '/api/v1/profile', { token: 'no-such-token-0000000000' });
    expect(unknown.status).toBe(401);
    expectErrorBody(unknown.body, 'invalid_token');
    const bot = await acc.addBot();
    const byBot = await call('GET', '/api/v1/profile', { token: bot.token });
    expect(byBot.status).toBe(403);
    expectErrorBody(byBot.body, 'bot_forbidden');
  });
});

describe('SPEC operation 12: delete agent, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let other: SeededAccount;

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    other = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const agentPath = (id: number | string, a: SeededAccount = acc) => `/api/v1/accounts/${a.accountId}/agents/${id}`;

  it('when an administrator deletes an agent, then 200 with an empty JSON object, the agent is no longer listed and their token no longer opens the account', async () => {
    const agent = await acc.addUser('agent');
    expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: agent.token })).status).toBe(200);
    const res = await call('DELETE', agentPath(agent.userId), { token: acc.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const list = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token });
    expect(list.body.map((a: { id: number }) => a.id)).not.toContain(agent.userId);
    const after = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: agent.token });
    expect(after.status).toBe(401);
    expectErrorBody(after.body, 'invalid_token');
    const again = await call('DELETE', agentPath(agent.userId), { token: acc.admin.token });
    expect(again.status).toBe(404);
    expectErrorBody(again.body, 'not_found');
  });

  it('when an agent (not an administrator) deletes an agent, then 403 and the agent stays', async () => {
    const target = await acc.addUser('agent');
    const res = await call('DELETE', agentPath(target.userId), { token: acc.agent.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 'forbidden');
    expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: target.token })).status).toBe(200);
  });

  it("when the id is unknown, another account's agent or not a number, then 404 with the Error body", async () => {
    for (const id of [2_000_000_000, other.agent.userId, 'abc']) {
      const res = await call('DELETE', agentPath(id), { token: acc.admin.token });
      expect({ id, status: res.status }).toEqual({ id, status: 404 });
      expectErrorBody(res.body, 'not_found');
    }
    expect((await call('GET', `/api/v1/accounts/${other.accountId}/agents`, { token: other.agent.token })).status).toBe(200);
  });

  it('when the caller has no token, an unknown token, belongs to another account or is a bot, then 401, 401, 403 and 403', async () => {
    const none = await call('DELETE', agentPath(acc.agent.userId));
    expect(none.status).toBe(401);
    expectErrorBody(none.body, 'unauthorized');
    const unknown = await call('DELETE', agentPath(acc.agent.userId), { token: 'no-such-token-0000000000' });
    expect(unknown.status).toBe(401);
    expectErrorBody(unknown.body, 'invalid_token');
    const stranger = await call('DELETE', agentPath(acc.agent.userId), { token: other.admin.token });
    expect(stranger.status).toBe(403);
    expectErrorBody(stranger.body, 'not_account_member');
    const bot = await acc.addBot();
    const byBot = await call('DELETE', agentPath(acc.agent.userId), { token: bot.token });
    expect(byBot.status).toBe(403);
    expectErrorBody(byBot.body, 'bot_forbidden');
    expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.agent.token })).status).toBe(200);
  });
});
