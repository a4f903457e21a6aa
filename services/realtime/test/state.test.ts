import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '@parley/testkit';
import { randomUUID } from 'node:crypto';
import { NotFoundError, ProjectionKit, type EventEnvelope, type Peers } from '@parley/shared';
import { BatchCache } from '../src/fanout/batch';
import { createdMs, readState, readStates, recordMessage, recordMessageWithCopies, recordStates, unreadCount } from '../src/fanout/state';

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

  it('when a message is recorded with the copies its payload names, then the same statement answers its state and exactly the rows of those copies (a tombstone too)', async () => {
    await pg.query(
      `INSERT INTO projections (account_id, kind, id, data, version_at) VALUES
         (1, 'agent', 7, '{"id": 7, "name": "Ada"}', now()), (1, 'agent', 8, '{"id": 8, "name": "Other"}', now()), (1, 'inbox', 3, '{"id": 3, "name": "Web"}', now()),
         (1, 'contact', 5, NULL, now()), (2, 'agent', 9, '{"id": 9, "name": "Another account"}', now()), (1, 'team', 7, '{"id": 7, "name": "A team"}', now())`,
    );
    const m = msg(300, '2026-01-01T12:00:00.000Z', 'with copies');
    const { state, copies } = await recordMessageWithCopies(pg, 1, 3, null, m, { last: m, incoming: true }, { inbox: [3], contact: [5], agent: [7, 9, null, 7], agent_bot: [], team: [null] });
    expect(state.lastMessage).toMatchObject({ id: 300 });
    expect(state.incoming.map(([id]) => id)).toEqual([300]);
    const rows = [...copies.rows].sort((a, b) => `${a.kind}${a.id}`.localeCompare(`${b.kind}${b.id}`));
    expect(rows).toEqual([
      { kind: 'agent', id: 7, data: { id: 7, name: 'Ada' } },
      { kind: 'contact', id: 5, data: null },
      { kind: 'inbox', id: 3, data: { id: 3, name: 'Web' } },
    ]);
    expect(copies.asked).toEqual({ inbox: [3], contact: [5], agent: [7, 9, null, 7], agent_bot: [], team: [null] });
    expect((await readState(pg, 1, 3, null)).lastMessage).toMatchObject({ id: 300 });
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

  it("when a batch's states of several conversations are written in one statement, then each merges with what is stored as one at a time would: a newer stored message stays, incoming messages are a set", async () => {
    const at = (s: number) => `2026-02-01T10:00:${String(s).padStart(2, '0')}.000Z`;
    // Conversation 61 holds a newer message (a replica wrote it meanwhile), 62 an older one, 63 nothing.
    const newer = msg(500, at(30), 'stored, newer');
    await recordMessage(pg, 4, 61, null, newer, { last: newer, incoming: true });
    const older = msg(400, at(10), 'stored, older');
    await recordMessage(pg, 4, 62, null, older, { last: older, incoming: true });
    const last = (id: number, s: number) => ({ json: { id, content: `batch ${id}` }, id, version: at(s) });
    await recordStates(pg, [
      { accountId: 4, conversationId: 62, last: last(450, 20), incoming: [[450, Date.parse(at(20))], [400, Date.parse(at(10))]] },
      { accountId: 4, conversationId: 61, last: last(450, 20), incoming: [[450, Date.parse(at(20))]] },
      { accountId: 4, conversationId: 63, last: null, incoming: [[460, Date.parse(at(21))]] },
    ]);
    const [s61, s62, s63] = [await readState(pg, 4, 61, null), await readState(pg, 4, 62, null), await readState(pg, 4, 63, null)];
    expect(s61.lastMessage).toMatchObject({ id: 500, content: 'stored, newer' });
    expect(s61.incoming.map((e) => e[0])).toEqual([500, 450]);
    expect(s62.lastMessage).toMatchObject({ id: 450, content: 'batch 450' });
    expect(s62.incoming.map((e) => e[0])).toEqual([450, 400]);
    expect(s63.lastMessage).toBeNull();
    expect(s63.incoming.map((e) => e[0])).toEqual([460]);
    // An empty batch writes nothing and does not fail.
    await recordStates(pg, []);
  });

  it('when a batch of message events is handled in memory, then each event sees the state one at a time would give it, and the written state is the same', async () => {
    // Owners that know nothing (every copy is a 404): the copies are not what this test is about.
    const missing = async () => {
      throw new NotFoundError();
    };
    const peers = { contacts: { contact: missing }, identity: { agent: missing, team: missing, agentBot: missing }, conversations: { inbox: missing } } as unknown as Peers;
    const kit = new ProjectionKit({ log: { warn: () => undefined } as never, peers });
    const conv = (id: number) => ({ id, display_id: id, uuid: randomUUID(), account_id: 3, inbox_id: 1, status: 'open', priority: null, labels: [], assignee_id: null, team_id: null, contact_id: null, contact_inbox_id: null, snoozed_until: null, custom_attributes: {}, additional_attributes: {}, muted: false, waiting_since: null, first_reply_created_at: null, last_activity_at: 0, created_at: 0 });
    const messages = [
      { id: 301, message_type: 0, at: '2026-01-01T12:00:01.000Z' },
      { id: 302, message_type: 1, at: '2026-01-01T12:00:02.000Z' },
      { id: 303, message_type: 0, at: '2026-01-01T12:00:03.000Z' },
      { id: 302, message_type: 1, at: '2026-01-01T12:00:04.000Z', edit: true },
    ];
    const run = async (convId: number, batched: boolean) => {
      const c = conv(convId);
      const events = messages.map((m) => ({
        id: randomUUID(), type: m.edit ? 'message.updated' : 'message.created', actor: { type: 'system', id: null }, account_id: 3, occurred_at: m.at,
        data: { id: m.id, message_type: m.message_type, private: false, created_at: Math.floor(Date.parse(m.at) / 1000), updated_at: m.at, content: m.edit ? 'edited' : `m${m.id}`, sender_type: null, sender_id: null, conversation: c },
      })) as unknown as EventEnvelope[];
      const cache = batched ? await BatchCache.prefetch(pg, kit, events, readStates) : null;
      if (batched) expect(cache).not.toBeNull();
      const seen = [];
      for (const e of events) {
        const msg = e.data as unknown as { id: number; message_type: number; created_at: number; updated_at: string; content: string };
        const last = { id: msg.id, content: msg.content, updated_at: msg.updated_at };
        const incoming = e.type === 'message.created' && msg.message_type === 0;
        const state = cache
          ? cache.recordMessage(c as never, msg, { last, incoming: incoming ? [msg.id, createdMs(msg)] : null })
          : await recordMessage(pg, 3, convId, null, msg, { last, incoming });
        seen.push({ last: state?.lastMessage, unread: unreadCount(state!, null) });
      }
      await cache?.flush(pg);
      return { seen, stored: await readState(pg, 3, convId, null) };
    };
    const oneAtATime = await run(50, false);
    const batched = await run(51, true);
    expect(batched).toEqual(oneAtATime);
    expect(batched.seen.map((s) => s.unread)).toEqual([1, 1, 2, 2]);
    expect(batched.stored.lastMessage).toMatchObject({ id: 303 });
  });
});
