import { Client } from 'pg';
import { PLATFORM_TOKEN, startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor } from '../../support/conversations';

/** Semantics clients rely on (issue 15): unknown teams in the list, Platform removals keep the user, updated_within. */
describe('semantics Chatwoot clients rely on, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const platform = { headers: { api_access_token: PLATFORM_TOKEN } };

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
  });
  afterAll(() => stack?.stop());

  it('when the list or /meta names a team_id that is no team of the account, then 404 (a team of the account filters)', async () => {
    const team = (await call('POST', `${A()}/teams`, { token: acc.admin.token, body: { name: 'Billing' } })).body;
    const other = await seedAccount(stack);
    const foreign = (await call('POST', `/api/v1/accounts/${other.accountId}/teams`, { token: other.admin.token, body: { name: 'Theirs' } })).body;
    const inTeam = await conversationFor(call, acc, inbox, { team_id: team.id });
    await conversationFor(call, acc, inbox);

    const list = await call('GET', `${A()}/conversations?team_id=${team.id}`, { token: acc.admin.token });
    expect(list.status).toBe(200);
    expect(list.body.data.payload.map((c: any) => c.id)).toEqual([inTeam.id]);
    expect((await call('GET', `${A()}/conversations/meta?team_id=${team.id}`, { token: acc.admin.token })).body.meta.all_count).toBe(1);

    for (const teamId of [foreign.id, 999_999]) {
      for (const path of ['/conversations', '/conversations/meta']) {
        const res = await call('GET', `${A()}${path}?team_id=${teamId}`, { token: acc.agent.token });
        expect([path, teamId, res.status]).toEqual([path, teamId, 404]);
        expectErrorBody(res.body, 'not_found');
        expect(res.body.errors[0].field).toBe('team_id');
      }
    }
  });

  it('when the Platform API removes a user from their last account, then the user is kept; the account API deletes such a user', async () => {
    const make = async (email: string) => {
      const u = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'Moved', email, password: 'Secret-pass-1' } });
      expect(u.status).toBe(200);
      await call('POST', `/platform/api/v1/accounts/${acc.accountId}/account_users`, { ...platform, body: { user_id: u.body.id, role: 'agent' } });
      return u.body.id as number;
    };
    const kept = await make(`kept-${Date.now()}@example.com`);
    const removed = await call('DELETE', `/platform/api/v1/accounts/${acc.accountId}/account_users`, { ...platform, body: { user_id: kept } });
    expect(removed.status).toBe(200);
    const still = await call('GET', `/platform/api/v1/users/${kept}`, platform);
    expect(still.status).toBe(200);
    expect(still.body.id).toBe(kept);
    // A platform app moving the user on: the same user joins another account.
    const other = await seedAccount(stack);
    expect((await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: kept, role: 'agent' } })).status).toBe(200);
    expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token })).body.map((a: any) => a.id)).not.toContain(kept);

    const gone = await make(`gone-${Date.now()}@example.com`);
    expect((await call('DELETE', `${A()}/agents/${gone}`, { token: acc.admin.token })).status).toBe(200);
    const after = await call('GET', `/platform/api/v1/users/${gone}`, platform);
    expect(after.status).toBe(404);
    expectErrorBody(after.body, 'not_found');
  });

  it('when the list is asked for updated_within seconds, then every conversation updated since comes, unpaginated, with the counts of the list', async () => {
    const own = await createApiInbox(call, acc, { name: 'Catch-up' });
    const made: number[] = [];
    for (let i = 0; i < 27; i++) made.push((await conversationFor(call, acc, own)).id);
    // Two were last updated two hours ago.
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE conversations.conversations SET updated_at = now() - interval '2 hours' WHERE account_id = $1 AND display_id = ANY($2::int[])`, [acc.accountId, made.slice(0, 2)]);
    } finally {
      await db.end();
    }
    const res = await call('GET', `${A()}/conversations?inbox_id=${own.id}&updated_within=3600`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    expect(res.body.data.payload.map((c: any) => c.id).sort((a: number, b: number) => a - b)).toEqual(made.slice(2));
    // The counts are the list's without updated_within (Chatwoot counts before applying it).
    expect(res.body.data.meta.all_count).toBe(27);
    const wide = await call('GET', `${A()}/conversations?inbox_id=${own.id}&updated_within=86400`, { token: acc.admin.token });
    expect(wide.body.data.payload).toHaveLength(27);
    const bad = await call('GET', `${A()}/conversations?updated_within=soon`, { token: acc.admin.token });
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 'invalid_parameter');
  });
});
