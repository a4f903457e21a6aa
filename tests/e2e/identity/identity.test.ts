import { execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { Executor } from '@parley/shared';
import { asCaller, tapEvents, waitFor, type EventTap } from '@parley/testkit';
import { hashToken, PrincipalStore } from '../../../services/gateway/src/auth/principals';
import { PLATFORM_TOKEN, startStack, type Stack } from '../../support/stack';
import { seedAccount, seedAccountDirectly, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { PNG_1X1, sendForm } from '../../support/contacts';

const USER_KEYS = [
  'id', 'access_token', 'account_id', 'available_name', 'avatar_url', 'confirmed', 'display_name', 'message_signature', 'email', 'hmac_identifier',
  'inviter_id', 'name', 'provider', 'pubsub_token', 'role', 'ui_settings', 'uid', 'type', 'accounts',
];
const MEMBERSHIP_KEYS = ['id', 'name', 'status', 'active_at', 'role', 'permissions', 'availability', 'availability_status', 'auto_offline', 'custom_role_id', 'custom_role'];

describe('identity through the gateway: platform API, profile, agents, teams, bots', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let tap: EventTap;
  let acc: SeededAccount;
  let other: SeededAccount;
  const platform = { headers: { api_access_token: PLATFORM_TOKEN } };

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    tap = await tapEvents(stack.env.namespace);
    acc = await seedAccount(stack);
    other = await seedAccount(stack);
  });
  afterAll(async () => {
    await tap?.close();
    await stack?.stop();
  });

  const email = () => `u-${Math.random().toString(36).slice(2, 10)}@example.com`;

  describe('Platform API bootstrap', () => {
    it('when a platform app creates an account, a user and an administrator membership, then the token opens the profile with the SPEC User record', async () => {
      const account = await call('POST', '/platform/api/v1/accounts', { ...platform, body: { name: 'Bootstrap Inc', features: { audit_logs: true } } });
      expect(account.status).toBe(200);
      expect(account.body).toMatchObject({ name: 'Bootstrap Inc', locale: 'en', status: 'active', features: { audit_logs: true }, limits: {} });
      const mail = email();
      const user = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'Boot Admin', email: mail, password: 'Secret-pass-1' } });
      expect(user.status).toBe(200);
      expect(typeof user.body.access_token).toBe('string');
      expect(user.body.access_token).toHaveLength(24);
      const membership = await call('POST', `/platform/api/v1/accounts/${account.body.id}/account_users`, { ...platform, body: { user_id: user.body.id, role: 'administrator' } });
      expect(membership.status).toBe(200);
      expect(membership.body).toMatchObject({ account_id: account.body.id, user_id: user.body.id, role: 'administrator' });

      const profile = await call('GET', '/api/v1/profile', { token: user.body.access_token });
      expect(profile.status).toBe(200);
      expect(Object.keys(profile.body).sort()).toEqual([...USER_KEYS].sort());
      expect(profile.body).toMatchObject({
        id: user.body.id,
        access_token: user.body.access_token,
        account_id: account.body.id,
        available_name: 'Boot Admin',
        avatar_url: '',
        confirmed: true,
        email: mail,
        uid: mail,
        name: 'Boot Admin',
        provider: 'email',
        role: 'administrator',
        type: null,
        ui_settings: {},
      });
      expect(profile.body.hmac_identifier).toMatch(/^[0-9a-f]{64}$/);
      expect(profile.body.accounts).toHaveLength(1);
      expect(Object.keys(profile.body.accounts[0]).sort()).toEqual([...MEMBERSHIP_KEYS].sort());
      expect(profile.body.accounts[0]).toMatchObject({ id: account.body.id, name: 'Bootstrap Inc', role: 'administrator', permissions: ['administrator'], status: 'active' });

      // The new administrator can act on the account at once.
      const agents = await call('GET', `/api/v1/accounts/${account.body.id}/agents`, { token: user.body.access_token });
      expect(agents.status).toBe(200);
      expect(agents.body.map((a: { email: string }) => a.email)).toEqual([mail]);
    });

    it('when a user with that email exists, then the Platform API answers that user unchanged', async () => {
      const mail = email();
      const first = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'First', email: mail } });
      const again = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'Second', email: mail.toUpperCase() } });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, name: 'First', access_token: first.body.access_token });
    });

    it('when the platform token is missing or wrong, or a user token is used, then 401 with the Error body', async () => {
      for (const headers of [{}, { api_access_token: 'wrong-platform-token-xxxxxxx' }, { api_access_token: acc.admin.token }] as Array<Record<string, string>>) {
        const res = await call('GET', '/platform/api/v1/accounts', { headers });
        expect(res.status).toBe(401);
        expectErrorBody(res.body);
      }
    });

    it('when platform bodies are bad, then 422 naming the field or 400 for malformed JSON, and unknown records 404', async () => {
      const noName = await call('POST', '/platform/api/v1/accounts', { ...platform, body: { locale: 'en' } });
      expect(noName.status).toBe(422);
      expectErrorBody(noName.body, 'invalid_type');
      expect(noName.body.errors[0].field).toBe('name');
      const badEmail = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'X', email: 'not-an-email' } });
      expect(badEmail.status).toBe(422);
      expect(badEmail.body.errors[0].field).toBe('email');
      const weak = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'X', email: email(), password: 'short' } });
      expect(weak.status).toBe(422);
      expect(weak.body.errors[0].field).toBe('password');
      const malformed = await call('POST', '/platform/api/v1/accounts', { ...platform, raw: '{"name": ' });
      expect(malformed.status).toBe(400);
      expectErrorBody(malformed.body, 'malformed_json');
      const unknownUser = await call('POST', `/platform/api/v1/accounts/${acc.accountId}/account_users`, { ...platform, body: { user_id: 2_000_000_000, role: 'agent' } });
      expect(unknownUser.status).toBe(422);
      expect(unknownUser.body.errors[0].field).toBe('user_id');
      const missing = await call('GET', '/platform/api/v1/accounts/2000000000', platform);
      expect(missing.status).toBe(404);
      expectErrorBody(missing.body, 'not_found');
    });

    it('when a platform app issues a user token, then it answers the token with the user summary', async () => {
      const res = await call('POST', `/platform/api/v1/users/${acc.agent.userId}/token`, platform);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ access_token: acc.agent.token, expiry: null, user: expect.objectContaining({ id: acc.agent.userId, email: acc.agent.email }) });
    });
  });

  describe('auth matrix', () => {
    it('when no token or an unknown token is sent, then 401 on profile and agents', async () => {
      for (const path of ['/api/v1/profile', `/api/v1/accounts/${acc.accountId}/agents`]) {
        const none = await call('GET', path);
        expect(none.status).toBe(401);
        expectErrorBody(none.body, 'unauthorized');
        const bogus = await call('GET', path, { token: 'bogus-token-123' });
        expect(bogus.status).toBe(401);
        expectErrorBody(bogus.body, 'invalid_token');
      }
    });

    it('when the header is spelled Api-Access-Token in any case, then it is accepted', async () => {
      for (const name of ['Api-Access-Token', 'API_ACCESS_TOKEN', 'api-access-token']) {
        const res = await call('GET', '/api/v1/profile', { headers: { [name]: acc.agent.token } });
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(acc.agent.userId);
      }
    });

    it("when a member of another account calls, then 403; an unknown account is 404", async () => {
      const res = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: other.admin.token });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 'not_account_member');
      const unknown = await call('GET', '/api/v1/accounts/2000000000/agents', { token: acc.admin.token });
      expect(unknown.status).toBe(404);
      expectErrorBody(unknown.body, 'not_found');
    });

    it('when an agent lists agents, then 200; when an agent creates, changes or deletes one, then 403', async () => {
      const list = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.agent.token });
      expect(list.status).toBe(200);
      expect(list.body.map((a: { id: number }) => a.id).sort()).toEqual([acc.admin.userId, acc.agent.userId].sort());
      const create = await call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.agent.token, body: { name: 'Nope', email: email() } });
      expect(create.status).toBe(403);
      expectErrorBody(create.body, 'forbidden');
      const patch = await call('PATCH', `/api/v1/accounts/${acc.accountId}/agents/${acc.admin.userId}`, { token: acc.agent.token, body: { role: 'agent' } });
      expect(patch.status).toBe(403);
      const del = await call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${acc.admin.userId}`, { token: acc.agent.token });
      expect(del.status).toBe(403);
      const unknown = await call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/2000000000`, { token: acc.agent.token });
      expect(unknown.status).toBe(404);
    });

    it('when an agent-bot token calls the profile or agents, then 403 bot_forbidden', async () => {
      const bot = await acc.addBot();
      const profile = await call('GET', '/api/v1/profile', { token: bot.token });
      expect(profile.status).toBe(403);
      expectErrorBody(profile.body, 'bot_forbidden');
      const agents = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: bot.token });
      expect(agents.status).toBe(403);
      expectErrorBody(agents.body, 'bot_forbidden');
      const elsewhere = await call('POST', `/api/v1/accounts/${other.accountId}/conversations`, { token: bot.token, body: {} });
      expect(elsewhere.status).toBe(403);
      expectErrorBody(elsewhere.body, 'not_account_member');
    });
  });

  describe('agents (SPEC operation 12)', () => {
    it('when an administrator adds an agent, then it is listed, its token works, and agent.added is published', async () => {
      const mail = email();
      const res = await call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'Nina New', email: mail, role: 'agent' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ account_id: acc.accountId, name: 'Nina New', email: mail, role: 'agent', availability_status: 'online', confirmed: true, thumbnail: '' });
      const ev = await tap.next('agent.added', (e) => e.data['id'] === res.body.id);
      expect(ev.account_id).toBe(acc.accountId);
      expect(ev.actor).toMatchObject({ type: 'user', id: acc.admin.userId });
      const again = await call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'Nina', email: mail } });
      expect(again.status).toBe(422);
      expect(again.body.errors[0].field).toBe('email');
    });

    it('when an administrator adds a new user as an agent, then that user has no password: a password change is refused whatever current password is given', async () => {
      const res = await call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'Ivo Invited', email: email(), role: 'agent' } });
      expect(res.status).toBe(200);
      const token = await call('POST', `/platform/api/v1/users/${res.body.id}/token`, platform);
      expect(token.status).toBe(200);
      for (const current of ['', 'guess-1A!']) {
        const change = await call('PUT', '/api/v1/profile', { token: token.body.access_token, body: { current_password: current, password: 'New-pass-22!', password_confirmation: 'New-pass-22!' } });
        expect(change.status).toBe(422);
        expectErrorBody(change.body, 'invalid_current_password');
      }
    });

    it('when an administrator deletes an agent, then 200 {} and that agent is refused at once, although it was cached', async () => {
      const agent = await acc.addUser('agent');
      expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: agent.token })).status).toBe(200);
      const del = await call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${agent.userId}`, { token: acc.admin.token });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({});
      // Their only account is gone, so (as in Chatwoot) the user and token are gone too.
      const after = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: agent.token });
      expect(after.status).toBe(401);
      const ev = await tap.next('agent.removed', (e) => e.data['id'] === agent.userId);
      expect(ev.account_id).toBe(acc.accountId);
      const list = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token });
      expect(list.body.map((a: { id: number }) => a.id)).not.toContain(agent.userId);
    });

    it('when an agent of two accounts is removed from one, then that account refuses them (403) and the other still works', async () => {
      const agent = await acc.addUser('agent');
      await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: agent.userId, role: 'agent' } });
      expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: agent.token })).status).toBe(200);
      expect((await call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${agent.userId}`, { token: acc.admin.token })).status).toBe(200);
      const removed = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: agent.token });
      expect(removed.status).toBe(403);
      expectErrorBody(removed.body, 'not_account_member');
      expect((await call('GET', `/api/v1/accounts/${other.accountId}/agents`, { token: agent.token })).status).toBe(200);
      const profile = await call('GET', '/api/v1/profile', { token: agent.token });
      expect(profile.body.accounts.map((a: { id: number }) => a.id)).toEqual([other.accountId]);
    });

    it('when an agent is promoted to administrator, then their next request has the new role', async () => {
      const agent = await acc.addUser('agent');
      expect((await call('POST', `/api/v1/accounts/${acc.accountId}/teams`, { token: agent.token, body: { name: `t-${agent.userId}` } })).status).toBe(403);
      const patch = await call('PATCH', `/api/v1/accounts/${acc.accountId}/agents/${agent.userId}`, { token: acc.admin.token, body: { role: 'administrator', availability: 'busy' } });
      expect(patch.status).toBe(200);
      expect(patch.body).toMatchObject({ role: 'administrator', availability_status: 'busy' });
      const ev = await tap.next('agent.updated', (e) => e.data['id'] === agent.userId);
      expect(ev.changes).toMatchObject({ role: ['agent', 'administrator'] });
      expect((await call('POST', `/api/v1/accounts/${acc.accountId}/teams`, { token: agent.token, body: { name: `t-${agent.userId}` } })).status).toBe(200);
    });

    it("when an administrator renames an agent, then user.updated announces it (the name shows in all of the user's accounts)", async () => {
      const agent = await acc.addUser('agent');
      await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: agent.userId, role: 'agent' } });
      const res = await call('PATCH', `/api/v1/accounts/${acc.accountId}/agents/${agent.userId}`, { token: acc.admin.token, body: { name: 'Renamed Agent' } });
      expect(res.status).toBe(200);
      const ev = await tap.next('user.updated', (e) => e.data['id'] === agent.userId);
      expect(ev.changes).toMatchObject({ name: [agent.name, 'Renamed Agent'] });
      const elsewhere = await call('GET', `/api/v1/accounts/${other.accountId}/agents`, { token: other.admin.token });
      expect(elsewhere.body.find((a: { id: number }) => a.id === agent.userId).name).toBe('Renamed Agent');
    });

    it('when an agent is renamed and removed at once, then both finish (no deadlock) and the agent is gone', async () => {
      for (let i = 0; i < 3; i++) {
        const agent = await acc.addUser('agent');
        const [rename, remove] = await Promise.all([
          call('PATCH', `/api/v1/accounts/${acc.accountId}/agents/${agent.userId}`, { token: acc.admin.token, body: { name: `Busy ${i}` } }),
          call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${agent.userId}`, { token: acc.admin.token }),
        ]);
        expect([200, 404]).toContain(rename.status);
        expect(remove.status).toBe(200);
        expect((await call('GET', '/api/v1/profile', { token: agent.token })).status).toBe(401);
      }
    });

    it('when agent bodies are bad, then 422 naming the field', async () => {
      const res = await call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'X', email: email(), role: 'owner' } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe('role');
      const extra = await call('PATCH', `/api/v1/accounts/${acc.accountId}/agents/${acc.agent.userId}`, { token: acc.admin.token, body: { availability: 'sleeping' } });
      expect(extra.status).toBe(422);
      expect(extra.body.errors[0].field).toBe('availability');
    });
  });

  describe('profile (SPEC operation 8)', () => {
    it('when a user updates the profile, then the fields change, ui_settings is replaced and phone_number lands in custom_attributes', async () => {
      const u = await acc.addUser('agent');
      await call('PUT', '/api/v1/profile', { token: u.token, body: { profile: { ui_settings: { a: 1, b: 2 } } } });
      const res = await call('PUT', '/api/v1/profile', { token: u.token, body: { display_name: 'Dee', message_signature: 'Cheers', ui_settings: { c: 3 }, phone_number: '+14155550100' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ display_name: 'Dee', available_name: 'Dee', message_signature: 'Cheers', ui_settings: { c: 3 }, custom_attributes: { phone_number: '+14155550100' } });
      const again = await call('GET', '/api/v1/profile', { token: u.token });
      expect(again.body.ui_settings).toEqual({ c: 3 });
    });

    it('when the password is changed without or with a wrong current password, then 422 on current_password', async () => {
      const mail = email();
      const user = await call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'Pat', email: mail, password: 'Secret-pass-1' } });
      const token = user.body.access_token;
      const missing = await call('PUT', '/api/v1/profile', { token, body: { password: 'New-pass-22!', password_confirmation: 'New-pass-22!' } });
      expect(missing.status).toBe(422);
      expect(missing.body.errors.map((e: { field: string }) => e.field)).toContain('current_password');
      const wrong = await call('PUT', '/api/v1/profile', { token, body: { current_password: 'nope', password: 'New-pass-22!', password_confirmation: 'New-pass-22!' } });
      expect(wrong.status).toBe(422);
      expectErrorBody(wrong.body, 'invalid_current_password');
      const mismatch = await call('PUT', '/api/v1/profile', { token, body: { current_password: 'Secret-pass-1', password: 'New-pass-22!', password_confirmation: 'Other-pass-22!' } });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.errors[0].field).toBe('password_confirmation');
      const ok = await call('PUT', '/api/v1/profile', { token, body: { current_password: 'Secret-pass-1', password: 'New-pass-22!', password_confirmation: 'New-pass-22!' } });
      expect(ok.status).toBe(200);
    });

    it('when a user resets the access token, then the old token is refused at once and the new one works', async () => {
      const u = await acc.addUser('agent');
      const res = await call('POST', '/api/v1/profile/reset_access_token', { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body.access_token).not.toBe(u.token);
      expect((await call('GET', '/api/v1/profile', { token: u.token })).status).toBe(401);
      expect((await call('GET', '/api/v1/profile', { token: res.body.access_token })).status).toBe(200);
    });

    it('when the profile form uploads a picture as multipart (Chatwoot sends profile[avatar]), then avatar_url serves it and agents see it', async () => {
      const u = await acc.addUser('agent');
      const form = new FormData();
      form.set('profile[name]', 'Pictured Person');
      form.set('profile[account_id]', String(acc.accountId));
      form.set('profile[avatar]', new Blob([PNG_1X1], { type: 'image/png' }), 'me.png');
      const res = await sendForm(stack.gatewayUrl, 'PUT', '/api/v1/profile', form, u.token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Pictured Person', account_id: acc.accountId });
      const url: string = res.body.avatar_url;
      expect(url).toContain('/public/api/v1/user_avatars/');
      const img = await fetch(stack.gatewayUrl + new URL(url).pathname);
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await img.arrayBuffer()).equals(PNG_1X1)).toBe(true);
      const agents = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: u.token });
      expect(agents.body.find((a: { id: number }) => a.id === u.userId).thumbnail).toBe(url);
      const ev = await tap.next('user.updated', (e) => e.data['id'] === u.userId && 'thumbnail' in (e.changes ?? {}));
      expect(ev.changes?.['thumbnail']).toEqual(['', url]);

      // The flat field name works too; a new upload gets a new URL and the old one is gone.
      const again = new FormData();
      again.set('avatar', new Blob([PNG_1X1], { type: 'image/png' }), 'me2.png');
      const second = await sendForm(stack.gatewayUrl, 'PATCH', '/api/v1/profile', again, u.token);
      expect(second.status).toBe(200);
      expect(second.body.avatar_url).not.toBe(url);
      expect((await fetch(stack.gatewayUrl + new URL(url).pathname)).status).toBe(404);

      // A picture by URL replaces the upload; DELETE /profile/avatar clears it.
      const byUrl = await call('PUT', '/api/v1/profile', { token: u.token, body: { avatar_url: 'https://img.example.com/me.png' } });
      expect(byUrl.body.avatar_url).toBe('https://img.example.com/me.png');
      expect((await fetch(stack.gatewayUrl + new URL(second.body.avatar_url).pathname)).status).toBe(404);
      const cleared = await call('DELETE', '/api/v1/profile/avatar', { token: u.token });
      expect(cleared.status).toBe(200);
      expect(cleared.body.avatar_url).toBe('');
    });

    it('when the profile form carries a file that is not an image, or under another name, then 422 naming it and nothing changes', async () => {
      const u = await acc.addUser('agent');
      const bad = new FormData();
      bad.set('profile[name]', 'Never Saved');
      bad.set('profile[avatar]', new Blob(['%PDF-1.4 not an image'], { type: 'image/png' }), 'x.png');
      const refused = await sendForm(stack.gatewayUrl, 'PUT', '/api/v1/profile', bad, u.token);
      expect(refused.status).toBe(422);
      expectErrorBody(refused.body, 'invalid_type');
      expect(refused.body.errors[0].field).toBe('avatar');
      const stray = new FormData();
      stray.set('picture', new Blob([PNG_1X1], { type: 'image/png' }), 'x.png');
      const strayRes = await sendForm(stack.gatewayUrl, 'PUT', '/api/v1/profile', stray, u.token);
      expect(strayRes.status).toBe(422);
      expectErrorBody(strayRes.body, 'unexpected_file');
      expect((await call('GET', '/api/v1/profile', { token: u.token })).body).toMatchObject({ name: u.name, avatar_url: '' });
      expect((await fetch(`${stack.gatewayUrl}/public/api/v1/user_avatars/not-a-real-token-000000`)).status).toBe(404);
    });

    it('when the profile body is malformed or has unknown fields, then 400 / 422 with the Error body', async () => {
      const malformed = await call('PUT', '/api/v1/profile', { token: acc.agent.token, raw: '{bad' });
      expect(malformed.status).toBe(400);
      expectErrorBody(malformed.body, 'malformed_json');
      const unknown = await call('PUT', '/api/v1/profile', { token: acc.agent.token, body: { role: 'administrator' } });
      expect(unknown.status).toBe(422);
      expectErrorBody(unknown.body, 'unrecognized_keys');
    });
  });

  describe('teams', () => {
    it('when an administrator creates a team and adds members, then members are listed and outsiders are refused with 422', async () => {
      const team = await call('POST', `/api/v1/accounts/${acc.accountId}/teams`, { token: acc.admin.token, body: { name: `Billing ${Date.now()}`, description: 'Money' } });
      expect(team.status).toBe(200);
      expect(team.body).toMatchObject({ account_id: acc.accountId, description: 'Money', allow_auto_assign: true, is_member: false });
      const base = `/api/v1/accounts/${acc.accountId}/teams/${team.body.id}/team_members`;
      const add = await call('POST', base, { token: acc.admin.token, body: { user_ids: [acc.agent.userId] } });
      expect(add.status).toBe(200);
      expect(add.body.map((a: { id: number }) => a.id)).toEqual([acc.agent.userId]);
      const outsider = await call('POST', base, { token: acc.admin.token, body: { user_ids: [other.agent.userId] } });
      expect(outsider.status).toBe(422);
      expect(outsider.body.errors[0].field).toBe('user_ids');
      const mine = await call('GET', `/api/v1/accounts/${acc.accountId}/teams/${team.body.id}`, { token: acc.agent.token });
      expect(mine.body.is_member).toBe(true);
      const set = await call('PATCH', base, { token: acc.admin.token, body: { user_ids: [acc.admin.userId] } });
      expect(set.body.map((a: { id: number }) => a.id)).toEqual([acc.admin.userId]);
      await tap.next('team_member.removed', (e) => e.data['team_id'] === team.body.id && e.data['user_id'] === acc.agent.userId);
      const dup = await call('POST', `/api/v1/accounts/${acc.accountId}/teams`, { token: acc.admin.token, body: { name: team.body.name.toUpperCase() } });
      expect(dup.status).toBe(409);
      expect(dup.body.errors[0].field).toBe('name');
      expect((await call('DELETE', `/api/v1/accounts/${acc.accountId}/teams/${team.body.id}`, { token: acc.agent.token })).status).toBe(403);
      expect((await call('DELETE', `/api/v1/accounts/${acc.accountId}/teams/${team.body.id}`, { token: acc.admin.token })).body).toEqual({});
      expect((await call('GET', `/api/v1/accounts/${acc.accountId}/teams/${team.body.id}`, { token: acc.admin.token })).status).toBe(404);
    });

    it("when a team of another account is addressed, then 404", async () => {
      const team = await call('POST', `/api/v1/accounts/${other.accountId}/teams`, { token: other.admin.token, body: { name: `Other ${Date.now()}` } });
      const res = await call('GET', `/api/v1/accounts/${acc.accountId}/teams/${team.body.id}`, { token: acc.admin.token });
      expect(res.status).toBe(404);
      expectErrorBody(res.body, 'not_found');
    });
  });

  describe('agent bots', () => {
    it('when an administrator creates a bot, then its token works on bot endpoints only, and a reset revokes the old token', async () => {
      const bot = await call('POST', `/api/v1/accounts/${acc.accountId}/agent_bots`, { token: acc.admin.token, body: { name: 'Helper', outgoing_url: 'https://bots.example.com/hook' } });
      expect(bot.status).toBe(200);
      expect(bot.body).toMatchObject({ name: 'Helper', account_id: acc.accountId, bot_type: 'webhook', system_bot: false });
      expect(typeof bot.body.access_token).toBe('string');
      const listByAgent = await call('GET', `/api/v1/accounts/${acc.accountId}/agent_bots`, { token: acc.agent.token });
      expect(listByAgent.status).toBe(200);
      expect(listByAgent.body.find((b: { id: number }) => b.id === bot.body.id)).not.toHaveProperty('access_token');
      expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: bot.body.access_token })).status).toBe(403);
      const reset = await call('POST', `/api/v1/accounts/${acc.accountId}/agent_bots/${bot.body.id}/reset_access_token`, { token: acc.admin.token });
      expect(reset.body.access_token).not.toBe(bot.body.access_token);
      expect((await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: bot.body.access_token })).status).toBe(401);
      const bad = await call('POST', `/api/v1/accounts/${acc.accountId}/agent_bots`, { token: acc.admin.token, body: { name: 'X', outgoing_url: 'ftp://x' } });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].field).toBe('outgoing_url');
    });
  });

  describe('principal cache invalidation (every change that affects a cached token)', () => {
    /** A request that caches the token's principal (and the account's settings) in Redis. */
    const warm = async (token: string, accountId: number) => expect((await call('GET', `/api/v1/accounts/${accountId}/agents`, { token })).status).toBe(200);

    it('when a user is renamed through the Platform API, then the next request acts under the new name', async () => {
      const u = await acc.addUser('administrator');
      await warm(u.token, acc.accountId);
      expect((await call('PATCH', `/platform/api/v1/users/${u.userId}`, { ...platform, body: { name: 'Renamed Person' } })).status).toBe(200);
      const team = await call('POST', `/api/v1/accounts/${acc.accountId}/teams`, { token: u.token, body: { name: `renamed-${u.userId}` } });
      expect(team.status).toBe(200);
      const ev = await tap.next('team.created', (e) => e.data['id'] === team.body.id);
      expect(ev.actor).toMatchObject({ type: 'user', id: u.userId, name: 'Renamed Person' });
    });

    it('when a cached user is added to another account through the Platform API, then that account opens at once', async () => {
      const u = await acc.addUser('agent');
      await warm(u.token, acc.accountId);
      expect((await call('GET', `/api/v1/accounts/${other.accountId}/agents`, { token: u.token })).status).toBe(403);
      await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: u.userId, role: 'agent' } });
      expect((await call('GET', `/api/v1/accounts/${other.accountId}/agents`, { token: u.token })).status).toBe(200);
    });

    it('when a cached account is suspended, then its members are refused at once, and let in again when it is reactivated', async () => {
      const s = await seedAccount(stack);
      await warm(s.admin.token, s.accountId);
      await call('PATCH', `/platform/api/v1/accounts/${s.accountId}`, { ...platform, body: { status: 'suspended' } });
      const refused = await call('GET', `/api/v1/accounts/${s.accountId}/agents`, { token: s.admin.token });
      expect(refused.status).toBe(403);
      expectErrorBody(refused.body, 'account_suspended');
      await call('PATCH', `/platform/api/v1/accounts/${s.accountId}`, { ...platform, body: { status: 'active' } });
      await warm(s.admin.token, s.accountId);
    });

    it('when a cached bot is deleted (account API or Platform API), then its token is unknown at once', async () => {
      const viaAccount = await call('POST', `/api/v1/accounts/${acc.accountId}/agent_bots`, { token: acc.admin.token, body: { name: 'Short-lived' } });
      const viaPlatform = await call('POST', '/platform/api/v1/agent_bots', { ...platform, body: { name: 'Platform bot', account_id: acc.accountId } });
      for (const bot of [viaAccount.body, viaPlatform.body]) {
        // A bot endpoint: the conversations service answers (422 for the empty body), so the token was let in.
        expect((await call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { token: bot.access_token, body: {} })).status).toBe(422);
      }
      expect((await call('DELETE', `/api/v1/accounts/${acc.accountId}/agent_bots/${viaAccount.body.id}`, { token: acc.admin.token })).status).toBe(200);
      expect((await call('DELETE', `/platform/api/v1/agent_bots/${viaPlatform.body.id}`, platform)).status).toBe(200);
      for (const bot of [viaAccount.body, viaPlatform.body]) {
        const res = await call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { token: bot.access_token, body: {} });
        expect(res.status).toBe(401);
        expectErrorBody(res.body, 'invalid_token');
      }
    });

    it('when a cached bot is moved to another account through the Platform API, then only the new account takes it', async () => {
      const bot = await call('POST', '/platform/api/v1/agent_bots', { ...platform, body: { name: 'Mover', account_id: acc.accountId } });
      expect((await call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { token: bot.body.access_token, body: {} })).status).toBe(422);
      expect((await call('PATCH', `/platform/api/v1/agent_bots/${bot.body.id}`, { ...platform, body: { account_id: other.accountId } })).status).toBe(200);
      const old = await call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { token: bot.body.access_token, body: {} });
      expect(old.status).toBe(403);
      expectErrorBody(old.body, 'not_account_member');
      expect((await call('POST', `/api/v1/accounts/${other.accountId}/conversations`, { token: bot.body.access_token, body: {} })).status).toBe(422);
    });

    it('when a cached user is deleted through the Platform API, then the token is unknown at once', async () => {
      const u = await acc.addUser('agent');
      await warm(u.token, acc.accountId);
      expect((await call('DELETE', `/platform/api/v1/users/${u.userId}`, platform)).status).toBe(200);
      const res = await call('GET', '/api/v1/profile', { token: u.token });
      expect(res.status).toBe(401);
      expectErrorBody(res.body, 'invalid_token');
      await tap.next('agent.removed', (e) => e.data['id'] === u.userId && e.account_id === acc.accountId);
    });

    it("when an account is deleted through the Platform API, then its members and bots lose it at once; a member keeps their other account", async () => {
      const doomed = await seedAccount(stack);
      const bot = await doomed.addBot();
      await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: doomed.agent.userId, role: 'agent' } });
      await warm(doomed.admin.token, doomed.accountId);
      await warm(doomed.agent.token, doomed.accountId);
      expect((await call('POST', `/api/v1/accounts/${doomed.accountId}/conversations`, { token: bot.token, body: {} })).status).toBe(422);

      expect((await call('DELETE', `/platform/api/v1/accounts/${doomed.accountId}`, platform)).status).toBe(200);
      for (const token of [doomed.admin.token, doomed.agent.token]) {
        const res = await call('GET', `/api/v1/accounts/${doomed.accountId}/agents`, { token });
        expect(res.status).toBe(404);
        expectErrorBody(res.body, 'not_found');
      }
      const botRes = await call('POST', `/api/v1/accounts/${doomed.accountId}/conversations`, { token: bot.token, body: {} });
      expect(botRes.status).toBe(401);
      const profile = await call('GET', '/api/v1/profile', { token: doomed.agent.token });
      expect(profile.body.accounts.map((a: { id: number }) => a.id)).toEqual([other.accountId]);
      expect((await call('GET', `/api/v1/accounts/${other.accountId}/agents`, { token: doomed.agent.token })).status).toBe(200);
    });

    /**
     * A store whose loads hold their result until released when the SQL matches: the load has
     * read Postgres before the change commits and would cache it after the invalidation.
     */
    function heldStore(match: RegExp) {
      const deps = stack.gateway.deps;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let loaded = false;
      const db = {
        query: async (sql: string, params?: unknown[]) => {
          const result = await deps.pool.query(sql, params);
          if (match.test(sql)) {
            loaded = true;
            await gate;
          }
          return result;
        },
      } as unknown as Executor;
      const store = new PrincipalStore(deps.pool, deps.redis, deps.config.NAMESPACE, 300, db);
      stores.push(store);
      return { store, release, loaded: () => loaded };
    }
    /** Stores made here (each a replica's cache, subscribed to the gateway's invalidations). */
    const stores: PrincipalStore[] = [];
    afterAll(() => stores.forEach((s) => s.close()));
    const live = (store: PrincipalStore) => waitFor(() => store.isLive || undefined, { what: 'the store to subscribe to invalidations' });

    it('when an invalidation is read in the same turn of the event loop as a request that hits the cache, after the request, then the request answers the invalidation', async () => {
      const u = await acc.addUser('agent');
      const deps = stack.gateway.deps;
      const gw = new URL(stack.gatewayUrl);
      const profile = () => call('GET', '/api/v1/profile', { token: u.token });
      expect((await profile()).status).toBe(200);
      expect((await profile()).status).toBe(200); // cached by this process's gateway
      // The token replaced as another replica would, its invalidation not yet sent.
      await deps.pool.query(`UPDATE access_tokens SET token = 'replaced-' || token WHERE token = $1`, [u.token]);
      const sock = net.connect(Number(gw.port), gw.hostname);
      await new Promise<void>((r) => sock.once('connect', () => r()));
      await new Promise((r) => setTimeout(r, 50)); // the gateway's server has taken the connection
      const answer = new Promise<string>((resolve) => {
        let text = '';
        sock.on('data', (d: Buffer) => (text += d.toString()));
        sock.on('close', () => resolve(text));
      });
      // With this event loop blocked: the request into the gateway's socket, then the invalidation,
      // published by another process, into its Redis subscriber's. The next turn reads both, the
      // request first, as a replica does when the change's answer and the next request race.
      sock.write(`GET /api/v1/profile HTTP/1.1\r\nHost: ${gw.host}\r\napi_access_token: ${u.token}\r\nConnection: close\r\n\r\n`);
      const ioredis = require.resolve('ioredis', { paths: [path.dirname(require.resolve('@parley/shared'))] });
      const publish = `const R = require(${JSON.stringify(ioredis)}); const r = new R(process.argv[1]); r.publish(process.argv[2], process.argv[3]).then(() => r.disconnect(), (e) => { console.error(e); process.exit(1); });`;
      execFileSync(process.execPath, ['-e', publish, deps.config.REDIS_URL, `${deps.config.NAMESPACE}gw:principals`, `t:${hashToken(u.token)}`]);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); // Redis's write to the subscriber lands meanwhile
      expect((await answer).split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    });

    it('when a token is loaded just before its agent is removed, then the stale load is not cached after the removal', async () => {
      const u = await acc.addUser('agent');
      await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: u.userId, role: 'agent' } });
      const held = heldStore(/FROM account_users/);
      await live(held.store);
      const pending = held.store.resolve(u.token);
      await waitFor(() => held.loaded() || undefined, { what: 'the held load' });
      const seen = held.store.invalidations;
      expect((await call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${u.userId}`, { token: acc.admin.token })).status).toBe(200);
      // The removal's invalidation reaches this replica (pub/sub, on a loaded machine not at once) before its load ends.
      await waitFor(() => held.store.invalidations > seen || undefined, { what: 'the invalidation at the other replica' });
      held.release();
      const stale = await pending;
      expect(stale?.kind === 'user' && stale.memberships[String(acc.accountId)]).toBe('agent'); // it did read before the removal
      // Not cached: the store (another replica's cache) answers the removal, not its stale load.
      const again = await held.store.resolve(u.token);
      expect(again?.kind === 'user' && Object.keys(again.memberships)).toEqual([String(other.accountId)]);
      const res = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: u.token });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 'not_account_member');
    });

    it('when an account is loaded just before it is suspended, then the stale load is not cached after the suspension', async () => {
      const s = await seedAccount(stack);
      const held = heldStore(/FROM accounts WHERE id/);
      await live(held.store);
      const pending = held.store.account(s.accountId);
      await waitFor(() => held.loaded() || undefined, { what: 'the held load' });
      const seen = held.store.invalidations;
      await call('PATCH', `/platform/api/v1/accounts/${s.accountId}`, { ...platform, body: { status: 'suspended' } });
      // The suspension's invalidation reaches this replica (pub/sub, on a loaded machine not at once) before its load ends.
      await waitFor(() => held.store.invalidations > seen || undefined, { what: 'the invalidation at the other replica' });
      held.release();
      expect((await pending)?.status).toBe('active');
      expect((await held.store.account(s.accountId))?.status).toBe('suspended');
      const res = await call('GET', `/api/v1/accounts/${s.accountId}/agents`, { token: s.admin.token });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 'account_suspended');
    });

    it('when a change is published, then it is answered only once every subscribed replica confirmed the barrier behind its invalidation, two changes of one token each wait for their own, and a replica that never confirms holds a change only until the timeout', async () => {
      const deps = stack.gateway.deps;
      const ns = deps.config.NAMESPACE;
      // A replica that reads the invalidations but confirms only when the test says.
      const silent = deps.redis.duplicate({ enableOfflineQueue: true });
      const heard: string[] = [];
      silent.on('message', (_c: string, m: string) => heard.push(m));
      await silent.subscribe(`${ns}gw:principals`);
      /** The barriers of `store` the silent replica read after `message`: what it must confirm. */
      const barriersAfter = (message: string, store: PrincipalStore) =>
        heard.slice(heard.indexOf(message)).filter((m) => m.startsWith(`n:${(store as unknown as { replicaId: string }).replicaId}:`));
      const confirm = async (barrier: string) => {
        const [, replica, seq] = barrier.split(':');
        await deps.redis.publish(`${ns}gw:principals:acks:${replica}`, `${seq}:silent`);
      };
      try {
        const store = new PrincipalStore(deps.pool, deps.redis, ns, 300, deps.pool, { ackTimeoutMs: 60_000 });
        stores.push(store);
        await live(store);
        const token = `ack-${Date.now()}`;
        const message = `t:${hashToken(token)}`;
        const answered = [false, false];
        // Two changes of the same token at once: each waits for confirmations of its own barrier.
        const changes = [0, 1].map((i) => store.invalidateToken(token).then(() => (answered[i] = true)));
        await waitFor(() => barriersAfter(message, store).length === 2 || undefined, { what: 'the silent replica to read both invalidations and their barriers' });
        await new Promise((r) => setTimeout(r, 300)); // every other replica (the stack's gateway, this store) confirms meanwhile
        expect(answered).toEqual([false, false]);
        const [first, second] = barriersAfter(message, store);
        await confirm(first!);
        await waitFor(() => answered.includes(true) || undefined, { what: 'the change of the confirmed barrier to be answered' });
        await new Promise((r) => setTimeout(r, 100));
        expect(answered.filter(Boolean)).toHaveLength(1);
        await confirm(second!);
        await Promise.all(changes);
        expect(answered).toEqual([true, true]);
        // Never confirmed: the change is held until the timeout, then goes on.
        const quick = new PrincipalStore(deps.pool, deps.redis, ns, 300, deps.pool, { ackTimeoutMs: 200 });
        stores.push(quick);
        await live(quick);
        const t0 = Date.now();
        await quick.invalidateToken(`${token}-2`);
        expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
        await waitFor(() => heard.includes(`t:${hashToken(`${token}-2`)}`) || undefined, { what: 'the silent replica to read the last invalidation' });
      } finally {
        await silent.quit();
      }
    });
  });

  describe('concurrent identity writes', () => {
    it('when the same new agent is added twice at once, then one request adds them, the other is 422, and one user exists', async () => {
      const mail = email();
      const add = () => call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'Twin', email: mail } });
      const results = await Promise.all([add(), add()]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
      const refused = results.find((r) => r.status === 422)!;
      expect(refused.body.errors[0]).toMatchObject({ field: 'email', code: 'taken' });
      const list = await call('GET', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token });
      expect(list.body.filter((a: { email: string }) => a.email === mail)).toHaveLength(1);
    });

    it('when the Platform API creates the same user twice at once, then both answers are that one user with its token', async () => {
      const mail = email();
      const create = () => call('POST', '/platform/api/v1/users', { ...platform, body: { name: 'Racer', email: mail } });
      const [a, b] = await Promise.all([create(), create()]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.body.id).toBe(a.body.id);
      expect(b.body.access_token).toBe(a.body.access_token);
      expect((await call('GET', '/api/v1/profile', { token: a.body.access_token })).body.email).toBe(mail);
    });

    it('when a user is removed from both of their accounts at once, then they are left with none and their user and token are gone', async () => {
      for (let i = 0; i < 3; i++) {
        const u = await acc.addUser('agent');
        await call('POST', `/platform/api/v1/accounts/${other.accountId}/account_users`, { ...platform, body: { user_id: u.userId, role: 'agent' } });
        const [x, y] = await Promise.all([
          call('DELETE', `/api/v1/accounts/${acc.accountId}/agents/${u.userId}`, { token: acc.admin.token }),
          call('DELETE', `/api/v1/accounts/${other.accountId}/agents/${u.userId}`, { token: other.admin.token }),
        ]);
        expect([x.status, y.status]).toEqual([200, 200]);
        expect((await call('GET', '/api/v1/profile', { token: u.token })).status).toBe(401);
        expect((await call('GET', `/platform/api/v1/users/${u.userId}`, platform)).status).toBe(404);
      }
    });

    it('when the same email is added as an agent in two accounts at once, then both memberships belong to one user', async () => {
      const mail = email();
      const [x, y] = await Promise.all([
        call('POST', `/api/v1/accounts/${acc.accountId}/agents`, { token: acc.admin.token, body: { name: 'Both', email: mail } }),
        call('POST', `/api/v1/accounts/${other.accountId}/agents`, { token: other.admin.token, body: { name: 'Both', email: mail } }),
      ]);
      expect([x.status, y.status]).toEqual([200, 200]);
      expect(x.body.id).toBe(y.body.id);
    });
  });

  describe('request bodies', () => {
    const send = (body: string, type: string) =>
      fetch(`${stack.gatewayUrl}/api/v1/accounts/${acc.accountId}`, { method: 'PATCH', headers: { api_access_token: acc.admin.token, 'content-type': type }, body });

    it('when a body is form-encoded (flat or Rails-wrapped) or JSON sent with curl\'s default form type, then it is read', async () => {
      expect((await (await send('name=Form+Co', 'application/x-www-form-urlencoded')).json() as { name: string }).name).toBe('Form Co');
      expect((await (await send('account%5Bname%5D=Wrapped+Co', 'application/x-www-form-urlencoded')).json() as { name: string }).name).toBe('Wrapped Co');
      expect((await (await send('{"name":"Curl Co"}', 'application/x-www-form-urlencoded')).json() as { name: string }).name).toBe('Curl Co');
    });

    it('when a body has a type that is neither JSON, a form nor multipart, then 415 with the Error body instead of being read as empty', async () => {
      const res = await send('name=Plain', 'text/plain');
      expect(res.status).toBe(415);
      expectErrorBody(await res.json(), 'unsupported_media_type');
      const bad = await send('{"name": ', 'application/x-www-form-urlencoded');
      expect(bad.status).toBe(400);
      expectErrorBody(await bad.json(), 'malformed_json');
    });
  });

  describe('account and internal API', () => {
    it('when a member reads the account and an administrator renames it, then both answer the account', async () => {
      const read = await call('GET', `/api/v1/accounts/${acc.accountId}`, { token: acc.agent.token });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: acc.accountId, features: { audit_logs: true }, status: 'active' });
      expect((await call('PATCH', `/api/v1/accounts/${acc.accountId}`, { token: acc.agent.token, body: { name: 'X' } })).status).toBe(403);
      const renamed = await call('PATCH', `/api/v1/accounts/${acc.accountId}`, { token: acc.admin.token, body: { name: 'Renamed Co' } });
      expect(renamed.body.name).toBe('Renamed Co');
    });

    it('when a suspended account is called, then 403 account_suspended', async () => {
      const s = await seedAccount(stack);
      await call('PATCH', `/platform/api/v1/accounts/${s.accountId}`, { ...platform, body: { status: 'suspended' } });
      const res = await call('GET', `/api/v1/accounts/${s.accountId}/agents`, { token: s.admin.token });
      expect(res.status).toBe(403);
      expectErrorBody(res.body, 'account_suspended');
    });

    it('when a service calls the internal API with a signed context, then it answers; unsigned or forged calls are 401', async () => {
      const signed = await call('GET', `/internal/accounts/${acc.accountId}/agents/${acc.agent.userId}`, { headers: asCaller({ actor: { type: 'service', id: 'conversations' } }, stack.env.config.INTERNAL_SECRET) });
      expect(signed.status).toBe(200);
      expect(signed.body).toMatchObject({ id: acc.agent.userId, account_id: acc.accountId, role: 'agent' });
      const team = await call('GET', `/internal/accounts/${acc.accountId}/teams/2000000000`, { headers: asCaller({ actor: { type: 'service', id: 'x' } }, stack.env.config.INTERNAL_SECRET) });
      expect(team.status).toBe(404);
      const unsigned = await call('GET', `/internal/accounts/${acc.accountId}/agents`);
      expect(unsigned.status).toBe(401);
      const forged = await call('GET', `/internal/accounts/${acc.accountId}/agents`, { headers: asCaller({}, 'not-the-secret-0123456789') });
      expect(forged.status).toBe(401);
    });
  });
});

