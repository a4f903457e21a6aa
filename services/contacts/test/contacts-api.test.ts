import { asCaller, conversationFixture, messageFixture, randomAccountId, uniq, waitFor } from '@parley/testkit';
import { admin, agent, anonymous, envelope, expectError, makeInbox, outboxEvents, PNG_1X1, processed, PUBLIC_BASE, startContacts, type ContactsHarness } from './support';

describe('contacts account API (service level)', () => {
  let h: ContactsHarness;
  beforeAll(async () => {
    h = await startContacts({ AVATAR_MAX_BYTES: 4096 });
  });
  afterAll(() => h?.close());

  const base = (a: number) => `/api/v1/accounts/${a}/contacts`;
  async function create(a: number, body: Record<string, unknown>) {
    const res = await h.call('POST', base(a), { as: admin(a), body });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
    return res.body.payload.contact;
  }

  describe('create', () => {
    it('when an agent creates a contact, then it is answered with the SPEC fields and contact.created is written', async () => {
      const a = randomAccountId();
      const res = await h.call('POST', base(a), {
        as: agent(a),
        body: { name: '  Ann Lee ', email: 'Ann@Acme.TEST', phone_number: '+14155550123', identifier: 'user-1', custom_attributes: { plan: 'pro', seats: 3 }, additional_attributes: { city: 'Lisbon' } },
      });
      expect(res.status).toBe(200);
      const c = res.body.payload.contact;
      expect(c).toEqual({
        id: expect.any(Number),
        name: 'Ann Lee',
        email: 'ann@acme.test',
        phone_number: '+14155550123',
        identifier: 'user-1',
        thumbnail: '',
        availability_status: 'offline',
        blocked: false,
        additional_attributes: { city: 'Lisbon' },
        custom_attributes: { plan: 'pro', seats: 3 },
        last_activity_at: 0,
        created_at: expect.any(Number),
        contact_inboxes: [],
      });
      expect(res.body.payload.contact_inbox).toEqual({ inbox: null, source_id: null });
      const [ev] = await outboxEvents(h.db, a, 'contact.created');
      expect(ev?.data).toMatchObject({ id: c.id, account_id: a, email: 'ann@acme.test', identifier: 'user-1', last_activity_at: null, thumbnail: '', avatar_url: null });
      expect(ev?.actor).toMatchObject({ type: 'user', id: 2 });
    });

    it('when created with an inbox_id, then the contact_inbox gets a UUID source id (or the given one) and contact_inbox.created is written', async () => {
      const a = randomAccountId();
      const inbox = h.stub.addInbox(makeInbox(a));
      const res = await h.call('POST', base(a), { as: admin(a), body: { name: 'Bo', inbox_id: inbox.id } });
      expect(res.status).toBe(200);
      const { contact, contact_inbox } = res.body.payload;
      expect(contact_inbox.source_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(contact_inbox.inbox).toMatchObject({ id: inbox.id, name: inbox.name, channel_type: 'Channel::Api', identifier: inbox.identifier });
      expect(contact_inbox.inbox).not.toHaveProperty('hmac_token');
      expect(contact.contact_inboxes).toEqual([{ source_id: contact_inbox.source_id, inbox: { id: inbox.id, avatar_url: '', channel_id: inbox.channel_id, name: inbox.name, channel_type: 'Channel::Api', provider: '' } }]);
      const [ev] = await outboxEvents(h.db, a, 'contact_inbox.created');
      expect(ev?.data).toEqual({ id: expect.any(Number), contact_id: contact.id, inbox_id: inbox.id, source_id: contact_inbox.source_id, hmac_verified: false, pubsub_token: expect.any(String), account_id: a });

      const given = await h.call('POST', base(a), { as: admin(a), body: { contact: { name: 'Cy' }, inbox_id: String(inbox.id), source_id: 'crm-77' } });
      expect(given.body.payload.contact_inbox.source_id).toBe('crm-77');
      // The same source id in the same inbox for another contact is refused, and nothing is left behind.
      const clash = await h.call('POST', base(a), { as: admin(a), body: { name: 'Dee', email: 'dee@x.test', inbox_id: inbox.id, source_id: 'crm-77' } });
      expectError(clash, 422, 'taken', 'source_id');
      expect((await h.call('GET', `${base(a)}/search?q=dee`, { as: admin(a) })).body.meta.count).toBe(0);
    });

    it('when the inbox_id names no inbox of the account, then 422 naming inbox_id', async () => {
      const a = randomAccountId();
      const other = h.stub.addInbox(makeInbox(randomAccountId()));
      for (const inbox_id of [999_999_991, other.id]) expectError(await h.call('POST', base(a), { as: admin(a), body: { name: 'X', inbox_id } }), 422, 'not_found', 'inbox_id');
    });

    it('when fields are invalid, then 422 names each offending field', async () => {
      const a = randomAccountId();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ email: 'not-an-email' }, 'email'],
        [{ email: 'a@b' }, 'email'],
        [{ phone_number: '4155550123' }, 'phone_number'],
        [{ phone_number: '+0123' }, 'phone_number'],
        [{ name: 'x'.repeat(256) }, 'name'],
        [{ identifier: 'x'.repeat(256) }, 'identifier'],
        [{ custom_attributes: { nested: { deep: 1 } } }, 'custom_attributes.nested'],
        [{ custom_attributes: ['a'] }, 'custom_attributes'],
        [{ custom_attributes: 'flat' }, 'custom_attributes'],
        [{ additional_attributes: 5 }, 'additional_attributes'],
        [{ blocked: 'maybe' }, 'blocked'],
        [{ avatar_url: 'javascript:alert(1)' }, 'avatar_url'],
        [{ inbox_id: 'abc' }, 'inbox_id'],
        [{ name: { first: 'x' } }, 'name'],
      ];
      for (const [body, field] of cases) {
        const res = await h.call('POST', base(a), { as: admin(a), body });
        expect({ body, status: res.status }).toEqual({ body, status: 422 });
        expectError(res, 422, undefined, field);
      }
      expect((await h.call('GET', `${base(a)}/search?q=x`, { as: admin(a) })).body.meta.count).toBe(0);
    });

    it('when the body is malformed JSON, then 400 malformed_json', async () => {
      const a = randomAccountId();
      expectError(await h.call('POST', base(a), { as: admin(a), raw: '{"name": ' }), 400, 'malformed_json');
    });

    it('when email (in any case), phone number or identifier is taken in the account, then 409 names the field; another account may reuse them', async () => {
      const a = randomAccountId();
      await create(a, { name: 'First', email: 'dup@acme.test', phone_number: '+351910000001', identifier: 'dup-1' });
      expectError(await h.call('POST', base(a), { as: admin(a), body: { email: 'DUP@acme.test' } }), 409, 'taken', 'email');
      expectError(await h.call('POST', base(a), { as: admin(a), body: { phone_number: '+351910000001' } }), 409, 'taken', 'phone_number');
      expectError(await h.call('POST', base(a), { as: admin(a), body: { identifier: 'dup-1' } }), 409, 'taken', 'identifier');
      const b = randomAccountId();
      await create(b, { name: 'Elsewhere', email: 'dup@acme.test', phone_number: '+351910000001', identifier: 'dup-1' });
    });

    it('when an avatar is uploaded as multipart, then the thumbnail links the stored image and bad files are refused', async () => {
      const a = randomAccountId();
      const form = new FormData();
      form.set('name', 'Pic');
      form.set('email', 'pic@acme.test');
      form.set('custom_attributes[tier]', 'gold');
      form.set('avatar', new Blob([PNG_1X1], { type: 'image/png' }), 'me.png');
      const res = await h.call('POST', base(a), { as: admin(a), form });
      expect(res.status).toBe(200);
      const c = res.body.payload.contact;
      expect(c.custom_attributes).toEqual({ tier: 'gold' });
      expect(c.thumbnail).toMatch(new RegExp(`^${PUBLIC_BASE}/public/api/v1/contact_avatars/[A-Za-z0-9_-]{32}$`));
      const img = await fetch(`${h.svc.url}${new URL(c.thumbnail).pathname}`, { headers: asCaller(anonymous) });
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await img.arrayBuffer()).equals(PNG_1X1)).toBe(true);

      const text = new FormData();
      text.set('name', 'Bad');
      text.set('avatar', new Blob(['<svg onload=alert(1)>'], { type: 'image/png' }), 'x.png');
      expectError(await h.call('POST', base(a), { as: admin(a), form: text }), 422, 'invalid_type', 'avatar');
      const big = new FormData();
      big.set('avatar', new Blob([PNG_1X1, Buffer.alloc(5000)], { type: 'image/png' }), 'big.png');
      expectError(await h.call('POST', base(a), { as: admin(a), form: big }), 422, 'too_large', 'avatar');
      const wrongField = new FormData();
      wrongField.set('picture', new Blob([PNG_1X1], { type: 'image/png' }), 'p.png');
      expectError(await h.call('POST', base(a), { as: admin(a), form: wrongField }), 422, 'unexpected_file', 'picture');

      // Removing the avatar clears the thumbnail and the stored image.
      const removed = await h.call('DELETE', `${base(a)}/${c.id}/avatar`, { as: admin(a) });
      expect(removed.body.payload.thumbnail).toBe('');
      expect((await fetch(`${h.svc.url}${new URL(c.thumbnail).pathname}`, { headers: asCaller(anonymous) })).status).toBe(404);
    });
  });

  describe('show, update', () => {
    it('when shown, then {payload: contact}; another account or a non-numeric id is 404', async () => {
      const a = randomAccountId();
      const c = await create(a, { name: 'Show Me', email: 'show@acme.test' });
      const res = await h.call('GET', `${base(a)}/${c.id}`, { as: agent(a) });
      expect(res.body).toEqual({ payload: { ...c } });
      const b = randomAccountId();
      expectError(await h.call('GET', `${base(b)}/${c.id}`, { as: admin(b) }), 404, 'not_found');
      expectError(await h.call('GET', `${base(a)}/abc`, { as: admin(a) }), 404, 'not_found');
      // The signed context names another account than the path: refused.
      expectError(await h.call('GET', `${base(a)}/${c.id}`, { as: admin(b) }), 403, 'forbidden');
    });

    it('when updated, then attributes merge, null clears, the change is an event with before and after', async () => {
      const a = randomAccountId();
      const c = await create(a, { name: 'Up', email: 'up@acme.test', phone_number: '+447700900001', custom_attributes: { plan: 'free', region: 'eu' } });
      const res = await h.call('PATCH', `${base(a)}/${c.id}`, { as: agent(a), body: { name: 'Up Dated', phone_number: null, custom_attributes: { plan: 'pro' }, blocked: true } });
      expect(res.status).toBe(200);
      expect(res.body.payload).toMatchObject({ id: c.id, name: 'Up Dated', email: 'up@acme.test', phone_number: '', blocked: true, custom_attributes: { plan: 'pro', region: 'eu' } });
      const [ev] = await outboxEvents(h.db, a, 'contact.updated');
      expect(ev?.changes).toEqual({
        name: ['Up', 'Up Dated'],
        phone_number: ['+447700900001', null],
        custom_attributes: [{ plan: 'free', region: 'eu' }, { plan: 'pro', region: 'eu' }],
        blocked: [false, true],
      });
      // PUT works too; an update that changes nothing writes no event.
      const same = await h.call('PUT', `${base(a)}/${c.id}`, { as: agent(a), body: { name: 'Up Dated' } });
      expect(same.status).toBe(200);
      expect(await outboxEvents(h.db, a, 'contact.updated')).toHaveLength(1);
    });

    it('when an update takes another contact\'s email, then 409 naming email and nothing changes', async () => {
      const a = randomAccountId();
      await create(a, { email: 'taken@acme.test' });
      const c = await create(a, { email: 'mine@acme.test' });
      expectError(await h.call('PATCH', `${base(a)}/${c.id}`, { as: admin(a), body: { email: 'Taken@acme.test' } }), 409, 'taken', 'email');
      expect((await h.call('GET', `${base(a)}/${c.id}`, { as: admin(a) })).body.payload.email).toBe('mine@acme.test');
      expectError(await h.call('PATCH', `${base(a)}/999999`, { as: admin(a), body: { name: 'x' } }), 404, 'not_found');
      expectError(await h.call('PATCH', `${base(a)}/${c.id}`, { as: admin(a), body: { email: 'nope' } }), 422, undefined, 'email');
    });

    it('when custom attributes are destroyed by key, then only those keys go', async () => {
      const a = randomAccountId();
      const c = await create(a, { email: 'ca@acme.test', custom_attributes: { a: 1, b: 2, c: 3 } });
      const res = await h.call('POST', `${base(a)}/${c.id}/destroy_custom_attributes`, { as: agent(a), body: { custom_attributes: ['a', 'c', 'zz'] } });
      expect(res.body.payload.custom_attributes).toEqual({ b: 2 });
      expectError(await h.call('POST', `${base(a)}/${c.id}/destroy_custom_attributes`, { as: agent(a), body: { custom_attributes: 'a' } }), 422, undefined, 'custom_attributes');
    });
  });

  describe('delete (SPEC 13)', () => {
    it('when an agent deletes, then 403 even for an unknown id, and the contact stays', async () => {
      const a = randomAccountId();
      const c = await create(a, { email: 'keep@acme.test' });
      expectError(await h.call('DELETE', `${base(a)}/${c.id}`, { as: agent(a) }), 403, 'forbidden');
      expectError(await h.call('DELETE', `${base(a)}/987654`, { as: agent(a) }), 403, 'forbidden');
      expect((await h.call('GET', `${base(a)}/${c.id}`, { as: agent(a) })).status).toBe(200);
    });

    it('when an administrator deletes, then {} , the contact and its contact_inboxes are gone and contact.deleted carries the snapshot', async () => {
      const a = randomAccountId();
      const inbox = h.stub.addInbox(makeInbox(a));
      const created = await h.call('POST', base(a), { as: admin(a), body: { name: 'Gone', email: 'gone@acme.test', inbox_id: inbox.id } });
      const c = created.body.payload.contact;
      const sourceId = created.body.payload.contact_inbox.source_id;
      const res = await h.call('DELETE', `${base(a)}/${c.id}`, { as: admin(a) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expectError(await h.call('GET', `${base(a)}/${c.id}`, { as: admin(a) }), 404, 'not_found');
      expectError(await h.call('DELETE', `${base(a)}/${c.id}`, { as: admin(a) }), 404, 'not_found');
      const [ev] = await outboxEvents(h.db, a, 'contact.deleted');
      expect(ev?.data).toMatchObject({ id: c.id, account_id: a, email: 'gone@acme.test' });
      const { rows } = await h.db.query('SELECT 1 FROM contacts.contact_inboxes WHERE inbox_id = $1 AND source_id = $2', [inbox.id, sourceId]);
      expect(rows).toHaveLength(0);
      // The email is free again.
      await create(a, { email: 'gone@acme.test' });
    });

    it('when a bot calls any contacts route, then 403', async () => {
      const a = randomAccountId();
      const bot = { accountId: a, role: null, actor: { type: 'agent_bot' as const, id: 5, name: 'Bot' } };
      expectError(await h.call('GET', base(a), { as: bot }), 403, 'forbidden');
      expectError(await h.call('POST', base(a), { as: bot, body: { name: 'x' } }), 403, 'forbidden');
    });
  });

  describe('list (SPEC 9)', () => {
    const a = randomAccountId();
    const made: Array<{ id: number; name: string; email: string; phone_number: string }> = [];

    beforeAll(async () => {
      // 17 resolved contacts and 2 anonymous ones; names repeat so ties need the id tie-break.
      for (let i = 0; i < 17; i++) {
        const name = ['delta', 'Alpha', 'charlie', 'bravo'][i % 4] as string;
        const body: Record<string, unknown> = { name };
        if (i % 3 === 0) body['email'] = `c${String(i).padStart(2, '0')}@acme.test`;
        else if (i % 3 === 1) body['phone_number'] = `+1415555${String(1000 + i)}`;
        else body['identifier'] = `ext-${i}`;
        made.push(await create(a, body));
      }
      await create(a, { name: 'anonymous one' });
      await create(a, { name: 'anonymous two', custom_attributes: { x: 1 } });
    });

    const list = (q = '') => h.call('GET', `${base(a)}${q}`, { as: agent(a) });

    it('when listed, then only resolved contacts count, 15 a page, current_page as a string', async () => {
      const p1 = await list();
      expect(p1.status).toBe(200);
      expect(p1.body.meta).toEqual({ count: 17, current_page: '1' });
      expect(p1.body.payload).toHaveLength(15);
      expect(p1.body.payload.every((c: any) => c.name !== 'anonymous one' && c.name !== 'anonymous two')).toBe(true);
      const p2 = await list('?page=2');
      expect(p2.body.meta).toEqual({ count: 17, current_page: '2' });
      expect(p2.body.payload).toHaveLength(2);
      const ids = new Set([...p1.body.payload, ...p2.body.payload].map((c: any) => c.id));
      expect(ids).toEqual(new Set(made.map((c) => c.id)));
      expect((await list('?page=3')).body).toEqual({ meta: { count: 17, current_page: '3' }, payload: [] });
      const slim = await list('?include_contact_inboxes=false');
      expect(slim.body.payload[0]).not.toHaveProperty('contact_inboxes');
    });

    it('when sorted by name either way, then case is ignored and ties keep a stable id order across pages', async () => {
      const asc = [...(await list('?sort=name')).body.payload, ...(await list('?sort=name&page=2')).body.payload];
      const expected = [...made].sort((x, y) => x.name.toLowerCase().localeCompare(y.name.toLowerCase()) || x.id - y.id).map((c) => c.id);
      expect(asc.map((c: any) => c.id)).toEqual(expected);
      const desc = [...(await list('?sort=-name')).body.payload, ...(await list('?sort=-name&page=2')).body.payload];
      const expectedDesc = [...made].sort((x, y) => y.name.toLowerCase().localeCompare(x.name.toLowerCase()) || y.id - x.id).map((c) => c.id);
      expect(desc.map((c: any) => c.id)).toEqual(expectedDesc);
      // The same query twice gives the same page.
      expect((await list('?sort=name&page=2')).body).toEqual((await list('?sort=name&page=2')).body);
    });

    it('when sorted by email or phone number, then contacts without one come last in both directions', async () => {
      const all = async (q: string) => [...(await list(q)).body.payload, ...(await list(`${q}&page=2`)).body.payload];
      const byEmail = (await all('?sort=email')).map((c: any) => c.email);
      const emails = made.filter((c) => c.email).map((c) => c.email).sort();
      expect(byEmail.slice(0, emails.length)).toEqual(emails);
      expect(byEmail.slice(emails.length).every((e: string) => e === '')).toBe(true);
      const byEmailDesc = (await all('?sort=-email')).map((c: any) => c.email);
      expect(byEmailDesc.slice(0, emails.length)).toEqual([...emails].reverse());
      const byPhoneDesc = (await all('?sort=-phone_number')).map((c: any) => c.phone_number);
      const phones = made.filter((c) => c.phone_number).map((c) => c.phone_number).sort().reverse();
      expect(byPhoneDesc.slice(0, phones.length)).toEqual(phones);
    });

    it('when sorted by last_activity_at, then the newest activity (from incoming messages) leads and inactive contacts trail', async () => {
      const [x, y] = [made[4]!, made[9]!];
      const t = Math.floor(Date.now() / 1000);
      const message = (contactId: number, at: number) => messageFixture(conversationFixture(a, 1, { contact_id: contactId }), { id: Math.floor(Math.random() * 1e9), content: 'hi', sender_type: 'Contact', sender_id: contactId, created_at: at });
      await h.bus.publish(envelope('message.created', a, message(x.id, t - 100)), envelope('message.created', a, message(y.id, t - 10)));
      // An outgoing message is not the contact's activity.
      await h.bus.publish(envelope('message.created', a, { ...message(made[0]!.id, t), message_type: 1, sender_type: 'User', sender_id: 3 }));
      await waitFor(async () => (await list('?sort=-last_activity_at')).body.payload[1]?.id === x.id, { what: 'activity applied' });
      const desc = (await list('?sort=-last_activity_at')).body.payload;
      expect(desc.slice(0, 2).map((c: any) => c.id)).toEqual([y.id, x.id]);
      expect(desc[0].last_activity_at).toBe(t - 10);
      expect(desc[2].last_activity_at).toBe(0);
      const asc = (await list('?sort=last_activity_at')).body.payload;
      expect(asc.slice(0, 2).map((c: any) => c.id)).toEqual([x.id, y.id]);
      // An older event arriving late does not move activity back.
      const late = envelope('message.created', a, message(y.id, t - 5000));
      await h.bus.publish(late);
      await processed(h.db, late.id);
      expect((await h.call('GET', `${base(a)}/${y.id}`, { as: agent(a) })).body.payload.last_activity_at).toBe(t - 10);
      // Several of one contact's messages together (one batch, one write): the latest wins, whatever their order.
      const [newer, older] = [envelope('message.created', a, message(x.id, t - 40)), envelope('message.created', a, message(x.id, t - 60))];
      await h.bus.publish(newer, older);
      await processed(h.db, newer.id);
      await processed(h.db, older.id);
      expect((await h.call('GET', `${base(a)}/${x.id}`, { as: agent(a) })).body.payload.last_activity_at).toBe(t - 40);
    });

    it('when filtered by labels[], then contacts with any of them are listed', async () => {
      const [x, y] = [made[1]!, made[2]!];
      await h.call('POST', `${base(a)}/${x.id}/labels`, { as: agent(a), body: { labels: ['vip'] } });
      await h.call('POST', `${base(a)}/${y.id}/labels`, { as: agent(a), body: { labels: ['billing', 'late'] } });
      expect((await list('?labels[]=vip')).body.payload.map((c: any) => c.id)).toEqual([x.id]);
      const both = await list('?labels[]=vip&labels[]=late&sort=name');
      expect(both.body.meta.count).toBe(2);
      expect(new Set(both.body.payload.map((c: any) => c.id))).toEqual(new Set([x.id, y.id]));
      expect((await list('?labels=billing')).body.payload.map((c: any) => c.id)).toEqual([y.id]);
    });

    it('when sort or page is not understood, then 400 with the Error body', async () => {
      for (const q of ['?sort=age', '?sort=--name', '?sort=name,name', '?page=0', '?page=-1', '?page=x', '?page=1.5', '?sort[]=name&sort[]=email']) {
        const res = await list(q);
        expect({ q, status: res.status }).toEqual({ q, status: 400 });
        expectError(res, 400);
      }
      expectError(await list('?sort=nope'), 400, 'invalid_parameter', 'sort');
    });
  });

  describe('search and filter', () => {
    const a = randomAccountId();
    let ann: any;
    let bob: any;
    let anon: any;
    beforeAll(async () => {
      ann = await create(a, { name: 'Ann Smith', email: 'ann@alpha.test', phone_number: '+15551230001', custom_attributes: { plan: 'pro', seats: 12 }, additional_attributes: { city: 'Porto', country_code: 'PT' } });
      bob = await create(a, { name: 'Bob 100%', identifier: 'crm_bob', custom_attributes: { plan: 'free', seats: 2 } });
      anon = await create(a, { name: 'Visitor Smith' });
      await h.call('POST', `${base(a)}/${bob.id}/labels`, { as: admin(a), body: { labels: ['vip'] } });
    });

    const search = (q: string) => h.call('GET', `${base(a)}/search?q=${encodeURIComponent(q)}`, { as: agent(a) });
    const ids = (res: any) => res.body.payload.map((c: any) => c.id).sort();

    it('when q matches name, email, phone or identifier (any case), then those contacts, anonymous ones included', async () => {
      expect(ids(await search('smith'))).toEqual([ann.id, anon.id].sort());
      expect(ids(await search('ALPHA.test'))).toEqual([ann.id]);
      expect(ids(await search('5551230'))).toEqual([ann.id]);
      expect(ids(await search('crm_b'))).toEqual([bob.id]);
      expect((await search('smith')).body.meta).toEqual({ count: 2, current_page: '1', has_more: false });
    });

    it('when q holds LIKE wildcards, then they match literally', async () => {
      expect(ids(await search('100%'))).toEqual([bob.id]);
      expect(ids(await search('%'))).toEqual([bob.id]);
      expect(ids(await search('crm_'))).toEqual([bob.id]);
      expect(ids(await search('_'))).toEqual([bob.id]);
    });

    it('when q is missing or blank, then 400 naming q', async () => {
      expectError(await h.call('GET', `${base(a)}/search`, { as: agent(a) }), 400, undefined, 'q');
      expectError(await search('   '), 400, undefined, 'q');
    });

    it('when filtered by conditions, then they combine left to right with and/or', async () => {
      const filter = (payload: unknown[]) => h.call('POST', `${base(a)}/filter`, { as: agent(a), body: { payload } });
      expect(ids(await filter([{ attribute_key: 'email', filter_operator: 'contains', values: ['ALPHA'] }]))).toEqual([ann.id]);
      expect(ids(await filter([{ attribute_key: 'plan', filter_operator: 'equal_to', values: ['PRO', 'free'] }]))).toEqual([ann.id, bob.id].sort());
      expect(ids(await filter([{ attribute_key: 'seats', filter_operator: 'is_greater_than', values: [5] }]))).toEqual([ann.id]);
      expect(ids(await filter([{ attribute_key: 'labels', filter_operator: 'equal_to', values: ['vip'] }]))).toEqual([bob.id]);
      expect(ids(await filter([{ attribute_key: 'city', filter_operator: 'equal_to', values: ['porto'] }]))).toEqual([ann.id]);
      expect(ids(await filter([{ attribute_key: 'email', filter_operator: 'is_not_present', values: [] }]))).toEqual([bob.id, anon.id].sort());
      expect(ids(await filter([{ attribute_key: 'phone_number', filter_operator: 'starts_with', values: ['+1555'] }]))).toEqual([ann.id]);
      expect(ids(await filter([{ attribute_key: 'created_at', filter_operator: 'is_greater_than', values: ['2000-01-01'] }]))).toHaveLength(3);
      expect(ids(await filter([{ attribute_key: 'name', filter_operator: 'does_not_contain', values: ['smith'] }]))).toEqual([bob.id]);
      // name contains smith AND plan = pro OR identifier present -> (ann) OR (bob)
      const combined = await filter([
        { attribute_key: 'name', filter_operator: 'contains', values: ['smith'], query_operator: 'AND' },
        { attribute_key: 'plan', filter_operator: 'equal_to', values: ['pro'], query_operator: 'or' },
        { attribute_key: 'identifier', filter_operator: 'is_present', values: [] },
      ]);
      expect(ids(combined)).toEqual([ann.id, bob.id].sort());
      expect(combined.body.meta).toEqual({ count: 2, current_page: '1' });
    });

    it('when a condition is not understood, then 422 names the condition field', async () => {
      const filter = (payload: unknown) => h.call('POST', `${base(a)}/filter`, { as: agent(a), body: { payload } });
      expectError(await filter([{ attribute_key: 'email', filter_operator: 'sounds_like', values: ['x'] }]), 422, undefined, 'payload.0.filter_operator');
      expectError(await filter([{ attribute_key: 'created_at', filter_operator: 'is_greater_than', values: ['someday'] }]), 422, undefined, 'payload.0.values');
      expectError(await filter([{ attribute_key: 'bad key!', filter_operator: 'equal_to', values: ['x'] }]), 422, undefined, 'payload.0.attribute_key');
      expectError(await filter([{ attribute_key: 'name', filter_operator: 'equal_to', values: [] }]), 422, undefined, 'payload.0.values');
      expectError(await filter([]), 422, undefined, 'payload');
      expectError(await filter('x'), 422, undefined, 'payload');
      expectError(await filter([{ attribute_key: 'name', filter_operator: 'equal_to', values: ['x'], query_operator: 'xor' }]), 422, undefined, 'payload.0.query_operator');
    });
  });

  describe('labels and contact inboxes', () => {
    it('when labels are replaced, then the list is exactly the new one (deduplicated) and listed back', async () => {
      const a = randomAccountId();
      const c = await create(a, { email: `${uniq('l')}@acme.test` });
      const path = `${base(a)}/${c.id}/labels`;
      expect((await h.call('GET', path, { as: agent(a) })).body).toEqual({ payload: [] });
      expect((await h.call('POST', path, { as: agent(a), body: { labels: ['vip', 'billing', 'vip'] } })).body).toEqual({ payload: ['vip', 'billing'] });
      expect((await h.call('POST', path, { as: agent(a), body: { labels: ['support'] } })).body).toEqual({ payload: ['support'] });
      expect((await h.call('GET', path, { as: agent(a) })).body).toEqual({ payload: ['support'] });
      const [ev] = (await outboxEvents(h.db, a, 'contact.updated')).slice(-1);
      expect(ev?.changes).toEqual({ labels: [['vip', 'billing'], ['support']] });
      for (const labels of ['vip', [''], ['a,b'], [1]]) expectError(await h.call('POST', path, { as: agent(a), body: { labels } }), 422, undefined, 'labels');
      expectError(await h.call('GET', `${base(a)}/99999999/labels`, { as: agent(a) }), 404, 'not_found');
    });

    it('when a contact inbox is added, then the same inbox gives back the same pair and a taken source id is 422', async () => {
      const a = randomAccountId();
      const inbox = h.stub.addInbox(makeInbox(a));
      const c = await create(a, { email: 'ci@acme.test' });
      const other = await create(a, { email: 'ci2@acme.test' });
      const first = await h.call('POST', `${base(a)}/${c.id}/contact_inboxes`, { as: agent(a), body: { inbox_id: inbox.id } });
      expect(first.body).toMatchObject({ source_id: expect.stringMatching(/^[0-9a-f-]{36}$/), hmac_verified: false, inbox: { id: inbox.id } });
      const again = await h.call('POST', `${base(a)}/${c.id}/contact_inboxes`, { as: agent(a), body: { inbox_id: inbox.id } });
      expect(again.body.source_id).toBe(first.body.source_id);
      expectError(await h.call('POST', `${base(a)}/${other.id}/contact_inboxes`, { as: agent(a), body: { inbox_id: inbox.id, source_id: first.body.source_id } }), 422, 'taken', 'source_id');
      const found = await h.call('POST', `/api/v1/accounts/${a}/contact_inboxes/filter`, { as: agent(a), body: { inbox_id: inbox.id, source_id: first.body.source_id } });
      expect(found.body.payload).toMatchObject({ id: c.id, contact_inboxes: [{ source_id: first.body.source_id }] });
      expectError(await h.call('POST', `/api/v1/accounts/${a}/contact_inboxes/filter`, { as: agent(a), body: { inbox_id: inbox.id, source_id: 'nope' } }), 404, 'not_found');
    });
  });
});
