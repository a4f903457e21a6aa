import { createHmac } from 'node:crypto';
import { randomAccountId, uniq } from '@parley/testkit';
import { admin, anonymous, expectError, makeInbox, outboxEvents, PNG_1X1, PUBLIC_BASE, startContacts, type ContactsHarness } from './support';
import type { Inbox } from '@parley/shared';

const hmac = (key: string, identifier: string) => createHmac('sha256', key).update(identifier).digest('hex');

describe('public contact API (SPEC 5, service level)', () => {
  let h: ContactsHarness;
  beforeAll(async () => {
    h = await startContacts({ AVATAR_MAX_BYTES: 4096 });
  });
  afterAll(() => h?.close());

  const path = (inbox: Inbox, rest = '') => `/public/api/v1/inboxes/${inbox.identifier}/contacts${rest}`;
  const post = (inbox: Inbox, body: Record<string, unknown>) => h.call('POST', path(inbox), { as: anonymous, body });
  const verifiedOf = async (inbox: Inbox, sourceId: string) =>
    (await h.db.query<{ hmac_verified: boolean }>('SELECT hmac_verified FROM contacts.contact_inboxes WHERE inbox_id = $1 AND source_id = $2', [inbox.id, sourceId])).rows[0]?.hmac_verified;

  it('when a client creates a contact, then {id, source_id, name, email, phone_number, pubsub_token} and the contact exists in the account', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const res = await post(inbox, { name: 'Web Visitor', email: 'Visit@Acme.test', phone_number: '+14155550100', custom_attributes: { plan: 'trial' }, additional_attributes: { city: 'ignored' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(Number), source_id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Web Visitor', email: 'visit@acme.test', phone_number: '+14155550100', pubsub_token: expect.any(String) });
    const shown = await h.call('GET', `/api/v1/accounts/${a}/contacts/${res.body.id}`, { as: admin(a) });
    expect(shown.body.payload).toMatchObject({ name: 'Web Visitor', custom_attributes: { plan: 'trial' }, additional_attributes: {}, contact_inboxes: [{ source_id: res.body.source_id, inbox: { id: inbox.id } }] });
    const [created] = await outboxEvents(h.db, a, 'contact.created');
    expect(created?.actor).toMatchObject({ type: 'contact', id: res.body.id });
    expect(await outboxEvents(h.db, a, 'contact_inbox.created')).toHaveLength(1);
    expect(await verifiedOf(inbox, res.body.source_id)).toBe(false);
  });

  it('when no name is given, then a visitor name is made up; blank fields are no value', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const res = await post(inbox, { email: '', phone_number: ' ' });
    expect(res.status).toBe(200);
    expect(res.body.name).toMatch(/^[a-z]+-[a-z]+-\d{3}$/);
    expect(res.body).toMatchObject({ email: '', phone_number: '' });
  });

  it('when the same person comes back by identifier, email or phone, then the same contact gets a new contact inbox', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const first = await post(inbox, { identifier: 'u-1', email: 'same@acme.test', phone_number: '+14155550111' });
    for (const body of [{ identifier: 'u-1' }, { email: 'SAME@acme.test' }, { phone_number: '+14155550111' }]) {
      const again = await post(inbox, body);
      expect(again.body.id).toBe(first.body.id);
      expect(again.body.source_id).not.toBe(first.body.source_id);
    }
    expect(await outboxEvents(h.db, a, 'contact.created')).toHaveLength(1);
    // A known source id answers that pair unchanged.
    const bySource = await post(inbox, { source_id: first.body.source_id, name: 'Changed?' });
    expect(bySource.body).toEqual(first.body);
    // A new source id of the client's choosing is kept.
    const own = await post(inbox, { source_id: 'client-chosen-1', email: 'fresh@acme.test' });
    expect(own.body.source_id).toBe('client-chosen-1');
  });

  it('when a client sends the same new source id twice at once (a retried request), then both answers are the one pair', async () => {
    for (let i = 0; i < 3; i++) {
      const a = randomAccountId();
      const inbox = h.stub.addInbox(makeInbox(a));
      const sourceId = uniq('retry');
      const [x, y] = await Promise.all([post(inbox, { source_id: sourceId, name: 'Twice' }), post(inbox, { source_id: sourceId, name: 'Twice' })]);
      expect([x.status, y.status]).toEqual([200, 200]);
      expect(y.body).toEqual(x.body);
      expect(await outboxEvents(h.db, a, 'contact.created')).toHaveLength(1);
    }
  });

  it('when the same new identifier arrives twice at once, then one contact gets two contact inboxes', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const identifier = uniq('same-user');
    const [x, y] = await Promise.all([post(inbox, { identifier }), post(inbox, { identifier })]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(y.body.id).toBe(x.body.id);
    expect(y.body.source_id).not.toBe(x.body.source_id);
    expect(await outboxEvents(h.db, a, 'contact.created')).toHaveLength(1);
  });

  it('when a correct identifier_hash comes with the identifier, then the contact inbox is verified', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const identifier = uniq('user');
    const res = await post(inbox, { identifier, identifier_hash: hmac(inbox.hmac_token, identifier), name: 'Verified' });
    expect(res.status).toBe(200);
    expect(await verifiedOf(inbox, res.body.source_id)).toBe(true);
    const [ev] = await outboxEvents(h.db, a, 'contact_inbox.created');
    expect(ev?.data).toMatchObject({ hmac_verified: true, source_id: res.body.source_id });
    // Upper-case hex is the same hash.
    const upper = await post(inbox, { identifier, identifier_hash: hmac(inbox.hmac_token, identifier).toUpperCase() });
    expect(upper.status).toBe(200);
  });

  it('when the identifier_hash is wrong, or missing where the inbox makes it mandatory, then 401 with the Error body and nothing is created', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const strict = h.stub.addInbox(makeInbox(a, { hmac_mandatory: true }));
    expectError(await post(inbox, { identifier: 'x', identifier_hash: hmac(inbox.hmac_token, 'y') }), 401, 'invalid_identifier_hash', 'identifier_hash');
    expectError(await post(inbox, { identifier: 'x', identifier_hash: hmac('another-key', 'x') }), 401, 'invalid_identifier_hash');
    expectError(await post(inbox, { identifier: 'x', identifier_hash: 'zz' }), 401, 'invalid_identifier_hash');
    expectError(await post(strict, { identifier: 'x', email: 'x@acme.test' }), 401, 'invalid_identifier_hash', 'identifier_hash');
    expect(await outboxEvents(h.db, a)).toHaveLength(0);
    const ok = await post(strict, { identifier: 'x', identifier_hash: hmac(strict.hmac_token, 'x') });
    expect(ok.status).toBe(200);
    // On a mandatory inbox, show without the hash is refused too.
    expectError(await h.call('GET', path(strict, `/${ok.body.source_id}`), { as: anonymous }), 401, 'invalid_identifier_hash');
  });

  it('when shown by source id with a correct hash, then the pair is verified; a hash for another identifier is 401', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const created = await post(inbox, { identifier: 'show-1', name: 'Shown' });
    const src = created.body.source_id;
    const plain = await h.call('GET', path(inbox, `/${src}`), { as: anonymous });
    expect(plain.body).toEqual(created.body);
    expect(await verifiedOf(inbox, src)).toBe(false);
    // A valid hash of some other identifier proves nothing about this contact.
    const other = await h.call('GET', path(inbox, `/${src}?identifier=someone-else&identifier_hash=${hmac(inbox.hmac_token, 'someone-else')}`), { as: anonymous });
    expectError(other, 401, 'invalid_identifier_hash');
    expect(await verifiedOf(inbox, src)).toBe(false);
    const good = await h.call('GET', path(inbox, `/${src}?identifier=show-1&identifier_hash=${hmac(inbox.hmac_token, 'show-1')}`), { as: anonymous });
    expect(good.status).toBe(200);
    expect(await verifiedOf(inbox, src)).toBe(true);
  });

  it('when updated, then blanks are ignored, custom attributes merge, identifier is not changed, and the raw contact is answered', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const created = await post(inbox, { identifier: 'up-1', name: 'Before', email: 'before@acme.test', custom_attributes: { a: 1 } });
    const res = await h.call('PATCH', path(inbox, `/${created.body.source_id}`), { as: anonymous, body: { name: 'After', email: '', identifier: 'hijack', custom_attributes: { b: 2 } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: created.body.id,
      account_id: a,
      company_id: null,
      name: 'After',
      email: 'before@acme.test',
      phone_number: '',
      identifier: 'up-1',
      contact_type: 'lead',
      country_code: '',
      last_name: '',
      middle_name: '',
      location: '',
      last_activity_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      blocked: false,
      thumbnail: '',
      additional_attributes: {},
      custom_attributes: { a: 1, b: 2 },
      label_list: [],
    });
    const [ev] = await outboxEvents(h.db, a, 'contact.updated');
    expect(ev?.changes).toEqual({ name: ['Before', 'After'], custom_attributes: [{ a: 1 }, { a: 1, b: 2 }] });
    expect(ev?.actor).toMatchObject({ type: 'contact', id: created.body.id });
  });

  it('when an update takes another contact\'s email, then 409 naming email (no silent merge)', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    await post(inbox, { email: 'owner@acme.test' });
    const me = await post(inbox, { email: 'me@acme.test' });
    expectError(await h.call('PATCH', path(inbox, `/${me.body.source_id}`), { as: anonymous, body: { email: 'owner@acme.test' } }), 409, 'taken', 'email');
    expectError(await h.call('PATCH', path(inbox, `/${me.body.source_id}`), { as: anonymous, body: { phone_number: '12345' } }), 422, undefined, 'phone_number');
  });

  it('when an avatar is uploaded with the create form, then the thumbnail serves it; a non-image is 422', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const form = new FormData();
    form.set('name', 'Has Face');
    form.set('avatar', new Blob([PNG_1X1], { type: 'image/png' }), 'face.png');
    const res = await h.call('POST', path(inbox), { as: anonymous, form });
    expect(res.status).toBe(200);
    const updated = await h.call('PATCH', path(inbox, `/${res.body.source_id}`), { as: anonymous, body: { name: 'Has Face' } });
    expect(updated.body.thumbnail).toMatch(new RegExp(`^${PUBLIC_BASE}/public/api/v1/contact_avatars/`));
    const bad = new FormData();
    bad.set('avatar', new Blob(['GIF88a not really'], { type: 'image/gif' }), 'x.gif');
    expectError(await h.call('POST', path(inbox), { as: anonymous, form: bad }), 422, 'invalid_type', 'avatar');
    const byUrl = await h.call('PATCH', path(inbox, `/${res.body.source_id}`), { as: anonymous, body: { avatar_url: 'https://cdn.acme.test/face.jpg' } });
    expect(byUrl.body.thumbnail).toBe('https://cdn.acme.test/face.jpg');
  });

  it('when the inbox or the source id is unknown, then 404 with the Error body', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    expectError(await h.call('POST', '/public/api/v1/inboxes/no-such-inbox/contacts', { as: anonymous, body: {} }), 404, 'not_found', 'inbox_identifier');
    expectError(await h.call('POST', '/public/api/v1/inboxes/bad%20id!/contacts', { as: anonymous, body: {} }), 404, 'not_found');
    expectError(await h.call('GET', path(inbox, '/no-such-source'), { as: anonymous }), 404, 'not_found', 'contact_identifier');
    expectError(await h.call('PATCH', path(inbox, '/no-such-source'), { as: anonymous, body: { name: 'x' } }), 404, 'not_found');
    // A source id of another inbox is not this inbox's.
    const other = h.stub.addInbox(makeInbox(a));
    const there = await post(other, { email: 'there@acme.test' });
    expectError(await h.call('GET', path(inbox, `/${there.body.source_id}`), { as: anonymous }), 404, 'not_found');
  });

  it('when the body is invalid, then 422 names the field; malformed JSON is 400', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    expectError(await post(inbox, { email: 'nope' }), 422, undefined, 'email');
    expectError(await post(inbox, { phone_number: '555' }), 422, undefined, 'phone_number');
    expectError(await post(inbox, { custom_attributes: { a: { b: 1 } } }), 422, undefined, 'custom_attributes.a');
    expectError(await post(inbox, { name: 'n'.repeat(300) }), 422, undefined, 'name');
    expectError(await h.call('POST', path(inbox), { as: anonymous, raw: '{oops' }), 400, 'malformed_json');
  });

  it('when the conversations service does not know the inbox yet, then the lookup reads through once and remembers it', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const before = h.stub.calls.length;
    await post(inbox, { email: 'rt1@acme.test' });
    await post(inbox, { email: 'rt2@acme.test' });
    const asked = h.stub.calls.slice(before).filter((p) => p.includes(inbox.identifier));
    expect(asked).toEqual([`GET /internal/inboxes/by_identifier/${inbox.identifier}`]);
  });

  it('when made-up inbox identifiers are tried again and again, then the conversations service is asked once per identifier', async () => {
    const made = `made-up-${Date.now()}`;
    for (let i = 0; i < 3; i++) expectError(await h.call('POST', `/public/api/v1/inboxes/${made}/contacts`, { as: anonymous, body: {} }), 404, 'not_found');
    expect(h.stub.calls.filter((p) => p.includes(made))).toHaveLength(1);
  });
});
