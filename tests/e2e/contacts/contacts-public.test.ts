import { uniq } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, identifierHash, PNG_1X1, sendForm, type ApiInbox } from '../../support/contacts';

describe('public contact API through the gateway (SPEC 5)', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  let strict: ApiInbox;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
    strict = await createApiInbox(call, acc, { hmacMandatory: true, name: 'Verified only' });
  });
  afterAll(() => stack?.stop());

  const publicContacts = (i: ApiInbox, rest = '') => `/public/api/v1/inboxes/${i.inbox_identifier}/contacts${rest}`;

  /** Whether the contact's pair in the inbox is verified, as an agent sees it. */
  async function verified(contactId: number, i: ApiInbox): Promise<boolean> {
    const res = await call('POST', `/api/v1/accounts/${acc.accountId}/contacts/${contactId}/contact_inboxes`, { token: acc.agent.token, body: { inbox_id: i.id } });
    expect(res.status).toBe(200);
    return res.body.hmac_verified;
  }

  it('when a client creates a contact without credentials, then SPEC 5 fields come back and agents see the contact', async () => {
    const email = `${uniq('visitor')}@acme.test`;
    const res = await call('POST', publicContacts(inbox), { body: { name: 'Visitor', email, phone_number: '+14155550199', custom_attributes: { plan: 'trial' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(Number), source_id: expect.any(String), name: 'Visitor', email, phone_number: '+14155550199', pubsub_token: expect.any(String) });
    expect(await verified(res.body.id, inbox)).toBe(false);
    const seen = await call('GET', `/api/v1/accounts/${acc.accountId}/contacts/${res.body.id}`, { token: acc.agent.token });
    expect(seen.body.payload).toMatchObject({ email, custom_attributes: { plan: 'trial' }, contact_inboxes: [{ source_id: res.body.source_id, inbox: { id: inbox.id } }] });
    const shown = await call('GET', publicContacts(inbox, `/${res.body.source_id}`));
    expect(shown.body).toEqual(res.body);
  });

  it('when the identifier_hash is the HMAC of the identifier, then the contact inbox is verified', async () => {
    const identifier = uniq('user');
    const res = await call('POST', publicContacts(inbox), { body: { identifier, identifier_hash: identifierHash(inbox, identifier), name: 'Known user' } });
    expect(res.status).toBe(200);
    expect(await verified(res.body.id, inbox)).toBe(true);
    // On the inbox where it is mandatory, the right hash opens the door too.
    const ok = await call('POST', publicContacts(strict), { body: { identifier, identifier_hash: identifierHash(strict, identifier) } });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(res.body.id);
  });

  it('when the identifier_hash is wrong, or missing where mandatory, then 401 with the Error body', async () => {
    const identifier = uniq('user');
    const wrong = await call('POST', publicContacts(inbox), { body: { identifier, identifier_hash: identifierHash(strict, identifier) } });
    expect(wrong.status).toBe(401);
    expectErrorBody(wrong.body, 'invalid_identifier_hash');
    const missing = await call('POST', publicContacts(strict), { body: { identifier, email: `${identifier}@acme.test` } });
    expect(missing.status).toBe(401);
    expectErrorBody(missing.body, 'invalid_identifier_hash');
    const none = await call('GET', `/api/v1/accounts/${acc.accountId}/contacts/search?q=${identifier}`, { token: acc.agent.token });
    expect(none.body.meta.count).toBe(0);
  });

  it('when a client updates its contact, then blanks are ignored, attributes merge and the full contact comes back', async () => {
    const created = await call('POST', publicContacts(inbox), { body: { name: 'Old name', custom_attributes: { a: '1' } } });
    const res = await call('PATCH', publicContacts(inbox, `/${created.body.source_id}`), { body: { name: 'New name', email: '', custom_attributes: { b: '2' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, account_id: acc.accountId, name: 'New name', email: '', custom_attributes: { a: '1', b: '2' }, label_list: [] });
    const bad = await call('PATCH', publicContacts(inbox, `/${created.body.source_id}`), { body: { email: 'broken' } });
    expect(bad.status).toBe(422);
    expectErrorBody(bad.body);
    expect(bad.body.errors[0].field).toBe('email');
  });

  it('when an avatar is uploaded with the public create form, then the contact shows it', async () => {
    const form = new FormData();
    form.set('name', 'Picture person');
    form.set('avatar', new Blob([PNG_1X1], { type: 'image/png' }), 'me.png');
    const res = await sendForm(stack.gatewayUrl, 'POST', publicContacts(inbox), form);
    expect(res.status).toBe(200);
    const seen = await call('GET', `/api/v1/accounts/${acc.accountId}/contacts/${res.body.id}`, { token: acc.agent.token });
    const img = await fetch(stack.gatewayUrl + new URL(seen.body.payload.thumbnail).pathname);
    expect(img.status).toBe(200);
    expect(Buffer.from(await img.arrayBuffer()).equals(PNG_1X1)).toBe(true);
  });

  it('when the inbox or the contact identifier is unknown, then 404 with the Error body', async () => {
    const noInbox = await call('POST', '/public/api/v1/inboxes/NoSuchInboxIdentifier1234/contacts', { body: { name: 'x' } });
    expect(noInbox.status).toBe(404);
    expectErrorBody(noInbox.body, 'not_found');
    const noContact = await call('GET', publicContacts(inbox, '/no-such-source-id'));
    expect(noContact.status).toBe(404);
    expectErrorBody(noContact.body, 'not_found');
    const malformed = await call('POST', publicContacts(inbox), { raw: '{"name"' });
    expect(malformed.status).toBe(400);
    expectErrorBody(malformed.body, 'malformed_json');
  });
});
