import { createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

describe('labels and canned responses (service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  const base = () => `/api/v1/accounts/${acc.accountId}`;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());
  beforeEach(async () => {
    acc = await h.account();
  });

  describe('labels', () => {
    it('when an administrator creates labels, then everyone lists them and label.created is written', async () => {
      const res = await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { label: { title: 'Billing', description: 'Money', color: '#FF0000' } } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: expect.any(Number), title: 'billing', description: 'Money', color: '#FF0000', show_on_sidebar: true });
      await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'vip' } });
      const list = await h.call('GET', `${base()}/labels`, { as: acc.agent });
      expect(list.body.payload.map((l: any) => l.title)).toEqual(['billing', 'vip']);
      expect((await h.call('GET', `${base()}/labels/${res.body.id}`, { as: acc.agent })).body.title).toBe('billing');
      expect((await h.events(acc.accountId, 'label.created')).map((e) => e.data.title)).toEqual(['billing', 'vip']);
    });

    it('when a migration adds a column to labels while the service runs, then the list (a prepared statement) still answers the same', async () => {
      await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'billing' } });
      const before = await h.call('GET', `${base()}/labels`, { as: acc.agent });
      expect(before.body.payload.map((l: any) => l.title)).toEqual(['billing']);
      await h.svc.deps.pool.query('ALTER TABLE labels ADD COLUMN bench_extra integer');
      try {
        for (let i = 0; i < 3; i++) expect((await h.call('GET', `${base()}/labels`, { as: acc.agent })).body).toEqual(before.body);
      } finally {
        await h.svc.deps.pool.query('ALTER TABLE labels DROP COLUMN bench_extra');
      }
    });

    it('when the title is taken, invalid or missing, or an agent writes, then 409, 422 or 403', async () => {
      await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'billing' } });
      expectError(await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'BILLING' } }), 409, 'taken', 'title');
      expectError(await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'two words' } }), 422, undefined, 'title');
      expectError(await h.call('POST', `${base()}/labels`, { as: acc.admin, body: {} }), 422, undefined, 'title');
      expectError(await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'x', color: 'red' } }), 422, undefined, 'color');
      expectError(await h.call('POST', `${base()}/labels`, { as: acc.agent, body: { title: 'mine' } }), 403, 'forbidden');
    });

    it('when a label is renamed, then conversations carrying it follow; when deleted, the record goes', async () => {
      const inbox = await createInbox(h, acc);
      const conv = await createConversation(h, acc, inbox.id);
      const label = (await h.call('POST', `${base()}/labels`, { as: acc.admin, body: { title: 'billing' } })).body;
      await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['vip', 'billing', 'later'] } });
      const renamed = await h.call('PATCH', `${base()}/labels/${label.id}`, { as: acc.admin, body: { title: 'invoices' } });
      expect(renamed.body.title).toBe('invoices');
      expect((await h.call('GET', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin })).body.payload).toEqual(['vip', 'invoices', 'later']);
      expect((await h.events(acc.accountId, 'label.updated'))[0].changes).toEqual({ title: ['billing', 'invoices'] });
      expect((await h.call('DELETE', `${base()}/labels/${label.id}`, { as: acc.admin })).body).toEqual({});
      expectError(await h.call('GET', `${base()}/labels/${label.id}`, { as: acc.admin }), 404, 'not_found');
      const other = await h.account();
      expectError(await h.call('DELETE', `/api/v1/accounts/${other.accountId}/labels/${label.id}`, { as: other.admin }), 404);
    });
  });

  describe('canned responses (SPEC op 11)', () => {
    it('when an agent creates, searches, updates and deletes canned responses, then each answers the raw record', async () => {
      const a = await h.call('POST', `${base()}/canned_responses`, { as: acc.agent, body: { canned_response: { short_code: 'thanks', content: 'Thank you for writing' } } });
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ id: expect.any(Number), account_id: acc.accountId, short_code: 'thanks', content: 'Thank you for writing', created_at: expect.any(String), updated_at: expect.any(String) });
      expect(new Date(a.body.created_at).toISOString()).toBe(a.body.created_at);
      await h.call('POST', `${base()}/canned_responses`, { as: acc.agent, body: { short_code: 'refund', content: 'We sent the refund, thanks' } });
      await h.call('POST', `${base()}/canned_responses`, { as: acc.agent, body: { short_code: 'bye', content: 'Goodbye' } });
      const all = await h.call('GET', `${base()}/canned_responses`, { as: acc.agent });
      expect(all.body.map((c: any) => c.short_code)).toEqual(['thanks', 'refund', 'bye']);
      const found = await h.call('GET', `${base()}/canned_responses?search=THANK`, { as: acc.agent });
      expect(found.body.map((c: any) => c.short_code)).toEqual(['thanks', 'refund']);
      const upd = await h.call('PATCH', `${base()}/canned_responses/${a.body.id}`, { as: acc.agent, body: { content: 'Many thanks' } });
      expect(upd.body).toMatchObject({ short_code: 'thanks', content: 'Many thanks' });
      const del = await h.call('DELETE', `${base()}/canned_responses/${a.body.id}`, { as: acc.agent });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({});
      expectError(await h.call('DELETE', `${base()}/canned_responses/${a.body.id}`, { as: acc.agent }), 404, 'not_found');
      expect((await h.events(acc.accountId, 'canned_response.created', 'canned_response.updated', 'canned_response.deleted')).map((e) => e.type)).toEqual([
        'canned_response.created', 'canned_response.created', 'canned_response.created', 'canned_response.updated', 'canned_response.deleted',
      ]);
    });

    it('when the short code is taken or fields are missing, then 409 or 422; another account\'s record is 404', async () => {
      const a = await h.call('POST', `${base()}/canned_responses`, { as: acc.admin, body: { short_code: 'hi', content: 'Hello' } });
      expectError(await h.call('POST', `${base()}/canned_responses`, { as: acc.admin, body: { short_code: 'HI', content: 'Hey' } }), 409, 'taken', 'short_code');
      expectError(await h.call('POST', `${base()}/canned_responses`, { as: acc.admin, body: { short_code: 'x' } }), 422, undefined, 'content');
      expectError(await h.call('GET', `${base()}/canned_responses?q=x`, { as: acc.admin }), 400, 'unknown_parameter');
      const other = await h.account();
      expectError(await h.call('DELETE', `/api/v1/accounts/${other.accountId}/canned_responses/${a.body.id}`, { as: other.admin }), 404);
      expectError(await h.call('PATCH', `/api/v1/accounts/${other.accountId}/canned_responses/${a.body.id}`, { as: other.admin, body: { content: 'x' } }), 404);
    });
  });
});
