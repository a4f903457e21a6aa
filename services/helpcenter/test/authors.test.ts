import { buildEnvelope, type EventEnvelope, type NewEvent } from '@parley/shared';
import { agentSnapshot, createBus, makeContext, randomAccountId, uniq, userFixture, waitFor, type TestBus } from '@parley/testkit';
import { apiFor, useHelpcenter, type Api } from './helpers';

describe('authors: agent copies through the projection kit', () => {
  const hc = useHelpcenter();
  let bus: TestBus;
  beforeAll(() => {
    bus = createBus(hc.env.namespace);
  });
  afterAll(() => bus?.close());

  const at = (iso: string, ev: NewEvent): EventEnvelope => ({ ...buildEnvelope(makeContext({ accountId: ev.accountId }), ev), occurred_at: iso });

  /** Publishes the events and waits until the identity consumer has handled every one. */
  async function deliver(...events: EventEnvelope[]): Promise<void> {
    await bus.publish(...events);
    const ids = events.map((e) => e.id);
    await waitFor(async () => (await hc.db.query(`SELECT count(*)::int AS n FROM helpcenter.processed_events WHERE event_id = ANY($1::uuid[])`, [ids])).rows[0].n === ids.length, {
      what: 'events handled',
    });
  }

  async function portalWithArticle(authorId: number, name: string): Promise<{ api: Api; accountId: number; path: string }> {
    const accountId = randomAccountId();
    hc.stub.addAgent(accountId, authorId, { name });
    const api = apiFor(hc.svc, accountId, authorId);
    const slug = uniq('kb');
    expect((await api('POST', '/portals', { name: 'KB', slug })).status).toBe(200);
    const res = await api('POST', `/portals/${slug}/articles`, { title: uniq('Article'), content: 'C', author_id: authorId });
    expect(res.status).toBe(200);
    return { api, accountId, path: `/portals/${slug}/articles/${res.body.id}` };
  }

  it('when agent and user events arrive out of order, then an older one never overwrites the newer author', async () => {
    const f = await portalWithArticle(21, 'Ada');
    const agent = (name: string) => ({ type: 'agent.updated' as const, accountId: f.accountId, data: agentSnapshot(f.accountId, 21, { name, available_name: name }) });
    await deliver(at('2026-01-02T00:00:00.000Z', agent('Newer')));
    expect((await f.api('GET', f.path)).body.author).toMatchObject({ id: 21, name: 'Newer', available_name: 'Newer' });

    await deliver(
      at('2026-01-01T00:00:00.000Z', agent('Older')),
      at('2026-01-01T12:00:00.000Z', { type: 'user.updated', accountId: null, data: userFixture(21, { name: 'Older user', display_name: null }) }),
    );
    expect((await f.api('GET', f.path)).body.author).toMatchObject({ id: 21, name: 'Newer', available_name: 'Newer' });

    await deliver(at('2026-01-03T00:00:00.000Z', { type: 'user.updated', accountId: null, data: userFixture(21, { name: 'Newest', display_name: 'Nia' }) }));
    expect((await f.api('GET', f.path)).body.author).toMatchObject({ id: 21, name: 'Newest', available_name: 'Nia' });
  });

  it('when an author has no copy, then the check reads it through from identity and stores it where any later event wins', async () => {
    const f = await portalWithArticle(22, 'Bea');
    await hc.db.query(`DELETE FROM helpcenter.projections WHERE account_id = $1 AND kind = 'agent' AND id = 22`, [f.accountId]);
    const lookups = hc.stub.lookups.agents;
    // A read shows the copy as it stands (none), without asking identity.
    expect((await f.api('GET', f.path)).body.author).toBeNull();
    expect(hc.stub.lookups.agents).toBe(lookups);

    const res = await f.api('PATCH', f.path, { author_id: 23 });
    expect(res.status).toBe(422);
    hc.stub.addAgent(f.accountId, 23, { name: 'Cy Read' });
    expect((await f.api('PATCH', f.path, { author_id: 23 })).body.author).toMatchObject({ id: 23, name: 'Cy Read' });
    const { rows } = await hc.db.query(`SELECT data->>'name' AS name, version_at = '-infinity' AS read_through FROM helpcenter.projections WHERE account_id = $1 AND kind = 'agent' AND id = 23`, [
      f.accountId,
    ]);
    expect(rows).toEqual([{ name: 'Cy Read', read_through: true }]);

    // An event from long ago still replaces a read-through copy.
    await deliver(at('2000-01-01T00:00:00.000Z', { type: 'agent.updated', accountId: f.accountId, data: agentSnapshot(f.accountId, 23, { name: 'Cy Event' }) }));
    expect((await f.api('GET', f.path)).body.author).toMatchObject({ id: 23, name: 'Cy Event' });
  });
});
