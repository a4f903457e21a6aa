import type { Pool } from 'pg';
import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor, publicConversationsPath } from '../../support/conversations';

/**
 * `q` of a registered pattern reads search hits kept by triggers (migration 009) instead of the
 * messages. After every kind of write, the hits must be exactly the conversations with a matching
 * incoming or outgoing message (with their inbox, team and assignee), and the list's page and
 * counts through the API must be what matching the messages gives.
 */
describe('q search hits stay right through every write', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let pool: Pool;
  let inboxA: ApiInbox;
  let inboxB: ApiInbox;
  let teamId: number;
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const admin = () => ({ token: acc.admin.token });
  const ids: number[] = [];

  beforeAll(async () => {
    // Every q with a match registers its pattern (the default waits for 10 conversations).
    stack = await startStack({ service: { conversations: { SEARCH_HITS_MIN_CONVERSATIONS: 1, SEARCH_PATTERNS_MAX: 3, COUNT_FOLD_MS: 200 } } });
    call = client(stack.gatewayUrl);
    pool = stack.services['conversations']!.deps.pool as Pool;
    acc = await seedAccount(stack);
    inboxA = await createApiInbox(call, acc, { name: 'A' });
    inboxB = await createApiInbox(call, acc, { name: 'B' });
    await call('POST', `${A()}/inbox_members`, { ...admin(), body: { inbox_id: inboxA.id, user_ids: [acc.agent.userId] } });
    teamId = (await call('POST', `${A()}/teams`, { ...admin(), body: { name: 'Refunds' } })).body.id;
  });
  afterAll(() => stack?.stop());

  const make = async (inbox: ApiInbox, content: string, body: Record<string, unknown> = {}) =>
    (await conversationFor(call, acc, inbox, { message: { content, message_type: 'incoming' }, ...body })).id as number;
  const ok = async <R extends { status: number; text: string }>(p: Promise<R>): Promise<R> => {
    const res = await p;
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
    return res;
  };
  const post = (displayId: number, content: string, extra: Record<string, unknown> = {}) =>
    call('POST', `${A()}/conversations/${displayId}/messages`, { ...admin(), body: { content, message_type: 'outgoing', ...extra } });

  /** `q` as an ILIKE pattern: its wildcards are literal. */
  const pat = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

  /** The conversations matching `q` from the messages themselves. */
  async function matching(q: string): Promise<Array<{ id: string; display_id: number; inbox_id: number; team_id: number | null; assignee_id: number | null; last_activity_at: Date }>> {
    const { rows } = await pool.query(
      `SELECT c.id::text AS id, c.display_id, c.inbox_id, c.team_id, c.assignee_id, c.last_activity_at FROM conversations c
        WHERE c.account_id = $1 AND c.id IN (SELECT m.conversation_id FROM messages m WHERE m.account_id = $1 AND m.message_type IN (0, 1) AND m.content ILIKE $2)
        ORDER BY c.last_activity_at DESC, c.id DESC`,
      [acc.accountId, pat(q)],
    );
    return rows;
  }

  async function expectHitsRight(q: string): Promise<void> {
    const want = await matching(q);
    const { rows: hits } = await pool.query(
      `SELECT conversation_id::text AS id, inbox_id, team_id, assignee_id FROM search_hits WHERE account_id = $1 AND pattern = $2 ORDER BY conversation_id`,
      [acc.accountId, pat(q)],
    );
    const key = (r: { id: string }) => Number(r.id);
    expect(hits).toEqual(want.map(({ id, inbox_id, team_id, assignee_id }) => ({ id, inbox_id, team_id, assignee_id })).sort((a, b) => key(a) - key(b)));
    for (const who of [
      { token: acc.admin.token, userId: acc.admin.userId, visible: null as number[] | null },
      { token: acc.agent.token, userId: acc.agent.userId, visible: [inboxA.id] },
    ]) {
      for (const filter of [{}, { inbox_id: inboxA.id }, { inbox_id: inboxB.id }, { team_id: teamId }, { status: 'resolved' }, { assignee_type: 'me' }, { assignee_type: 'unassigned' }]) {
        const rows = want.filter(
          (c) =>
            (who.visible === null || who.visible.includes(c.inbox_id)) &&
            (!('inbox_id' in filter) || c.inbox_id === filter.inbox_id) &&
            (!('team_id' in filter) || c.team_id === filter.team_id),
        );
        const meta = {
          mine_count: rows.filter((c) => c.assignee_id === who.userId).length,
          assigned_count: rows.filter((c) => c.assignee_id !== null).length,
          unassigned_count: rows.filter((c) => c.assignee_id === null).length,
          all_count: rows.length,
        };
        const page = rows.filter((c) =>
          !('assignee_type' in filter) ? true : filter.assignee_type === 'me' ? c.assignee_id === who.userId : c.assignee_id === null,
        );
        const qs = new URLSearchParams({ q, ...Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, String(v)])) });
        const res = await call('GET', `${A()}/conversations?${qs}`, { token: who.token });
        expect(res.status).toBe(200);
        expect({ who: who.userId, filter, meta: res.body.data.meta, ids: res.body.data.payload.map((c: any) => c.id) }).toEqual({
          who: who.userId,
          filter,
          meta,
          ids: page.slice(0, 25).map((c) => c.display_id),
        });
        const counts = await call('GET', `${A()}/conversations/meta?${qs}`, { token: who.token });
        expect(counts.body.meta).toEqual(meta);
      }
    }
  }

  const registered = async (q: string) =>
    (await pool.query('SELECT 1 FROM search_patterns WHERE account_id = $1 AND pattern = $2', [acc.accountId, pat(q)])).rowCount === 1;

  it('when a q matches, then its pattern is registered and the list answers from the hits what the messages answer', async () => {
    ids.push(await make(inboxA, 'I want a REFUND now'));
    ids.push(await make(inboxA, 'Where is my parcel?', { assignee_id: acc.agent.userId }));
    ids.push(await make(inboxB, 'refund please', { team_id: teamId, assignee_id: acc.admin.userId }));
    ids.push(await make(inboxB, 'Nothing to see'));
    ids.push(await make(inboxA, 'A refund_ and 100% back'));
    const first = await call('GET', `${A()}/conversations?q=refund`, admin());
    expect(first.body.data.meta.all_count).toBe(3);
    await waitFor(async () => ((await registered('refund')) ? true : null), { what: 'the refund pattern registered' });
    // LIKE's wildcards in q are literal, in the hits as in the messages.
    await call('GET', `${A()}/conversations?q=${encodeURIComponent('d_ and 100%')}`, admin());
    await waitFor(async () => ((await registered('d_ and 100%')) ? true : null), { what: 'the escaped pattern registered' });
    expect(await matching('d_ and 100%')).toHaveLength(1);
    await expectHitsRight('refund');
    await expectHitsRight('d_ and 100%');
  });

  it('when messages are written, edited and deleted, then the hits follow (activities never match, private notes do)', async () => {
    await ok(post(ids[1]!, 'Refund issued'));
    await ok(post(ids[3]!, 'a note about the refund', { private: true }));
    const { rows } = await pool.query<{ source_id: string }>('SELECT contact_inbox_source_id AS source_id FROM conversations WHERE account_id = $1 AND display_id = $2', [acc.accountId, ids[0]]);
    await ok(call('POST', `${publicConversationsPath(inboxA, rows[0]!.source_id)}/${ids[0]}/messages`, { body: { content: 'any refund yet?' } }));
    await expectHitsRight('refund');
    // The only matching message of a conversation edited away, then deleted: the conversation leaves the hits.
    const only = (await call('GET', `${A()}/conversations/${ids[2]}/messages`, admin())).body.payload.find((m: any) => /refund/i.test(m.content ?? ''));
    await ok(call('PATCH', `${A()}/conversations/${ids[2]}/messages/${only.id}`, { ...admin(), body: { content: 'please call me' } }));
    await expectHitsRight('refund');
    await ok(call('PATCH', `${A()}/conversations/${ids[2]}/messages/${only.id}`, { ...admin(), body: { content: 'refund, please' } }));
    await expectHitsRight('refund');
    await ok(call('DELETE', `${A()}/conversations/${ids[2]}/messages/${only.id}`, admin()));
    await expectHitsRight('refund');
    // One of two matching messages deleted: the conversation stays.
    const second = await ok(post(ids[1]!, 'second refund note'));
    await ok(call('DELETE', `${A()}/conversations/${ids[1]}/messages/${second.body.id}`, admin()));
    await expectHitsRight('refund');
    // Activities (a resolution) never match, even when they contain the word.
    await pool.query(`INSERT INTO messages (account_id, inbox_id, conversation_id, message_type, content) SELECT account_id, inbox_id, id, 2, 'refund activity' FROM conversations WHERE account_id = $1 AND display_id = $2`, [acc.accountId, ids[3]]);
    await expectHitsRight('refund');
  });

  it('when conversations are reassigned, moved, resolved and deleted, then the hits carry their inbox, team and assignee', async () => {
    await ok(call('POST', `${A()}/conversations/${ids[0]}/assignments`, { ...admin(), body: { assignee_id: acc.agent.userId } }));
    await ok(call('POST', `${A()}/conversations/${ids[1]}/assignments`, { ...admin(), body: { team_id: teamId } }));
    await ok(call('POST', `${A()}/conversations/${ids[1]}/assignments`, { ...admin(), body: { assignee_id: null } }));
    await ok(call('POST', `${A()}/conversations/${ids[3]}/toggle_status`, { ...admin(), body: { status: 'resolved' } }));
    await pool.query('UPDATE conversations SET inbox_id = $2 WHERE account_id = $1 AND display_id = $3', [acc.accountId, inboxB.id, ids[0]]);
    await expectHitsRight('refund');
    await ok(call('DELETE', `${A()}/conversations/${ids[4]}`, admin()));
    await expectHitsRight('refund');
    await expectHitsRight('d_ and 100%');
  });

  it('when writers race a new pattern\'s registration, then no hit is lost or stale', async () => {
    const more = await Promise.all(Array.from({ length: 6 }, (_, i) => make(i % 2 ? inboxA : inboxB, `voucher ${i}`)));
    const all = [...ids.slice(0, 4), ...more];
    // The first search registers "voucher" while replies, assignments and new conversations are written.
    const writes = [
      ...all.map((id, i) => post(id, i % 2 ? 'here is your voucher' : 'thanks')),
      ...all.map((id, i) => call('POST', `${A()}/conversations/${id}/assignments`, { ...admin(), body: { assignee_id: i % 3 ? acc.admin.userId : acc.agent.userId } })),
      make(inboxA, 'a voucher too'),
    ];
    const search = call('GET', `${A()}/conversations?q=voucher`, admin());
    const results = await Promise.all(writes);
    expect(results.map((r: any) => (typeof r === 'number' ? 200 : r.status))).toEqual(writes.map(() => 200));
    expect((await search).status).toBe(200);
    await waitFor(async () => ((await registered('voucher')) ? true : null), { what: 'the voucher pattern registered' });
    await Promise.all(all.map((id, i) => post(id, i % 2 ? 'thanks' : 'one more voucher')));
    await expectHitsRight('voucher');
    await expectHitsRight('refund');
  });

  it('when the account has as many patterns as it may, then a new q is not registered and still answers from the messages', async () => {
    expect((await pool.query('SELECT count(*)::int AS n FROM search_patterns WHERE account_id = $1', [acc.accountId])).rows[0].n).toBe(3);
    await ok(post(ids[0]!, 'please call me back'));
    const first = await call('GET', `${A()}/conversations?q=${encodeURIComponent('call me')}`, admin());
    expect(first.body.data.meta.all_count).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await registered('call me')).toBe(false);
    const again = await call('GET', `${A()}/conversations?q=${encodeURIComponent('call me')}`, admin());
    expect(again.body.data.payload.map((c: any) => c.id)).toEqual((await matching('call me')).slice(0, 25).map((c) => c.display_id));
    expect(again.body.data.meta.all_count).toBe((await matching('call me')).length);
    // The search route reads the same hits and messages (no contact is named like these).
    for (const q of ['refund', 'call me']) {
      const res = await call('GET', `${A()}/conversations/search?q=${encodeURIComponent(q)}`, admin());
      expect(res.body.data.payload.map((c: any) => c.id)).toEqual((await matching(q)).slice(0, 25).map((c) => c.display_id));
      expect(res.body.data.meta.all_count).toBe((await matching(q)).length);
    }
  });
});
