import type { Pool } from 'pg';
import { waitFor } from '@parley/testkit';
import { foldCountDeltas, vacuumCounts } from '@parley/conversations';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { conversationFor, publicConversationsPath } from '../../support/conversations';

/**
 * The list's meta counts come from counts kept by triggers (migration 008), not from counting
 * conversations. After every kind of change, each count the API answers (administrator and agent,
 * every status, inbox and team filter) must equal a count of the conversations themselves, both
 * before the deltas are folded into the counts tables and after.
 */
describe('conversation counts stay right through every change', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let pool: Pool;
  let inboxA: ApiInbox;
  let inboxB: ApiInbox;
  let teamId: number;
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const admin = () => ({ token: acc.admin.token });

  beforeAll(async () => {
    // The fold runs when the test says so (the worker would otherwise race the checks).
    stack = await startStack({ service: { conversations: { COUNT_FOLD_MS: 3_600_000 } } });
    call = client(stack.gatewayUrl);
    pool = stack.services['conversations']!.deps.pool as Pool;
    acc = await seedAccount(stack);
    inboxA = await createApiInbox(call, acc, { name: 'A' });
    inboxB = await createApiInbox(call, acc, { name: 'B' });
    await call('POST', `${A()}/inbox_members`, { ...admin(), body: { inbox_id: inboxA.id, user_ids: [acc.agent.userId] } });
    teamId = (await call('POST', `${A()}/teams`, { ...admin(), body: { name: 'Tier 2' } })).body.id;
    await call('POST', `${A()}/teams/${teamId}/team_members`, { ...admin(), body: { user_ids: [acc.agent.userId] } });
  });
  afterAll(() => stack?.stop());

  /** The counts of the conversations themselves, as Chatwoot's finder counts them. */
  async function truth(userId: number, visible: number[] | null, status: string | undefined, inboxId?: number, team?: number) {
    const { rows } = await pool.query<{ mine: number; unassigned: number; all: number }>(
      `SELECT count(*) FILTER (WHERE assignee_id = $2)::int AS mine, count(*) FILTER (WHERE assignee_id IS NULL)::int AS unassigned, count(*)::int AS all
         FROM conversations
        WHERE account_id = $1 AND ($3::int[] IS NULL OR inbox_id = ANY($3)) AND ($4::text = 'all' OR status = $4)
          AND ($5::int IS NULL OR inbox_id = $5) AND ($6::int IS NULL OR team_id = $6)`,
      [acc.accountId, userId, visible, status ?? 'open', inboxId ?? null, team ?? null],
    );
    const r = rows[0]!;
    return { mine_count: r.mine, assigned_count: r.all - r.unassigned, unassigned_count: r.unassigned, all_count: r.all };
  }

  /** Every combination of caller, status, inbox and team, from the meta endpoint and the list, against `truth`. */
  async function expectCountsRight(): Promise<void> {
    const callers = [
      { token: acc.admin.token, userId: acc.admin.userId, visible: null },
      { token: acc.agent.token, userId: acc.agent.userId, visible: [inboxA.id] },
    ];
    for (const folded of [false, true]) {
      if (folded) await foldCountDeltas(pool);
      for (const who of callers) {
        for (const status of [undefined, 'open', 'resolved', 'pending', 'snoozed', 'all']) {
          for (const inboxId of [undefined, inboxA.id, inboxB.id]) {
            for (const team of [undefined, teamId]) {
              const qs = new URLSearchParams();
              if (status) qs.set('status', status);
              if (inboxId) qs.set('inbox_id', String(inboxId));
              if (team) qs.set('team_id', String(team));
              const res = await call('GET', `${A()}/conversations/meta?${qs}`, { token: who.token });
              expect(res.status).toBe(200);
              const want = await truth(who.userId, who.visible, status, inboxId, team);
              expect({ folded, who: who.userId, status, inboxId, team, meta: res.body.meta }).toEqual({ folded, who: who.userId, status, inboxId, team, meta: want });
            }
          }
        }
        const list = await call('GET', `${A()}/conversations?status=all`, { token: who.token });
        expect(list.body.data.meta).toEqual(await truth(who.userId, who.visible, 'all'));
      }
    }
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM conversation_count_deltas');
    expect(rows[0].n).toBe(0);
  }

  const make = async (inbox: ApiInbox, body: Record<string, unknown> = {}) => (await conversationFor(call, acc, inbox, body)).id as number;
  const ok = async <R extends { status: number; text: string }>(p: Promise<R>): Promise<R> => {
    const res = await p;
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
    return res;
  };

  const ids: number[] = [];

  it('when conversations are created with every status, assignee and team, then the counts match', async () => {
    ids.push(await make(inboxA));
    ids.push(await make(inboxA, { assignee_id: acc.agent.userId }));
    ids.push(await make(inboxA, { assignee_id: acc.admin.userId, team_id: teamId }));
    ids.push(await make(inboxA, { status: 'pending' }));
    ids.push(await make(inboxB, { team_id: teamId }));
    ids.push(await make(inboxB, { assignee_id: acc.agent.userId, status: 'resolved' }));
    ids.push(await make(inboxB, { status: 'snoozed', snoozed_until: Math.floor(Date.now() / 1000) + 3600 }));
    await expectCountsRight();
    expect((await call('GET', `${A()}/conversations/meta`, admin())).body.meta).toEqual({ mine_count: 1, assigned_count: 2, unassigned_count: 2, all_count: 4 });
  });

  it('when statuses change (set, toggled, reopened by an incoming message), then the counts match', async () => {
    await ok(call('POST', `${A()}/conversations/${ids[0]}/toggle_status`, { ...admin(), body: { status: 'resolved' } }));
    await ok(call('POST', `${A()}/conversations/${ids[1]}/toggle_status`, { ...admin(), body: { status: 'pending' } }));
    await ok(call('POST', `${A()}/conversations/${ids[3]}/toggle_status`, { ...admin(), body: {} }));
    await expectCountsRight();
    // A contact writing into a resolved conversation reopens it.
    const { rows } = await pool.query<{ source_id: string }>('SELECT contact_inbox_source_id AS source_id FROM conversations WHERE account_id = $1 AND display_id = $2', [acc.accountId, ids[0]]);
    await ok(call('POST', `${publicConversationsPath(inboxA, rows[0]!.source_id)}/${ids[0]}/messages`, { body: { content: 'Me again' } }));
    expect((await call('GET', `${A()}/conversations/${ids[0]}`, admin())).body.status).toBe('open');
    await expectCountsRight();
    await ok(call('POST', `${A()}/conversations/${ids[5]}/toggle_status`, { ...admin(), body: { status: 'open' } }));
    await expectCountsRight();
  });

  it('when assignees and teams change, then mine, assigned and unassigned follow', async () => {
    await ok(call('POST', `${A()}/conversations/${ids[0]}/assignments`, { ...admin(), body: { assignee_id: acc.agent.userId } }));
    await ok(call('POST', `${A()}/conversations/${ids[1]}/assignments`, { ...admin(), body: { assignee_id: acc.admin.userId } }));
    await ok(call('POST', `${A()}/conversations/${ids[2]}/assignments`, { ...admin(), body: { assignee_id: null } }));
    await ok(call('POST', `${A()}/conversations/${ids[4]}/assignments`, { ...admin(), body: { team_id: null } }));
    await ok(call('POST', `${A()}/conversations/${ids[3]}/assignments`, { ...admin(), body: { team_id: teamId } }));
    await expectCountsRight();
  });

  it('when a conversation moves to another inbox (in SQL: no API moves one), then both inboxes count right', async () => {
    await pool.query('UPDATE conversations SET inbox_id = $2 WHERE account_id = $1 AND display_id = $3', [acc.accountId, inboxB.id, ids[1]]);
    await pool.query('UPDATE conversations SET inbox_id = $2 WHERE account_id = $1 AND display_id = $3', [acc.accountId, inboxA.id, ids[4]]);
    // A statement setting counted columns to what they are changes nothing.
    await pool.query('UPDATE conversations SET status = status, assignee_id = assignee_id, team_id = team_id WHERE account_id = $1', [acc.accountId]);
    await expectCountsRight();
  });

  it('when contacts are merged, then the moved conversations are counted once', async () => {
    const conv = (await call('GET', `${A()}/conversations/${ids[2]}`, admin())).body;
    const base = (await call('POST', `${A()}/contacts`, { ...admin(), body: { name: 'Base', email: `base-${Date.now()}@example.com` } })).body.payload.contact;
    await ok(call('POST', `${A()}/actions/contact_merge`, { ...admin(), body: { base_contact_id: base.id, mergee_contact_id: conv.meta.sender.id } }));
    await waitFor(async () => ((await call('GET', `${A()}/conversations/${ids[2]}`, admin())).body.meta.sender.id === base.id ? true : null), { what: 'the merged contact' });
    await expectCountsRight();
  });

  it('when conversations and a whole inbox are deleted, then they leave the counts', async () => {
    await ok(call('DELETE', `${A()}/conversations/${ids[6]}`, admin()));
    await expectCountsRight();
    const doomed = await createApiInbox(call, acc, { name: 'Doomed' });
    await make(doomed);
    await make(doomed, { assignee_id: acc.admin.userId });
    await expectCountsRight();
    await ok(call('DELETE', `${A()}/inboxes/${doomed.id}`, admin()));
    await waitFor(async () => ((await pool.query('SELECT 1 FROM conversations WHERE inbox_id = $1', [doomed.id])).rowCount === 0 ? true : null), { what: 'the inbox\'s conversations gone' });
    await expectCountsRight();
  });

  it('when many writers create, resolve, reopen and reassign at once, then none fails and the counts match', async () => {
    const created = await Promise.all(Array.from({ length: 8 }, (_, i) => make(i % 2 ? inboxA : inboxB, i % 3 ? { assignee_id: acc.agent.userId } : {})));
    const all = [...ids.slice(0, 6), ...created];
    const writes = all.flatMap((id, i) => [
      call('POST', `${A()}/conversations/${id}/toggle_status`, { ...admin(), body: { status: ['resolved', 'pending', 'open'][i % 3] } }),
      call('POST', `${A()}/conversations/${id}/assignments`, { ...admin(), body: { assignee_id: i % 2 ? acc.admin.userId : acc.agent.userId } }),
      call('POST', `${A()}/conversations/${id}/assignments`, { ...admin(), body: { team_id: i % 2 ? teamId : null } }),
    ]);
    // The fold runs among the writers.
    const [results] = await Promise.all([Promise.all(writes), foldCountDeltas(pool), foldCountDeltas(pool)]);
    expect(results.map((r) => r.status)).toEqual(writes.map(() => 200));
    await expectCountsRight();
    // The worker's vacuum of the folded tables (as the service's role) changes no count.
    await vacuumCounts(pool);
    await expectCountsRight();
  });

  it('when a migration adds a column to conversations while the service runs, then the list still answers (its prepared statement is prepared again)', async () => {
    const before = await call('GET', `${A()}/conversations?status=all`, admin());
    expect(before.status).toBe(200);
    await pool.query('ALTER TABLE conversations ADD COLUMN bench_extra integer');
    try {
      for (let i = 0; i < 3; i++) {
        const after = await call('GET', `${A()}/conversations?status=all`, admin());
        expect(after.status).toBe(200);
        expect(after.body.data.meta).toEqual(before.body.data.meta);
        expect(after.body.data.payload.map((c: any) => c.id)).toEqual(before.body.data.payload.map((c: any) => c.id));
      }
    } finally {
      await pool.query('ALTER TABLE conversations DROP COLUMN bench_extra');
    }
  });
});
