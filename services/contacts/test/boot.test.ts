import { randomAccountId } from '@parley/testkit';
import { admin, expectError, startContacts, type ContactsHarness } from './support';

describe('contacts service boots', () => {
  let h: ContactsHarness;
  beforeAll(async () => {
    h = await startContacts();
  });
  afterAll(() => h?.close());

  it('when the service is up, then it is ready and serves its routes', async () => {
    expect((await h.call('GET', '/readyz', { as: false })).status).toBe(200);
    const a = randomAccountId();
    const created = await h.call('POST', `/api/v1/accounts/${a}/contacts`, { as: admin(a), body: { name: 'Smoke', email: 'Smoke@Example.com' } });
    expect(created.status).toBe(200);
    expect(created.body.payload.contact).toMatchObject({ name: 'Smoke', email: 'smoke@example.com' });
    const list = await h.call('GET', `/api/v1/accounts/${a}/contacts`, { as: admin(a) });
    expect(list.body).toMatchObject({ meta: { count: 1, current_page: '1' } });
  });

  it('when a request is not signed, then 401', async () => {
    expectError(await h.call('GET', '/api/v1/accounts/1/contacts', { as: false }), 401, 'unauthorized');
  });
});
