import { uniq, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody, type ApiResponse } from '../../support/http';
import { createApiInbox, identifierHash, PNG_1X1, sendForm, type ApiInbox } from '../../support/contacts';

/*
 * SPEC operations 5 (public contact create), 9 (list contacts) and 13 (delete contact) through
 * the gateway: every field SPEC lists with its JSON type (SPEC allows null for none of them),
 * the list's resolved-contacts rule, page size, sort keys and string `current_page`, and the
 * error answers with SPEC's Error body. Every answer is also checked against the OpenAPI
 * document by the client.
 */

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Each field's JSON type, named, so a failure says which field is off. */
function expectTypes(record: Record<string, unknown>, types: Record<string, string>, what: string): void {
  const actual = Object.fromEntries(Object.keys(types).map((f) => [`${what}.${f}`, kind(record[f])]));
  const wanted = Object.fromEntries(Object.entries(types).map(([f, t]) => [`${what}.${f}`, t]));
  expect(actual).toEqual(wanted);
}

/** SPEC "Contact (public API create response)". */
const PUBLIC_CONTACT = { id: 'number', source_id: 'string', name: 'string', email: 'string', phone_number: 'string', pubsub_token: 'string' };

/** SPEC "Contact (account API list item)". */
const LIST_CONTACT = {
  id: 'number',
  name: 'string',
  email: 'string',
  phone_number: 'string',
  identifier: 'string',
  thumbnail: 'string',
  availability_status: 'string',
  blocked: 'boolean',
  additional_attributes: 'object',
  custom_attributes: 'object',
  last_activity_at: 'number',
  created_at: 'number',
  contact_inboxes: 'array',
};
const CONTACT_INBOX_INBOX = { id: 'number', avatar_url: 'string', channel_id: 'number', name: 'string', channel_type: 'string', provider: 'string' };

function expectListContact(c: any): void {
  expectTypes(c, LIST_CONTACT, `contact ${c.id}`);
  for (const ci of c.contact_inboxes) {
    expectTypes(ci, { source_id: 'string', inbox: 'object' }, 'contact_inbox');
    expectTypes(ci.inbox, CONTACT_INBOX_INBOX, 'contact_inbox.inbox');
  }
}

