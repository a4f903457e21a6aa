import { conversationFixture, malformedEnvelope, messageFixture, randomAccountId, waitFor } from '@parley/testkit';
import type { EventEnvelope } from '@parley/shared';
import { CONTACT_COLUMNS } from '../src/contacts/repository';
import { contactsService } from '../src/service';
import { CONTACT_INBOX_COLUMNS } from '../src/contact-inboxes/repository';
import { admin, agent, anonymous, envelope, expectError, makeInbox, outboxEvents, processed, service, startContacts, type ContactsHarness } from './support';

describe('internal API for the conversations service (docs/contracts.md)', () => {
  let h: ContactsHarness;
  beforeAll(async () => {
    h = await startContacts();
  });
  afterAll(() => h?.close());

  const createContact = async (a: number, body: Record<string, unknown>) => (await h.call('POST', `/api/v1/accounts/${a}/contacts`, { as: admin(a), body })).body.payload.contact;
  const resolve = (a: number, body: Record<string, unknown>) => h.call('POST', `/internal/accounts/${a}/contact_inboxes/resolve`, { as: service, body });

  it('when contacts and contact inboxes are read by their prepared statements, then CONTACT_COLUMNS and CONTACT_INBOX_COLUMNS name columns the tables have (the compiler holds them to the row types)', async () => {
    const columns = async (table: string) =>
      (await h.svc.deps.pool.query<{ name: string }>(`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, [table])).rows.map((r) => r.name);
    expect(await columns('contacts')).toEqual(expect.arrayContaining(CONTACT_COLUMNS.split(', ')));
    expect(await columns('contact_inboxes')).toEqual(expect.arrayContaining(CONTACT_INBOX_COLUMNS.split(', ')));
  });

  it('when a contact is asked for, then its ContactSnapshot; another account or an unknown id is 404', async () => {
    const a = randomAccountId();
    const c = await createContact(a, { name: 'Snap', email: 'snap@acme.test', custom_attributes: { k: 'v' } });
    const res = await h.call('GET', `/internal/accounts/${a}/contacts/${c.id}`, { as: service });
    expect(res.body).toEqual({
      id: c.id,
      account_id: a,
      name: 'Snap',
      email: 'snap@acme.test',
      phone_number: null,
      identifier: null,
      thumbnail: '',
      avatar_url: null,
      additional_attributes: {},
      custom_attributes: { k: 'v' },
      blocked: false,
      availability_status: 'offline',
      last_activity_at: null,
      created_at: c.created_at,
      labels: [],
      updated_at: expect.any(Number),
    });
    expectError(await h.call('GET', `/internal/accounts/${randomAccountId()}/contacts/${c.id}`, { as: service }), 404, 'not_found');
  });

  it('when a client or an agent calls the internal API, then 401 (services only)', async () => {
    const a = randomAccountId();
    expectError(await h.call('GET', `/internal/accounts/${a}/contacts/1`, { as: admin(a) }), 401, 'unauthorized');
    expectError(await h.call('GET', `/internal/accounts/${a}/contacts/1`, { as: anonymous }), 401, 'unauthorized');
    expectError(await h.call('GET', `/internal/accounts/${a}/contacts/1`, { as: false }), 401, 'unauthorized');
  });

  it('when resolved with a contact_id, then the pair is found or created once, even under concurrent calls', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const c = await createContact(a, { email: 'res@acme.test' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => resolve(a, { inbox_id: inbox.id, contact_id: c.id })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const sources = new Set(answers.map((r) => r.body.contact_inbox.source_id));
    expect(sources.size).toBe(1);
    expect(answers[0]!.body).toMatchObject({
      contact_inbox: { id: expect.any(Number), contact_id: c.id, inbox_id: inbox.id, hmac_verified: false, pubsub_token: expect.any(String) },
      contact: { id: c.id, account_id: a, email: 'res@acme.test' },
    });
    expect(await outboxEvents(h.db, a, 'contact_inbox.created')).toHaveLength(1);
    // hmac_verified: true upgrades the pair; a given source id is used as is.
    const verified = await resolve(a, { inbox_id: inbox.id, contact_id: c.id, hmac_verified: true });
    expect(verified.body.contact_inbox).toMatchObject({ source_id: [...sources][0], hmac_verified: true });
    const own = await resolve(a, { inbox_id: inbox.id, contact_id: c.id, source_id: 'mine-1' });
    expect(own.body.contact_inbox.source_id).toBe('mine-1');
  });

  it('when the source id belongs to another contact in the inbox, then 422 naming source_id', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const c1 = await createContact(a, { email: 'one@acme.test' });
    const c2 = await createContact(a, { email: 'two@acme.test' });
    await resolve(a, { inbox_id: inbox.id, contact_id: c1.id, source_id: 'shared' });
    expectError(await resolve(a, { inbox_id: inbox.id, contact_id: c2.id, source_id: 'shared' }), 422, 'taken', 'source_id');
  });

  it('when resolved without a contact_id, then only an existing pair is answered, else 404', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const c = await createContact(a, { email: 'look@acme.test' });
    await resolve(a, { inbox_id: inbox.id, contact_id: c.id, source_id: 'lookup-1' });
    const found = await resolve(a, { inbox_id: inbox.id, source_id: 'lookup-1' });
    expect(found.body.contact).toMatchObject({ id: c.id });
    expectError(await resolve(a, { inbox_id: inbox.id, source_id: 'nobody' }), 404, 'not_found');
    expectError(await resolve(randomAccountId(), { inbox_id: inbox.id, source_id: 'lookup-1' }), 404, 'not_found');
    expectError(await resolve(a, { inbox_id: inbox.id }), 422, 'required', 'source_id');
    expectError(await resolve(a, { inbox_id: 'x', contact_id: c.id }), 422, undefined, 'inbox_id');
    expectError(await resolve(a, { inbox_id: inbox.id, contact_id: 99999999 }), 404, 'not_found');
    expectError(await resolve(a, { inbox_id: 999999998, contact_id: c.id }), 422, 'not_found', 'inbox_id');
  });

  it('when a pair is looked up by inbox and source id, then {contact_inbox, contact}; unknown is 404', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const c = await createContact(a, { email: 'pair@acme.test' });
    await resolve(a, { inbox_id: inbox.id, contact_id: c.id, source_id: 'with space/and slash' });
    const res = await h.call('GET', `/internal/inboxes/${inbox.id}/contact_inboxes/${encodeURIComponent('with space/and slash')}`, { as: service });
    expect(res.body).toMatchObject({ contact_inbox: { source_id: 'with space/and slash', contact_id: c.id }, contact: { id: c.id } });
    expectError(await h.call('GET', `/internal/inboxes/${inbox.id}/contact_inboxes/nope`, { as: service }), 404, 'not_found');
  });
});

describe('inbox projection (inbox.* and inbox_member.* events)', () => {
  let h: ContactsHarness;
  beforeAll(async () => {
    h = await startContacts();
  });
  afterAll(() => h?.close());

  it('when inbox.created arrives, then the public API knows the inbox without asking the conversations service', async () => {
    const a = randomAccountId();
    const inbox = makeInbox(a); // never added to the stub
    const ev = envelope('inbox.created', a, { ...inbox });
    await h.bus.publish(ev);
    await processed(h.db, ev.id);
    const res = await h.call('POST', `/public/api/v1/inboxes/${inbox.identifier}/contacts`, { as: anonymous, body: { name: 'Via event' } });
    expect(res.status).toBe(200);
    expect(h.stub.calls.some((p) => p.includes(inbox.identifier))).toBe(false);
  });

  it('when inbox.updated turns hmac_mandatory on, then a create without a hash is refused; an older update does not undo it', async () => {
    const a = randomAccountId();
    const inbox = makeInbox(a);
    const t = Date.now();
    const created = envelope('inbox.created', a, { ...inbox }, { occurredAt: new Date(t - 2000) });
    const strict = envelope('inbox.updated', a, { ...inbox, hmac_mandatory: true }, { occurredAt: new Date(t) });
    const stale = envelope('inbox.updated', a, { ...inbox, hmac_mandatory: false, name: 'stale' }, { occurredAt: new Date(t - 1000) });
    await h.bus.publish(created);
    await processed(h.db, created.id);
    await h.bus.publish(strict);
    await processed(h.db, strict.id);
    await h.bus.publish(stale);
    await processed(h.db, stale.id);
    expectError(await h.call('POST', `/public/api/v1/inboxes/${inbox.identifier}/contacts`, { as: anonymous, body: { name: 'x' } }), 401, 'invalid_identifier_hash');
  });

  it('when inbox.deleted arrives, then the inbox is unknown and its contact inboxes go, the contacts stay', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a));
    const created = await h.call('POST', `/public/api/v1/inboxes/${inbox.identifier}/contacts`, { as: anonymous, body: { email: 'stay@acme.test' } });
    h.stub.removeInbox(inbox);
    const ev = envelope('inbox.deleted', a, { ...inbox });
    await h.bus.publish(ev);
    await processed(h.db, ev.id);
    expectError(await h.call('GET', `/public/api/v1/inboxes/${inbox.identifier}/contacts/${created.body.source_id}`, { as: anonymous }), 404, 'not_found');
    const contact = await h.call('GET', `/api/v1/accounts/${a}/contacts/${created.body.id}`, { as: admin(a) });
    expect(contact.body.payload).toMatchObject({ email: 'stay@acme.test', contact_inboxes: [] });
    // A late inbox.updated does not bring it back.
    const late = envelope('inbox.updated', a, { ...inbox, name: 'zombie' });
    await h.bus.publish(late);
    await processed(h.db, late.id);
    expectError(await h.call('POST', `/public/api/v1/inboxes/${inbox.identifier}/contacts`, { as: anonymous, body: {} }), 404, 'not_found');
  });

  it('when asked for contactable inboxes, then administrators get every API inbox and agents their member inboxes, with the newest source id', async () => {
    const a = randomAccountId();
    const [i1, i2] = [makeInbox(a), makeInbox(a)];
    const evs = [envelope('inbox.created', a, { ...i1 }), envelope('inbox.created', a, { ...i2 }), envelope('inbox_member.added', a, { id: 1, inbox_id: i2.id, user_id: 7 })];
    await h.bus.publish(...evs);
    for (const ev of evs) await processed(h.db, ev.id);
    const c = (await h.call('POST', `/api/v1/accounts/${a}/contacts`, { as: admin(a), body: { email: 'reach@acme.test', inbox_id: i1.id, source_id: 'known-src' } })).body.payload.contact;
    const asAdmin = await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}/contactable_inboxes`, { as: admin(a) });
    expect(asAdmin.body.payload).toHaveLength(2);
    const byInbox = Object.fromEntries(asAdmin.body.payload.map((p: any) => [p.inbox.id, p.source_id]));
    expect(byInbox[i1.id]).toBe('known-src');
    expect(byInbox[i2.id]).toMatch(/^[0-9a-f-]{36}$/);
    expect(asAdmin.body.payload[0].inbox).not.toHaveProperty('hmac_token');
    const asMember = await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}/contactable_inboxes`, { as: agent(a, 7) });
    expect(asMember.body.payload.map((p: any) => p.inbox.id)).toEqual([i2.id]);
    const removed = envelope('inbox_member.removed', a, { id: 1, inbox_id: i2.id, user_id: 7 });
    await h.bus.publish(removed);
    await processed(h.db, removed.id);
    expect((await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}/contactable_inboxes`, { as: agent(a, 7) })).body.payload).toEqual([]);
  });

  it('when an inbox is read through by id, then the copy answers later reads and any event, even an old one, replaces it; older events never overwrite newer ones', async () => {
    const a = randomAccountId();
    const inbox = h.stub.addInbox(makeInbox(a, { name: 'Read through' }));
    const before = h.stub.lookups.inboxes;
    const c = (await h.call('POST', `/api/v1/accounts/${a}/contacts`, { as: admin(a), body: { email: 'rt@acme.test', inbox_id: inbox.id } })).body.payload.contact;
    expect(h.stub.lookups.inboxes).toBe(before + 1);
    const copy = async () => (await h.db.query(`SELECT data->>'name' AS name, version_at = '-infinity' AS read_through FROM contacts.projections WHERE kind = 'inbox' AND id = $1`, [inbox.id])).rows[0];
    expect(await copy()).toEqual({ name: 'Read through', read_through: true });
    const shown = await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}`, { as: admin(a) });
    expect(shown.body.payload.contact_inboxes.map((ci: any) => ci.inbox.name)).toEqual(['Read through']);
    expect(h.stub.lookups.inboxes).toBe(before + 1);

    const newer = envelope('inbox.updated', a, { ...inbox, name: 'Newer' }, { occurredAt: new Date('2001-01-02T00:00:00Z') });
    const older = envelope('inbox.updated', a, { ...inbox, name: 'Older' }, { occurredAt: new Date('2001-01-01T00:00:00Z') });
    await h.bus.publish(newer);
    await processed(h.db, newer.id);
    await h.bus.publish(older);
    await processed(h.db, older.id);
    expect(await copy()).toEqual({ name: 'Newer', read_through: false });
  });

  it('when an event is delivered twice, then it has one effect; a malformed one is dead-lettered and the queue goes on', async () => {
    const a = randomAccountId();
    const inbox = makeInbox(a);
    const ev = envelope('inbox.created', a, { ...inbox });
    await h.bus.publish(ev, ev);
    await processed(h.db, ev.id);
    const bad = malformedEnvelope('inbox.created', a, { id: 5, name: 'no account' });
    const next = envelope('inbox_member.added', a, { id: 2, inbox_id: inbox.id, user_id: 9 });
    await h.bus.publish(bad, next);
    await processed(h.db, next.id);
    const { rows } = await h.db.query('SELECT count(*)::int AS n FROM contacts.processed_events WHERE event_id = $1', [bad.id]);
    expect(rows[0].n).toBe(0);
    await waitFor(async () => (await h.db.query('SELECT 1 FROM contacts.inbox_members WHERE inbox_id = $1 AND user_id = 9', [inbox.id])).rowCount === 1);
  });

  it("when messages arrive, then a contact's own is handled (once, also when delivered again) and agents' replies never reach the queue", async () => {
    // Every message.created the queue is given is counted once by the consumer, whatever it does with it.
    const delivered = async () =>
      (await h.svc.deps.metrics.events.get()).values.filter((v) => v.labels['queue'] === 'contacts.events' && v.labels['type'] === 'message.created').reduce((n, v) => n + v.value, 0);
    const before = await delivered();
    const a = randomAccountId();
    const c = (await h.call('POST', `/api/v1/accounts/${a}/contacts`, { as: admin(a), body: { name: 'Busy', email: `busy-${a}@acme.test` } })).body.payload.contact;
    const t = Math.floor(Date.now() / 1000);
    const conv = conversationFixture(a, 1, { contact_id: c.id });
    const reply = envelope('message.created', a, messageFixture(conv, { id: 1, content: 'on it', message_type: 1, sender_type: 'User', sender_id: 3, created_at: t + 500 }));
    const own = envelope('message.created', a, messageFixture(conv, { id: 2, content: 'hi', sender_type: 'Contact', sender_id: c.id, created_at: t - 50 }));
    // The queue gets a contact's message.created only (bound on the sender-type header): the contact's own
    // message is handled, in one batch with its redelivered copy; the reply is never delivered.
    await h.bus.publish(reply, own, own);
    await processed(h.db, own.id);
    const { rows } = await h.db.query('SELECT event_id FROM contacts.processed_events WHERE event_id = ANY($1::uuid[])', [[reply.id, own.id]]);
    expect(rows.map((r: { event_id: string }) => r.event_id)).toEqual([own.id]);
    expect((await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}`, { as: admin(a) })).body.payload.last_activity_at).toBe(t - 50);
    // Delivered again later: no second effect.
    await h.bus.publish(own);
    const after = envelope('message.created', a, messageFixture(conv, { id: 3, content: 'again', sender_type: 'Contact', sender_id: c.id, created_at: t - 40 }));
    await h.bus.publish(after);
    await processed(h.db, after.id);
    expect((await h.db.query('SELECT count(*)::int AS n FROM contacts.processed_events WHERE event_id = $1', [own.id])).rows[0].n).toBe(1);
    expect((await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}`, { as: admin(a) })).body.payload.last_activity_at).toBe(t - 40);
    // The contact's message three times and the later one: the broker kept the reply away.
    // The consumer counts a batch's events once its COMMIT has answered, a moment after the
    // processed_events row `processed` waited for can be read.
    await waitFor(async () => (await delivered()) - before >= 4, { what: 'four message.created counted' });
    expect((await delivered()) - before).toBe(4);
  });
});

describe("a contact's activity waits for company (CONTACTS_ACTIVITY_BATCH_WAIT_MS), what requests read does not", () => {
  let h: ContactsHarness;
  beforeAll(async () => {
    // The activity's longest wait, so a slow machine still delivers the second event within it.
    h = await startContacts({ CONTACTS_ACTIVITY_BATCH_WAIT_MS: 1000 });
  });
  afterAll(() => h?.close());

  it("when a contact's message is followed by an inbox membership within the activity's wait, then the membership takes the activity along in one transaction at its own short wait", async () => {
    const a = randomAccountId();
    const c = (await h.call('POST', `/api/v1/accounts/${a}/contacts`, { as: admin(a), body: { name: 'Waits', email: `waits-${a}@acme.test` } })).body.payload.contact;
    const inbox = makeInbox(a);
    const t = Math.floor(Date.now() / 1000);
    const own = envelope('message.created', a, messageFixture(conversationFixture(a, 1, { contact_id: c.id }), { id: 1, content: 'hi', sender_type: 'Contact', sender_id: c.id, created_at: t }));
    await h.bus.publish(own);
    // Delivered to the consumer (nothing ready in the queue), still waiting a while later (5 ms would
    // have taken it), then the membership.
    await waitFor(async () => (await h.bus.messageCount('contacts.events')) === 0, { what: 'the activity delivered' });
    await new Promise((r) => setTimeout(r, 200));
    expect((await h.db.query('SELECT 1 FROM contacts.processed_events WHERE event_id = $1', [own.id])).rowCount).toBe(0);
    const member = envelope('inbox_member.added', a, { id: 3, inbox_id: inbox.id, user_id: 11 });
    await h.bus.publish(member);
    await processed(h.db, member.id);
    await processed(h.db, own.id);
    // One transaction: the same now() (a batch of its own would have gone 5 ms after the activity arrived).
    const { rows } = await h.db.query('SELECT DISTINCT processed_at FROM contacts.processed_events WHERE event_id = ANY($1::uuid[])', [[own.id, member.id]]);
    expect(rows).toHaveLength(1);
    expect((await h.call('GET', `/api/v1/accounts/${a}/contacts/${c.id}`, { as: admin(a) })).body.payload.last_activity_at).toBe(t);
  });

  it("when the consumer's batches are set up, then a contact's message waits the activity's wait and every other event the consumers' short one", () => {
    const [spec] = contactsService.consumers!(h.svc.deps);
    const wait = spec?.batch?.maxWaitMs;
    if (typeof wait !== 'function') throw new Error('the contacts consumer has no wait of each event');
    const of = (type: string) => wait({ type } as EventEnvelope);
    expect(of('message.created')).toBe(1000);
    const others = [...(spec?.bindings ?? []), ...(spec?.headerBindings ?? []).map((b) => b.type)].filter((t) => t !== 'message.created');
    expect(others).toEqual(expect.arrayContaining(['inbox.created', 'inbox.updated', 'inbox.deleted', 'inbox_member.added', 'inbox_member.removed', 'account.deleted']));
    for (const type of others) expect([type, of(type)]).toEqual([type, h.svc.deps.config.CONSUMER_BATCH_WAIT_MS]);
  });
});
