import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';

/** Contacts follow-ups (issue 15): search has_more, GET /contacts/active, contact merge, through the gateway. */
describe('contacts search has_more, active contacts and merge through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const make = async (body: Record<string, unknown>) => {
    const res = await call('POST', `${A()}/contacts`, { token: acc.admin.token, body: { inbox_id: inbox.id, ...body } });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.payload.contact;
  };

  beforeAll(async () => {
    stack = await startStack({ only: ['contacts', 'conversations'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
  });
  afterAll(() => stack?.stop());

  it('when a search has more than a page, then meta.has_more says so, and not on the last page', async () => {
    for (let i = 0; i < 16; i++) await make({ name: `Zed Many ${i}`, email: `zed-many-${i}@example.com` });
    const p1 = await call('GET', `${A()}/contacts/search?q=zed%20many`, { token: acc.agent.token });
    expect(p1.status).toBe(200);
    expect(p1.body.meta).toEqual({ count: 16, current_page: '1', has_more: true });
    expect(p1.body.payload).toHaveLength(15);
    const p2 = await call('GET', `${A()}/contacts/search?q=zed%20many&page=2`, { token: acc.agent.token });
    expect(p2.body.meta).toEqual({ count: 16, current_page: '2', has_more: false });
  });

  it('when active contacts are asked for, then an empty page answers (no presence is reported here), before /contacts/{id}', async () => {
    const res = await call('GET', `${A()}/contacts/active`, { token: acc.agent.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ meta: { count: 0, current_page: '1' }, payload: [] });
    expect((await call('GET', `${A()}/contacts/active?page=2`, { token: acc.agent.token })).body.meta.current_page).toBe('2');
    const bad = await call('GET', `${A()}/contacts/active?page=none`, { token: acc.agent.token });
    expect(bad.status).toBe(400);
    expectErrorBody(bad.body, 'invalid_parameter');
  });

  it('when two contacts are merged, then the base takes what it lacks, labels, contact inboxes and conversations; the mergee is gone', async () => {
    const base = await make({ name: 'Ann Base', identifier: 'ann-1', custom_attributes: { plan: 'pro' }, additional_attributes: { city: 'Porto' } });
    const mergee = await make({ name: 'Ann Other', email: 'ann.other@example.com', phone_number: '+15550111', custom_attributes: { plan: 'free', seats: 3 }, additional_attributes: { company_name: 'Acme' } });
    await call('POST', `${A()}/contacts/${base.id}/labels`, { token: acc.admin.token, body: { labels: ['vip'] } });
    await call('POST', `${A()}/contacts/${mergee.id}/labels`, { token: acc.admin.token, body: { labels: ['billing', 'vip'] } });
    const conv = await call('POST', `${A()}/conversations`, { token: acc.admin.token, body: { inbox_id: inbox.id, contact_id: mergee.id } });
    expect(conv.status).toBe(200);

    const res = await call('POST', `${A()}/actions/contact_merge`, { token: acc.agent.token, body: { base_contact_id: base.id, mergee_contact_id: String(mergee.id) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: base.id,
      name: 'Ann Base',
      identifier: 'ann-1',
      email: 'ann.other@example.com',
      phone_number: '+15550111',
      custom_attributes: { plan: 'pro', seats: 3 },
      additional_attributes: { city: 'Porto', company_name: 'Acme' },
    });
    expect(res.body.contact_inboxes.length).toBe(2);
    expect((await call('GET', `${A()}/contacts/${base.id}/labels`, { token: acc.admin.token })).body.payload.sort()).toEqual(['billing', 'vip']);
    const gone = await call('GET', `${A()}/contacts/${mergee.id}`, { token: acc.admin.token });
    expect(gone.status).toBe(404);
    // The conversations service moves the mergee's conversations on contact.merged.
    await waitFor(async () => {
      const list = await call('GET', `${A()}/contacts/${base.id}/conversations`, { token: acc.admin.token });
      return list.body.payload.some((c: any) => c.id === conv.body.id) ? true : null;
    }, { what: 'the conversation under the base contact' });
    const shown = await call('GET', `${A()}/conversations/${conv.body.id}`, { token: acc.admin.token });
    expect(shown.body.meta.sender.id).toBe(base.id);
  });

  it('when the merge names the same contact twice, an unknown one or a wrong id, then a 4xx Error body', async () => {
    const one = await make({ name: 'Solo', email: 'solo@example.com' });
    const merge = (body: unknown) => call('POST', `${A()}/actions/contact_merge`, { token: acc.admin.token, body });
    const same = await merge({ base_contact_id: one.id, mergee_contact_id: one.id });
    expect(same.status).toBe(422);
    expect(same.body.errors[0].field).toBe('mergee_contact_id');
    const unknown = await merge({ base_contact_id: one.id, mergee_contact_id: 999_999 });
    expect(unknown.status).toBe(404);
    expectErrorBody(unknown.body, 'not_found');
    const other = await seedAccount(stack);
    const foreign = await merge({ base_contact_id: one.id, mergee_contact_id: (await call('POST', `/api/v1/accounts/${other.accountId}/contacts`, { token: other.admin.token, body: { name: 'Theirs', email: 'theirs@example.com' } })).body.payload.contact.id });
    expect(foreign.status).toBe(404);
    const missing = await merge({ base_contact_id: one.id });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].field).toBe('mergee_contact_id');
    expect((await call('GET', `${A()}/contacts/${one.id}`, { token: acc.admin.token })).status).toBe(200);
  });
});
