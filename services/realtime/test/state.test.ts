import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '@parley/testkit';
import { readState, recordMessage, unreadCount } from '../src/fanout/state';

/** The channel's conversation state against a real Postgres: the last chat message by version, the latest incoming messages. */
describe('conversation state', () => {
  let db: TestDatabase;
  let pg: Pool;
  const msg = (id: number, at: string, content: string) => ({ id, created_at: Math.floor(Date.parse(at) / 1000), updated_at: at, content });

  beforeAll(async () => {
    db = await createTestDatabase();
    pg = new Pool({ connectionString: db.url, options: '-c search_path=realtime', max: 1 });
  });
  afterAll(async () => {
    await pg?.end();
    await db?.drop();
  });

  it('when updates of the last message arrive out of order, then the latest version stays, and an older message never replaces a newer one', async () => {
    const v1 = msg(10, '2026-01-01T10:00:00.000Z', 'hello');
    await recordMessage(pg, 1, 1, null, v1, { last: v1, incoming: false });
    const v3 = { ...v1, updated_at: '2026-01-01T10:00:05.002Z', content: 'third version' };
    const v2 = { ...v1, updated_at: '2026-01-01T10:00:05.001Z', content: 'second version' };
    expect((await recordMessage(pg, 1, 1, null, v3, { last: v3, incoming: false })).lastMessage).toMatchObject({ content: 'third version' });
    // The older update arrives last: it changes nothing.
    expect((await recordMessage(pg, 1, 1, null, v2, { last: v2, incoming: false })).lastMessage).toMatchObject({ content: 'third version' });
    // An update of an older message does not become the last message.
    const old = msg(9, '2026-01-01T10:00:09.000Z', 'an edit of an older message');
    expect((await recordMessage(pg, 1, 1, null, old, { last: old, incoming: false })).lastMessage).toMatchObject({ id: 10, content: 'third version' });
    // A newer message does.
    const next = msg(11, '2026-01-01T10:00:06.000Z', 'next');
    expect((await recordMessage(pg, 1, 1, null, next, { last: next, incoming: false })).lastMessage).toMatchObject({ id: 11 });
    expect((await readState(pg, 1, 1, null)).lastMessage).toMatchObject({ id: 11 });
  });

  it('when incoming messages arrive, then the unread count is those created after agent_last_seen_at, at most 10, each counted once', async () => {
    for (let i = 1; i <= 12; i++) {
      const m = msg(100 + i, `2026-01-01T11:00:${String(i).padStart(2, '0')}.500Z`, `in ${i}`);
      await recordMessage(pg, 1, 2, null, m, { last: m, incoming: true });
    }
    // A redelivered or reordered event adds nothing.
    const again = msg(105, '2026-01-01T11:00:05.500Z', 'in 5');
    const state = await recordMessage(pg, 1, 2, null, again, { last: again, incoming: true });
    expect(state.incoming.map(([id]) => id)).toEqual([112, 111, 110, 109, 108, 107, 106, 105, 104, 103]);
    expect(unreadCount(state, null)).toBe(10);
    // Seen in the same second as message 110, before it: 110, 111 and 112 are unread.
    expect(unreadCount(state, '2026-01-01T11:00:10.400Z')).toBe(3);
    expect(unreadCount(state, '2026-01-01T11:00:10.600Z')).toBe(2);
    expect(unreadCount(state, '2026-01-01T12:00:00.000Z')).toBe(0);
    // A private note or an outgoing message touches neither.
    const reply = msg(200, '2026-01-01T11:01:00.000Z', 'reply');
    expect((await recordMessage(pg, 1, 2, null, reply, { last: null, incoming: false })).incoming).toHaveLength(10);
  });
});
