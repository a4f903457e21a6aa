import type { EventEnvelope, RunningService } from '@parley/shared';
import { createTestEnv, randomAccountId, startPeerStub, userFixture, waitFor, type PeerStub, type TestEnv } from '@parley/testkit';
import type { AutomationConfig } from '../src';
import { apiFor, startAutomation } from './helpers';
import { createBus, envelope, userActor, type TestBus } from './bus';
import { startReceiver, type Receiver } from './receiver';
import { agent, apiInbox, contact, conversation } from './fixtures';

describe('copies of other services\' records (the projection kit)', () => {
  let env: TestEnv;
  let svc: RunningService<AutomationConfig>;
  let stub: PeerStub;
  let bus: TestBus;
  let rx: Receiver;

  beforeAll(async () => {
    env = await createTestEnv();
    stub = await startPeerStub();
    svc = await startAutomation(env, { CONVERSATIONS_URL: stub.url, CONTACTS_URL: stub.url, GATEWAY_INTERNAL_URL: stub.url });
    bus = createBus(env.namespace);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await bus?.close();
    await svc?.stop();
    await rx?.close();
    await stub?.close();
    await env?.close();
  });

  const at = (iso: string, ev: EventEnvelope): EventEnvelope => ({ ...ev, occurred_at: iso });

  /** Publishes the events one after the other and waits until the projections consumer has handled each. */
  async function deliver(...events: EventEnvelope[]): Promise<void> {
    for (const ev of events) {
      await bus.publish(ev);
      await waitFor(async () => (await svc.deps.pool.query(`SELECT 1 FROM processed_events WHERE event_id = $1 AND consumer LIKE '%projections'`, [ev.id])).rowCount === 1, { what: `${ev.type} handled` });
    }
  }

  async function copy(accountId: number, kind: string, id: number): Promise<{ data: any; read_through: boolean } | null> {
    const { rows } = await svc.deps.pool.query(`SELECT data, version_at = '-infinity' AS read_through FROM projections WHERE account_id = $1 AND kind = $2 AND id = $3`, [accountId, kind, id]);
    return rows[0] ?? null;
  }

  it('when events arrive out of order, then an older one never overwrites newer data or brings a removed record back', async () => {
    const accountId = randomAccountId();
    await deliver(
      at('2026-01-02T00:00:00Z', envelope('contact.updated', accountId, contact(accountId, 1, { name: 'Newer' }))),
      at('2026-01-01T00:00:00Z', envelope('contact.updated', accountId, contact(accountId, 1, { name: 'Older' }))),
      at('2026-01-02T00:00:00Z', envelope('agent.updated', accountId, agent(accountId, 2, { name: 'Newer' }), { actor: userActor })),
      at('2026-01-01T00:00:00Z', envelope('agent.updated', accountId, agent(accountId, 2, { name: 'Older' }), { actor: userActor })),
      at('2026-01-01T12:00:00Z', { ...envelope('user.updated', accountId, userFixture(2, { name: 'Older user' }), { actor: userActor }), account_id: null }),
      at('2026-01-02T00:00:00Z', envelope('inbox.updated', accountId, apiInbox(accountId, 3, { name: 'Newer' }), { actor: userActor })),
      at('2026-01-01T00:00:00Z', envelope('inbox.updated', accountId, apiInbox(accountId, 3, { name: 'Older' }), { actor: userActor })),
      at('2026-01-03T00:00:00Z', envelope('contact.deleted', accountId, contact(accountId, 4))),
      at('2026-01-02T00:00:00Z', envelope('contact.updated', accountId, contact(accountId, 4, { name: 'Late' }))),
    );
    expect((await copy(accountId, 'contact', 1))?.data.name).toBe('Newer');
    expect((await copy(accountId, 'agent', 2))?.data.name).toBe('Newer');
    expect((await copy(accountId, 'inbox', 3))?.data.name).toBe('Newer');
    expect((await copy(accountId, 'contact', 4))?.data).toBeNull();

    await deliver(at('2026-01-03T00:00:00Z', { ...envelope('user.updated', accountId, userFixture(2, { name: 'Newest' }), { actor: userActor }), account_id: null }));
    expect((await copy(accountId, 'agent', 2))?.data.name).toBe('Newest');
  });

  it('when a payload needs an agent no event has brought, then it is read through from the owner and any later event replaces that copy', async () => {
    const accountId = randomAccountId();
    stub.addAccount(accountId, { name: 'Acme' });
    stub.addInbox(apiInbox(accountId, 1));
    stub.addContact(accountId, contact(accountId, 1));
    stub.addAgent(accountId, 55, { name: 'Read Through', available_name: 'Read Through' });
    const res = await apiFor(svc, accountId)('POST', '/webhooks', { url: rx.url, subscriptions: ['conversation_created'] });
    expect(res.status).toBe(200);
    const conv = conversation(accountId, 1, { assignee_id: 55 });
    await bus.publish(envelope('conversation.created', accountId, conv, { actor: userActor }));
    const got = await waitFor(() => rx.received.find((r) => r.json.event === 'conversation_created' && r.json.account?.id === accountId), { what: 'conversation_created' });
    expect(got.json.meta.assignee).toMatchObject({ id: 55, name: 'Read Through' });
    expect(await copy(accountId, 'agent', 55)).toMatchObject({ data: { name: 'Read Through' }, read_through: true });

    await deliver(at('2000-01-01T00:00:00Z', envelope('agent.updated', accountId, agent(accountId, 55, { name: 'From Event' }), { actor: userActor })));
    expect(await copy(accountId, 'agent', 55)).toMatchObject({ data: { name: 'From Event' }, read_through: false });
  });
});