describe('SPEC contacts operations 5, 9 and 13, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let other: SeededAccount;
  let inbox: ApiInbox;
  let strict: ApiInbox;

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    other = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
    strict = await createApiInbox(call, acc, { hmacMandatory: true, name: 'Verified only' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  function ok(res: ApiResponse, what: string): any {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  }

  const pub = (i: ApiInbox, rest = '') => `/public/api/v1/inboxes/${i.inbox_identifier}/contacts${rest}`;
  const contacts = (a: SeededAccount = acc, rest = '') => `/api/v1/accounts/${a.accountId}/contacts${rest}`;

  describe('operation 5: create contact (public)', () => {
    it('when a client sends every SPEC body field, then exactly {id, source_id, name, email, phone_number, pubsub_token} come back, typed', async () => {
      const identifier = uniq('spec-user');
      const email = `${identifier}@acme.test`;
      const res = await call('POST', pub(inbox), {
        body: { identifier, identifier_hash: identifierHash(inbox, identifier), email, name: 'Spec Person', phone_number: '+14155550111', avatar_url: 'https://img.example.com/p.png', custom_attributes: { plan: 'pro' } },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(Object.keys(PUBLIC_CONTACT).sort());
      expectTypes(res.body, PUBLIC_CONTACT, 'public contact');
      expect(res.body).toMatchObject({ name: 'Spec Person', email, phone_number: '+14155550111' });
      expect(Number.isInteger(res.body.id)).toBe(true);
      const seen = ok(await call('GET', contacts(acc, `/${res.body.id}`), { token: acc.agent.token }), 'show').payload;
      expect(seen).toMatchObject({ identifier, thumbnail: 'https://img.example.com/p.png', custom_attributes: { plan: 'pro' } });
    });

    it('when a client sends nothing, then the fields are still strings: a made-up name, empty email and phone number', async () => {
      const res = await call('POST', pub(inbox), { body: {} });
      expect(res.status).toBe(200);
      expectTypes(res.body, PUBLIC_CONTACT, 'public contact');
      expect(res.body.name.length).toBeGreaterThan(0);
      expect(res.body).toMatchObject({ email: '', phone_number: '' });
      expect(res.body.source_id.length).toBeGreaterThan(0);
      expect(res.body.pubsub_token.length).toBeGreaterThan(0);
    });

    it('when the avatar comes as form data, then the same fields come back and the picture is stored', async () => {
      const form = new FormData();
      form.set('name', 'Form Person');
      form.set('email', `${uniq('form')}@acme.test`);
      form.set('custom_attributes[tier]', 'gold');
      form.set('avatar', new Blob([PNG_1X1], { type: 'image/png' }), 'me.png');
      const res = await sendForm(stack.gatewayUrl, 'POST', pub(inbox), form);
      expect(res.status).toBe(200);
      expectTypes(res.body, PUBLIC_CONTACT, 'public contact');
      const seen = ok(await call('GET', contacts(acc, `/${res.body.id}`), { token: acc.agent.token }), 'show').payload;
      expect(seen.custom_attributes).toEqual({ tier: 'gold' });
      expect((await fetch(stack.gatewayUrl + new URL(seen.thumbnail).pathname)).status).toBe(200);
    });

    it('when the inbox is unknown, the hash wrong or missing where mandatory, or the body bad, then 404, 401, 401, 422 or 400 with the Error body', async () => {
      const unknown = await call('POST', '/public/api/v1/inboxes/NoSuchInbox0000/contacts', { body: { name: 'x' } });
      expect(unknown.status).toBe(404);
      expectErrorBody(unknown.body, 'not_found');
      const identifier = uniq('spec-user');
      const wrong = await call('POST', pub(inbox), { body: { identifier, identifier_hash: 'ab'.repeat(32) } });
      expect(wrong.status).toBe(401);
      expectErrorBody(wrong.body, 'invalid_identifier_hash');
      const missing = await call('POST', pub(strict), { body: { identifier } });
      expect(missing.status).toBe(401);
      expectErrorBody(missing.body, 'invalid_identifier_hash');
      for (const [field, body] of [
        ['email', { email: 'not-an-email' }],
        ['phone_number', { phone_number: '0044 20 1234' }],
        ['name', { name: 'x'.repeat(256) }],
        ['custom_attributes', { custom_attributes: ['a'] }],
        ['custom_attributes.nested', { custom_attributes: { nested: { deep: 1 } } }],
        ['avatar_url', { avatar_url: 'javascript:alert(1)' }],
      ] as const) {
        const res = await call('POST', pub(inbox), { body });
        expect({ field, status: res.status }).toEqual({ field, status: 422 });
        expectErrorBody(res.body);
        expect(res.body.errors[0].field).toBe(field);
      }
      const malformed = await call('POST', pub(inbox), { raw: '{"name":' });
      expect(malformed.status).toBe(400);
      expectErrorBody(malformed.body, 'malformed_json');
    });
  });

  describe('operation 9: list contacts', () => {
    it('when contacts are listed, then meta {count: number, current_page: string} and every SPEC contact field typed, set or not', async () => {
      const a = await seedAccount(stack);
      const box = await createApiInbox(call, a);
      const full = ok(
        await call('POST', contacts(a), {
          token: a.admin.token,
          body: {
            name: 'Full Contact',
            email: `${uniq('full')}@acme.test`,
            phone_number: '+14155550122',
            identifier: uniq('full-id'),
            avatar_url: 'https://img.example.com/full.png',
            additional_attributes: { city: 'Lisbon', country: 'Portugal', country_code: 'PT', created_at_ip: '198.51.100.7' },
            custom_attributes: { plan: 'pro' },
            inbox_id: box.id,
          },
        }),
        'full',
      ).payload;
      const bare = ok(await call('POST', contacts(a), { token: a.admin.token, body: { identifier: uniq('bare-id') } }), 'bare').payload.contact;
      // Not resolved (no identifier, email or phone number): never listed, never counted.
      ok(await call('POST', contacts(a), { token: a.admin.token, body: { name: 'Anonymous visitor' } }), 'anonymous');

      const res = await call('GET', contacts(a), { token: a.agent.token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['meta', 'payload']);
      expect(res.body.meta).toEqual({ count: 2, current_page: '1' });
      expect(res.body.payload).toHaveLength(2);
      res.body.payload.forEach(expectListContact);

      const f = res.body.payload.find((c: any) => c.id === full.contact.id);
      expect(f).toMatchObject({
        name: 'Full Contact',
        phone_number: '+14155550122',
        thumbnail: 'https://img.example.com/full.png',
        blocked: false,
        additional_attributes: { city: 'Lisbon', country: 'Portugal', country_code: 'PT', created_at_ip: '198.51.100.7' },
        custom_attributes: { plan: 'pro' },
      });
      expect(f.created_at).toBeGreaterThan(1_600_000_000);
      expect(f.created_at).toBeLessThan(10_000_000_000); // unix seconds
      expect(f.contact_inboxes).toEqual([{ source_id: full.contact_inbox.source_id, inbox: { id: box.id, avatar_url: '', channel_id: expect.any(Number), name: box.name, channel_type: 'Channel::Api', provider: expect.any(String) } }]);
      for (const key of ['city', 'country', 'country_code', 'created_at_ip']) expect(typeof f.additional_attributes[key]).toBe('string');

      const b = res.body.payload.find((c: any) => c.id === bare.id);
      expect(b).toMatchObject({ email: '', phone_number: '', thumbnail: '', last_activity_at: 0, contact_inboxes: [], additional_attributes: {}, custom_attributes: {} });
    });

    it('when there are more than 15, then pages of 15 with current_page echoing page as a string', async () => {
      const a = await seedAccount(stack);
      for (let i = 0; i < 16; i++) ok(await call('POST', contacts(a), { token: a.admin.token, body: { name: `P${String(i).padStart(2, '0')}`, identifier: uniq('page') } }), 'seed');
      const one = ok(await call('GET', contacts(a, '?sort=name'), { token: a.agent.token }), 'page 1');
      expect(one.meta).toEqual({ count: 16, current_page: '1' });
      expect(one.payload).toHaveLength(15);
      const two = ok(await call('GET', contacts(a, '?sort=name&page=2'), { token: a.agent.token }), 'page 2');
      expect(two.meta).toEqual({ count: 16, current_page: '2' });
      expect(two.payload.map((c: any) => c.name)).toEqual(['P15']);
      const past = ok(await call('GET', contacts(a, '?page=9'), { token: a.agent.token }), 'page 9');
      expect(past).toEqual({ meta: { count: 16, current_page: '9' }, payload: [] });
    });

    it('when sorted by name, email, phone_number or last_activity_at, either way, then the payload follows that order', async () => {
      const a = await seedAccount(stack);
      const box = await createApiInbox(call, a);
      const seed = [
        { name: 'bravo', email: 'c@acme.test', phone_number: '+14155550003' },
        { name: 'Alpha', email: 'b@acme.test', phone_number: '+14155550001' },
        { name: 'charlie', email: 'a@acme.test', phone_number: '+14155550002' },
      ];
      const made: Record<string, { id: number; source_id: string }> = {};
      for (const s of seed) {
        const res = ok(await call('POST', pub(box), { body: s }), 'seed');
        made[s.name] = { id: res.id, source_id: res.source_id };
      }
      // Activity comes from the contact's own messages: charlie writes first, then Alpha; bravo never.
      for (const who of ['charlie', 'Alpha']) {
        const { source_id } = made[who]!;
        const conv = ok(await call('POST', pub(box, `/${source_id}/conversations`), { body: {} }), 'conversation');
        ok(await call('POST', pub(box, `/${source_id}/conversations/${conv.id}/messages`), { body: { content: `hi from ${who}` } }), 'message');
        await waitFor(async () => {
          const c = ok(await call('GET', contacts(a, `/${made[who]!.id}`), { token: a.agent.token }), 'show').payload;
          return c.last_activity_at > 0;
        }, { what: `${who}'s activity` });
        // Activity is kept in seconds: make sure the next writer lands in a later second.
        await waitFor(async () => {
          const c = ok(await call('GET', contacts(a, `/${made[who]!.id}`), { token: a.agent.token }), 'show').payload;
          return Math.floor(Date.now() / 1000) > c.last_activity_at;
        }, { what: 'the next second' });
      }
      const order = async (sort: string) => ok(await call('GET', contacts(a, `?sort=${encodeURIComponent(sort)}`), { token: a.agent.token }), sort).payload.map((c: any) => c.name);
      expect(await order('name')).toEqual(['Alpha', 'bravo', 'charlie']);
      expect(await order('-name')).toEqual(['charlie', 'bravo', 'Alpha']);
      expect(await order('email')).toEqual(['charlie', 'Alpha', 'bravo']);
      expect(await order('-email')).toEqual(['bravo', 'Alpha', 'charlie']);
      expect(await order('phone_number')).toEqual(['Alpha', 'charlie', 'bravo']);
      expect(await order('-phone_number')).toEqual(['bravo', 'charlie', 'Alpha']);
      expect(await order('-last_activity_at')).toEqual(['Alpha', 'charlie', 'bravo']);
      // Never active sorts last either way.
      expect(await order('last_activity_at')).toEqual(['charlie', 'Alpha', 'bravo']);
    });

    it('when the sort or page is not understood, the caller is not a member, is a bot or has no token, then 400, 403, 403 or 401 with the Error body', async () => {
      for (const q of ['sort=-foo', 'sort=name,name', 'page=0', 'page=x', 'page=-1']) {
        const res = await call('GET', contacts(acc, `?${q}`), { token: acc.agent.token });
        expect({ q, status: res.status }).toEqual({ q, status: 400 });
        expectErrorBody(res.body);
      }
      const stranger = await call('GET', contacts(acc), { token: other.admin.token });
      expect(stranger.status).toBe(403);
      expectErrorBody(stranger.body, 'not_account_member');
      const bot = await acc.addBot();
      const byBot = await call('GET', contacts(acc), { token: bot.token });
      expect(byBot.status).toBe(403);
      expectErrorBody(byBot.body, 'bot_forbidden');
      const none = await call('GET', contacts(acc));
      expect(none.status).toBe(401);
      expectErrorBody(none.body, 'unauthorized');
      const noAccount = await call('GET', '/api/v1/accounts/2000000000/contacts', { token: acc.agent.token });
      expect(noAccount.status).toBe(404);
      expectErrorBody(noAccount.body, 'not_found');
    });
  });

  describe('operation 13: delete contact', () => {
    it('when an administrator deletes a contact, then 200 {}, it is gone from show, list and the public API', async () => {
      const made = ok(await call('POST', pub(inbox), { body: { name: 'Doomed', email: `${uniq('doomed')}@acme.test` } }), 'public create');
      const res = await call('DELETE', contacts(acc, `/${made.id}`), { token: acc.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      const shown = await call('GET', contacts(acc, `/${made.id}`), { token: acc.agent.token });
      expect(shown.status).toBe(404);
      expectErrorBody(shown.body, 'not_found');
      const search = ok(await call('GET', contacts(acc, `/search?q=${encodeURIComponent('Doomed')}`), { token: acc.agent.token }), 'search');
      expect(search.payload.map((c: any) => c.id)).not.toContain(made.id);
      expect((await call('GET', pub(inbox, `/${made.source_id}`))).status).toBe(404);
      const again = await call('DELETE', contacts(acc, `/${made.id}`), { token: acc.admin.token });
      expect(again.status).toBe(404);
    });

    it('when an agent deletes, then 403 whether or not the contact exists, and the contact stays', async () => {
      const made = ok(await call('POST', contacts(acc), { token: acc.agent.token, body: { name: 'Kept', identifier: uniq('kept') } }), 'create').payload.contact;
      for (const id of [made.id, 2_000_000_000]) {
        const res = await call('DELETE', contacts(acc, `/${id}`), { token: acc.agent.token });
        expect({ id, status: res.status }).toEqual({ id, status: 403 });
        expectErrorBody(res.body, 'forbidden');
      }
      expect((await call('GET', contacts(acc, `/${made.id}`), { token: acc.agent.token })).status).toBe(200);
    });

    it("when the id is unknown, another account's contact or not a number, or the caller has no token or is a bot, then 404, 404, 404, 401 or 403", async () => {
      const theirs = ok(await call('POST', contacts(other), { token: other.admin.token, body: { name: 'Theirs', identifier: uniq('theirs') } }), 'create').payload.contact;
      for (const id of [2_000_000_000, theirs.id, 'abc']) {
        const res = await call('DELETE', contacts(acc, `/${id}`), { token: acc.admin.token });
        expect({ id, status: res.status }).toEqual({ id, status: 404 });
        expectErrorBody(res.body, 'not_found');
      }
      expect((await call('GET', contacts(other, `/${theirs.id}`), { token: other.agent.token })).status).toBe(200);
      const none = await call('DELETE', contacts(acc, `/${theirs.id}`));
      expect(none.status).toBe(401);
      expectErrorBody(none.body, 'unauthorized');
      const bot = await acc.addBot();
      const byBot = await call('DELETE', contacts(acc, '/1'), { token: bot.token });
      expect(byBot.status).toBe(403);
      expectErrorBody(byBot.body, 'bot_forbidden');
    });
  });
});