describe('gateway rate limits', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    stack = await startStack({ only: [], gateway: { RATE_LIMIT_PER_TOKEN: 3, RATE_LIMIT_PER_IP: 1000 } });
    call = client(stack.gatewayUrl);
  });
  afterAll(() => stack?.stop());

  it('when a token exceeds its limit, then 429 with Retry-After and the Error body, while another token still passes', async () => {
    const acc = await seedAccountDirectly(stack);
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await call('GET', '/api/v1/profile', { token: acc.admin.token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expectErrorBody(last!.body, 'rate_limited');
    expect((await call('GET', '/api/v1/profile', { token: acc.agent.token })).status).toBe(200);
  });

  it('when a token is limited, then Redis keys its counter by a hash, never the token itself', async () => {
    const acc = await seedAccountDirectly(stack);
    const redis = stack.gateway.deps.redis;
    const before = await redis.keys(`${stack.env.namespace}rl:token*`);
    await call('GET', '/api/v1/profile', { token: acc.admin.token });
    const keys = await redis.keys(`${stack.env.namespace}rl:token*`);
    expect(keys.length).toBeGreaterThan(before.length);
    expect(keys.some((k) => k.includes(acc.admin.token))).toBe(false);
  });

  it('when a downstream service is down, then 503 unavailable with the Error body', async () => {
    const acc = await seedAccountDirectly(stack);
    const res = await call('GET', `/api/v1/accounts/${acc.accountId}/conversations`, { token: acc.agent.token });
    expect(res.status).toBe(503);
    expectErrorBody(res.body, 'unavailable');
  });
});

describe('gateway per-IP limit and forwarded addresses', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    stack = await startStack({ only: [], gateway: { RATE_LIMIT_PER_IP: 3, RATE_LIMIT_PER_TOKEN: 1000 } });
    call = client(stack.gatewayUrl);
  });
  afterAll(() => stack?.stop());

  it('when a client sends a new X-Forwarded-For with each request, then it still hits its own per-IP limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call('GET', '/api/v1/profile', { headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } });
      statuses.push(res.status);
      if (res.status === 429) expectErrorBody(res.body, 'rate_limited');
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
