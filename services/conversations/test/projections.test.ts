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
