import type { EventEnvelope } from '@parley/shared';
import { contactFixture, waitFor } from '@parley/testkit';
import { agentData, envelope } from './bus';
import { createConversation, createInbox } from './fixtures';
import { startHarness, type Harness } from './harness';

describe('copies of contacts, agents, teams and bots (the projection kit)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.stop());

  const at = (iso: string, ev: EventEnvelope): EventEnvelope => ({ ...ev, occurred_at: iso });

  /** Publishes the events one after the other and waits until the projections consumer has handled each. */
  async function deliver(...events: EventEnvelope[]): Promise<void> {
    for (const ev of events) {
      await h.bus.publish(ev);
      await waitFor(async () => (await h.svc.deps.pool.query(`SELECT 1 FROM processed_events WHERE event_id = $1 AND consumer LIKE '%projections'`, [ev.id])).rowCount === 1, {
        what: `${ev.type} handled`,
      });
    }
  }

  const copy = async (accountId: number, kind: string, id: number) =>
    (await h.svc.deps.pool.query(`SELECT data->>'name' AS name, version_at = '-infinity' AS read_through FROM projections WHERE account_id = $1 AND kind = $2 AND id = $3`, [accountId, kind, id])).rows[0] ?? null;

  it('when contact and agent events arrive out of order, then an older one never overwrites the newer copy', async () => {
    const acc = await h.account();
    const inbox = await createInbox(h, acc);
    const conv = await createConversation(h, acc, inbox.id);
    const contactId = conv.meta.sender.id;
    await deliver(
      at('2026-01-02T00:00:00Z', envelope('contact.updated', acc.accountId, contactFixture(acc.accountId, contactId, { name: 'Newer' }))),
      at('2026-01-01T00:00:00Z', envelope('contact.updated', acc.accountId, contactFixture(acc.accountId, contactId, { name: 'Older' }))),
      at('2099-01-02T00:00:00Z', envelope('agent.updated', acc.accountId, agentData(acc.accountId, acc.agentId, { name: 'Newer agent' }))),
      at('2099-01-01T00:00:00Z', envelope('agent.updated', acc.accountId, agentData(acc.accountId, acc.agentId, { name: 'Older agent' }))),
    );
    const shown = await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.id}`, { as: acc.admin });
    expect(shown.body.meta.sender.name).toBe('Newer');
    expect(await copy(acc.accountId, 'agent', acc.agentId)).toEqual({ name: 'Newer agent', read_through: false });
  });

  it('when a listed page names a contact without a copy and a removed one, then the list asks the contacts service for the first only, once', async () => {
    const acc = await h.account();
    const inbox = await createInbox(h, acc);
    const kept = await createConversation(h, acc, inbox.id, { assignee_id: acc.agentId });
    const missing = await createConversation(h, acc, inbox.id);
    const removed = await createConversation(h, acc, inbox.id);
    const keptContact: number = kept.meta.sender.id;
    const missingContact: number = missing.meta.sender.id;
    const removedContact: number = removed.meta.sender.id;
    await h.svc.deps.pool.query(`DELETE FROM projections WHERE account_id = $1 AND kind = 'contact' AND id = $2`, [acc.accountId, missingContact]);
    await h.svc.deps.pool.query(`UPDATE projections SET data = NULL WHERE account_id = $1 AND kind = 'contact' AND id = $2`, [acc.accountId, removedContact]);
    const before = h.stub.lookups.contacts;
    const list = async () => {
      const res = await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations`, { as: acc.admin });
      expect(res.status).toBe(200);
      return new Map<number, any>(res.body.data.payload.map((c: any) => [c.id, c]));
    };
    const page = await list();
    expect(page.get(kept.id).meta.sender).toMatchObject({ id: keptContact, name: kept.meta.sender.name });
    expect(page.get(kept.id).meta.assignee).toMatchObject({ id: acc.agentId, name: `Agent ${acc.agentId}` });
    expect(page.get(missing.id).meta.sender).toMatchObject({ id: missingContact, name: missing.meta.sender.name });
    expect(missing.meta.sender.name).not.toBe('');
    // A removed contact shows by id with neutral values, and its owner is not asked.
    expect(page.get(removed.id).meta.sender).toMatchObject({ id: removedContact, name: '' });
    expect(h.stub.lookups.contacts).toBe(before + 1);
    expect((await copy(acc.accountId, 'contact', missingContact))?.read_through).toBe(true);
    // The answer is kept: the next page asks nobody.
    expect((await list()).get(missing.id).meta.sender.name).toBe(missing.meta.sender.name);
    expect(h.stub.lookups.contacts).toBe(before + 1);
  });

  it('when a contact has no copy, then a read asks the contacts service once and keeps the answer where any event wins', async () => {
    const acc = await h.account();
    const inbox = await createInbox(h, acc);
    const conv = await createConversation(h, acc, inbox.id);
    const contactId = conv.meta.sender.id;
    await h.svc.deps.pool.query(`DELETE FROM projections WHERE account_id = $1 AND kind = 'contact' AND id = $2`, [acc.accountId, contactId]);
    const before = h.stub.lookups.contacts;
    const shown = await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.id}`, { as: acc.admin });
    expect(shown.body.meta.sender.id).toBe(contactId);
    expect(h.stub.lookups.contacts).toBe(before + 1);
    expect((await copy(acc.accountId, 'contact', contactId))?.read_through).toBe(true);
    await h.call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${conv.id}`, { as: acc.admin });
    expect(h.stub.lookups.contacts).toBe(before + 1);

    await deliver(at('2000-01-01T00:00:00Z', envelope('contact.updated', acc.accountId, contactFixture(acc.accountId, contactId, { name: 'From event' }))));
    expect(await copy(acc.accountId, 'contact', contactId)).toEqual({ name: 'From event', read_through: false });
  });
});
