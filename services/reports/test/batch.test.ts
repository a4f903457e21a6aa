import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { createTestDatabase, type TestDatabase } from '@parley/testkit';
import { begin, commit, inBatches, MESSAGE_TYPE_HEADER, NotFoundError, ProjectionKit, rollback, type EventEnvelope, type Peers } from '@parley/shared';
import { lockBatch, reportsConsumer } from '../src/events/consumer';

/**
 * The reports consumer in batch mode against a real Postgres: a batch locks and reads its
 * conversations at once (`lockBatch`) and gathers its rollups for the commit; what it derives
 * must be what the same events give one transaction each.
 */
describe('reports consumer: a batch gives what one event at a time gives', () => {
  let db: TestDatabase;
  let pg: Pool;
  // Owners that know nothing (an inbox copy is a 404: no working hours): the copies are not what this test is about.
  const missing = async () => {
    throw new NotFoundError();
  };
  const peers = { contacts: { contact: missing }, identity: { agent: missing, team: missing, agentBot: missing }, conversations: { inbox: missing } } as unknown as Peers;
  const kit = new ProjectionKit({ log: { warn: () => undefined } as never, peers });
  const spec = inBatches(reportsConsumer(kit), { size: 50, maxWaitMs: 0, before: lockBatch });
  const T0 = Date.parse('2026-03-02T09:00:00.000Z');

  beforeAll(async () => {
    db = await createTestDatabase();
    pg = new Pool({ connectionString: db.url, options: '-c search_path=reports', max: 1 });
  });
  afterAll(async () => {
    await pg?.end();
    await db?.drop();
  });

  /** The statements a transaction of `inOneTransaction` sent that write conversations and their facts (`WRITE_CONVERSATIONS`), by their text. */
  let writeStatements = 0;
  /** Runs events as the kernel runs a batch: one transaction, the batch's handler over all of them. */
  const inOneTransaction = async (events: EventEnvelope[], consumer = spec) => {
    const tx = await pg.connect();
    const query = tx.query.bind(tx) as (...args: unknown[]) => unknown;
    writeStatements = 0;
    // The real client, its statements counted on their way to Postgres.
    (tx as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
      if (text?.includes('INSERT INTO conversation_facts')) writeStatements += 1;
      return query(...args);
    };
    try {
      await begin(tx);
      await consumer.batch.handle(tx, events, (_event, fn) => fn());
      await commit(tx);
    } catch (err) {
      await rollback(tx);
      throw err;
    } finally {
      (tx as unknown as { query: unknown }).query = query;
      tx.release();
    }
  };

  const conversation = (accountId: number, id: number, status = 'open') => ({
    id, display_id: id, uuid: randomUUID(), account_id: accountId, inbox_id: 7, status, priority: null, labels: [], assignee_id: 3, team_id: null,
    contact_id: null, contact_inbox_id: null, snoozed_until: null, custom_attributes: {}, additional_attributes: {}, muted: false,
    waiting_since: null, first_reply_created_at: null, last_activity_at: Math.floor(T0 / 1000), created_at: Math.floor(T0 / 1000),
  });
  const envelope = (accountId: number, type: string, data: unknown, atMs: number, actor: { type: string; id: number | null } = { type: 'system', id: null }, changes: unknown = null) =>
    ({ id: randomUUID(), type, version: 1, occurred_at: new Date(atMs).toISOString(), account_id: accountId, actor, request_id: null, data, changes }) as unknown as EventEnvelope;
  const message = (accountId: number, convId: number, id: number, type: 0 | 1, atMs: number) =>
    envelope(accountId, 'message.created', {
      id, account_id: accountId, inbox_id: 7, conversation_id: convId, message_type: type, content: `m${id}`, content_type: 'text', content_attributes: {},
      private: false, status: 'sent', sender_type: type === 0 ? 'Contact' : 'User', sender_id: type === 0 ? 90 : 3, source_id: null,
      created_at: Math.floor(atMs / 1000), conversation: conversation(accountId, convId),
    }, atMs, type === 0 ? { type: 'contact', id: 90 } : { type: 'user', id: 3 });

  /** Two conversations' histories, the second conversation's events between the first's: two events of one conversation in a batch. */
  const history = (accountId: number) => [
    message(accountId, 1, 11, 0, T0 + 60_000),
    message(accountId, 2, 21, 0, T0 + 90_000),
    message(accountId, 1, 12, 1, T0 + 300_000),
    message(accountId, 1, 13, 0, T0 + 600_000),
    message(accountId, 2, 22, 1, T0 + 650_000),
    message(accountId, 1, 14, 1, T0 + 1_200_000),
    envelope(accountId, 'conversation.status_changed', conversation(accountId, 1, 'resolved'), T0 + 1_500_000, { type: 'user', id: 3 }, { status: ['open', 'resolved'] }),
  ];

  /** An inbox of an account (7 unless told), open 9 to 17 every day in its time zone (UTC unless told). */
  const inboxOf = (accountId: number, id = 7, timezone = 'UTC') => {
    const day = (d: number) => ({ day_of_week: d, closed_all_day: false, open_hour: 9, open_minutes: 0, close_hour: 17, close_minutes: 0, open_all_day: false });
    return {
      id, account_id: accountId, name: 'Support', channel_type: 'Channel::Api', channel_id: 1, identifier: 'x', hmac_token: 'h', hmac_mandatory: false,
      webhook_url: null, avatar_url: '', provider: null, working_hours_enabled: true, timezone, working_hours: [0, 1, 2, 3, 4, 5, 6].map(day),
    };
  };

  const derived = async (accountId: number) => ({
    events: (
      await pg.query(
        'SELECT conversation_id, name, value, value_in_business_hours, event_start_time, event_end_time, user_id, team_id, inbox_id FROM reporting_events WHERE account_id = $1 ORDER BY 1, 6, 2',
        [accountId],
      )
    ).rows,
    conversations: (
      await pg.query(
        'SELECT id, status, labels, assignee_id, team_id, inbox_id, created_at, version_at, waiting_since, first_reply_created_at, timeline, last_fact_at, last_fact_seq FROM conversations WHERE account_id = $1 ORDER BY id',
        [accountId],
      )
    ).rows,
    // Facts by their content (event ids differ between the two accounts compared).
    facts: (
      await pg.query(
        `SELECT conversation_id, kind, at, seq, inbox_id, assignee_id, team_id, message_type, private, sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours
           FROM conversation_facts WHERE account_id = $1 ORDER BY conversation_id, at, seq`,
        [accountId],
      )
    ).rows,
    // Rows whose counts came back to zero left out: one at a time leaves them, a batch sums its items first (the same numbers either way).
    rollups: (await pg.query('SELECT metric, dim, grain, bucket, dim_id, n, v, v_bh FROM rollups WHERE account_id = $1 AND (n <> 0 OR v <> 0 OR v_bh <> 0) ORDER BY 1, 2, 3, 4, 5', [accountId])).rows,
  });

  it('when the conversations service writes an activity message or a labels, assignee or team event, then the reports queue takes none of them (each comes with a conversation.updated of the same snapshot)', () => {
    for (const type of ['conversation.labels_changed', 'assignee.changed', 'team.changed']) expect(spec.bindings).not.toContain(type);
    expect(spec.bindings).toEqual(expect.arrayContaining(['conversation.created', 'conversation.updated', 'conversation.status_changed']));
    // Messages on their message type: the broker does not deliver activity messages at all.
    expect(spec.bindings).not.toContain('message.created');
    expect(spec.headerBindings).toEqual(['0', '1', '3'].map((t) => ({ type: 'message.created', headers: { [MESSAGE_TYPE_HEADER]: t } })));
    const incoming = message(1, 5, 1, 0, T0);
    const activity = { ...incoming, data: { ...incoming.data, message_type: 2, sender_type: null, sender_id: null, content: 'Automation System added billing' } } as EventEnvelope;
    expect(spec.wants?.(incoming)).toBe(true);
    // One from an older relay (no message type header) still arrives: acked without a transaction.
    expect(spec.wants?.(activity)).toBe(false);
  });

  it('when two events of one conversation come in one batch with its row locked and read beforehand, then the second sees what the first wrote, and events, timelines and rollups are those of one event at a time', async () => {
    // The conversations exist first (a conversation never seen is created by its first event, not read beforehand).
    for (const accountId of [5, 6]) await inOneTransaction([1, 2].map((id) => envelope(accountId, 'conversation.created', conversation(accountId, id), T0)));
    // Account 5: the whole history in one batch; account 6: one transaction per event.
    const batch = history(5);
    await inOneTransaction(batch);
    for (const event of history(6)) await inOneTransaction([event]);
    const [batched, oneByOne] = [await derived(5), await derived(6)];
    // What one at a time derives: first responses, reply times, a resolution.
    expect(oneByOne.events.map((e) => `${e.conversation_id} ${e.name} ${e.value}`)).toEqual([
      '1 first_response 300',
      '1 reply_time 240',
      '1 reply_time 600',
      '1 conversation_resolved 1500',
      '2 first_response 650',
      '2 reply_time 560',
    ]);
    expect(batched).toEqual(oneByOne);
    // A redelivered batch changes nothing (the facts' event ids).
    await inOneTransaction(batch);
    expect(await derived(5)).toEqual(batched);
  });
  it("when a batch holds messages and updates of many conversations of two accounts, then their writes go to Postgres in one statement an account, and events, timelines and rollups are those of one event at a time", async () => {
    const ids = [1, 2, 3, 4];
    for (const accountId of [20, 21, 22, 23]) await inOneTransaction(ids.map((id) => envelope(accountId, 'conversation.created', conversation(accountId, id), T0)));
    // Each conversation: a contact's message, then an update of its snapshot (labels, in an order that is not sorted, and a team), then a reply.
    const updated = (accountId: number, id: number, atMs: number) => envelope(accountId, 'conversation.updated', { ...conversation(accountId, id), labels: ['vip', 'billing'], team_id: 8 }, atMs);
    const rounds = (accountId: number) => [
      ids.map((id) => message(accountId, id, 100 + id, 0, T0 + id * 1000)),
      ids.map((id) => updated(accountId, id, T0 + 50_000 + id * 1000)),
      ids.map((id) => message(accountId, id, 200 + id, 1, T0 + 120_000 + id * 1000)),
    ];
    // Accounts 20 and 21 in batches that mix them (a round of both, their events in turn); 22 and 23 one event at a time.
    const [r20, r21] = [rounds(20), rounds(21)];
    for (const [k, round] of r20.entries()) {
      await inOneTransaction(round.flatMap((e, i) => [e, r21[k]?.[i] as EventEnvelope]));
      // The writes (facts, snapshots) of both accounts' conversations: one statement an account, not one a conversation.
      expect(writeStatements).toBe(2);
      if (k === 1) {
        // The updates' snapshots kept: labels in their order, the team.
        const kept = await pg.query('SELECT labels, team_id::int AS team FROM conversations WHERE account_id IN (20, 21) ORDER BY account_id, id');
        expect(kept.rows).toEqual([...ids, ...ids].map(() => ({ labels: ['vip', 'billing'], team: 8 })));
      }
    }
    for (const accountId of [22, 23]) {
      for (const event of rounds(accountId).flat()) {
        await inOneTransaction([event]);
        expect(writeStatements).toBe(1);
      }
    }
    const [b20, b21, o22, o23] = [await derived(20), await derived(21), await derived(22), await derived(23)];
    expect(o22.events.map((e) => `${e.conversation_id} ${e.name} ${e.value} ${e.user_id}`)).toEqual(ids.flatMap((id) => [`${id} first_response ${120 + id} 3`, `${id} reply_time 120 3`]));
    expect(o22.conversations.map((c) => c.last_fact_seq)).toEqual(ids.map((id) => String(200 + id)));
    expect(b20).toEqual(o22);
    expect(b21).toEqual(o23);
    // The replies' snapshots (after the updates) are the conversations' last: no labels, no team again.
    expect(b20.conversations.map((c) => [c.labels, c.team_id])).toEqual(ids.map(() => [[], null]));
  });
  it("when a batch holds each conversation's wait update, then its contact's message, then a label update (the order the conversations service publishes them), then each account's conversations are written in one statement, the later snapshot kept, and a later batch of replies as one at a time", async () => {
    const ids = [1, 2, 3];
    // Each account: its inbox's copy (with working hours: the facts record them) and three conversations.
    for (const accountId of [30, 31, 32, 33]) {
      await inOneTransaction([envelope(accountId, 'inbox.created', inboxOf(accountId), T0)]);
      await inOneTransaction(ids.map((id) => envelope(accountId, 'conversation.created', conversation(accountId, id), T0)));
    }
    const snap = (accountId: number, id: number, over: Record<string, unknown>) => ({ ...conversation(accountId, id), ...over });
    // Two batches: the messages and updates, then the replies and conversation 1 again.
    const events = (accountId: number): EventEnvelope[][] => {
      const start = (id: number) => T0 + id * 60_000;
      const waiting = (id: number) => Math.floor(start(id) / 1000);
      return [
        ids.flatMap((id) => {
          const at = start(id);
          return [
            envelope(accountId, 'conversation.updated', snap(accountId, id, { waiting_since: waiting(id) }), at),
            message(accountId, id, 300 + id, 0, at),
            // A rule's label a moment later, then an update of the same instant (on a tie the one that
            // comes later is kept), then an older one that arrives last (not kept: not the newest).
            envelope(accountId, 'conversation.updated', snap(accountId, id, { waiting_since: waiting(id), labels: ['rule-hit'] }), at + 5),
            envelope(accountId, 'conversation.updated', snap(accountId, id, { waiting_since: waiting(id), labels: ['rule-hit', 'tie'], team_id: 4 }), at + 5),
            envelope(accountId, 'conversation.updated', snap(accountId, id, { waiting_since: waiting(id), labels: ['stale'] }), at + 1),
          ];
        }),
        [
          // The replies, each the first fact of its conversation in this batch.
          ...ids.map((id) => message(accountId, id, 400 + id, 1, start(id) + 120_000)),
          // Conversation 1 again: an update goes into the reply's waiting write, then a message (a second fact) sends it and reads the row again.
          envelope(accountId, 'conversation.updated', snap(accountId, 1, { waiting_since: Math.floor((T0 + 600_000) / 1000) }), T0 + 600_000),
          message(accountId, 1, 501, 0, T0 + 600_001),
        ],
      ];
    };
    // Accounts 30 and 31 in batches, their events in turn; 32 and 33 one event at a time.
    const [e30, e31, e32, e33] = [events(30), events(31), events(32), events(33)];
    const compare = async () => {
      const [b30, b31, o32, o33] = [await derived(30), await derived(31), await derived(32), await derived(33)];
      expect(b30).toEqual(o32);
      expect(b31).toEqual(o33);
      return o32;
    };
    const inTurn = (k: number) => (e30[k] as EventEnvelope[]).flatMap((e, i) => [e, e31[k]?.[i] as EventEnvelope]);
    const oneAtATime = async (k: number) => {
      for (const event of [...(e32[k] as EventEnvelope[]), ...(e33[k] as EventEnvelope[])]) await inOneTransaction([event]);
    };
    await inOneTransaction(inTurn(0));
    // Each account's conversations in one statement, at the commit.
    expect(writeStatements).toBe(2);
    await oneAtATime(0);
    // The newest update kept (the later of a tie), not the older one that came last; the messages recorded.
    const first = await compare();
    expect(first.conversations.map((c) => [c.labels, c.team_id, Number(c.last_fact_seq)])).toEqual(ids.map((id) => [['rule-hit', 'tie'], '4', 300 + id]));
    await inOneTransaction(inTurn(1));
    // An account's statements: at conversation 1's message (its second fact in the batch: the writes go first), at the commit.
    expect(writeStatements).toBe(4);
    await oneAtATime(1);
    const second = await compare();
    // Replies two minutes after the messages, in working hours, recorded with the inbox's working hours.
    expect(second.events.map((e) => `${e.conversation_id} ${e.name} ${e.value} ${e.value_in_business_hours}`)).toEqual(ids.flatMap((id) => [`${id} first_response ${120 + 60 * id} ${120 + 60 * id}`, `${id} reply_time 120 120`]));
    expect(second.facts.map((f) => f.business_hours?.timezone ?? null)).toEqual([...ids.flatMap(() => ['UTC', 'UTC']), 'UTC']);
    expect(second.conversations.map((c) => Number(c.last_fact_seq))).toEqual([501, 402, 403]);
  });

  it("when a batch's update moves the conversation's creation time, or its next message is in another inbox, then the message is derived from the row as it stands, not as it was read (as one at a time)", async () => {
    // Each account: inboxes 7 (UTC) and 8 (Tokyo: other working hours), a conversation, and a contact's message in a batch of its own.
    const setUp = async (accountId: number) => {
      await inOneTransaction([envelope(accountId, 'inbox.created', inboxOf(accountId), T0), envelope(accountId, 'inbox.created', inboxOf(accountId, 8, 'Asia/Tokyo'), T0)]);
      await inOneTransaction([envelope(accountId, 'conversation.created', conversation(accountId, 1), T0)]);
      await inOneTransaction([message(accountId, 1, 11, 0, T0 + 60_000)]);
    };
    const earlier = Math.floor((T0 - 3_600_000) / 1000);
    const update = (accountId: number, atMs: number, over: Record<string, unknown> = {}) => envelope(accountId, 'conversation.updated', { ...conversation(accountId, 1), ...over }, atMs);
    const inInbox8 = (e: EventEnvelope): EventEnvelope => {
      const data = e.data as Record<string, unknown>;
      return { ...e, data: { ...data, inbox_id: 8, conversation: { ...(data['conversation'] as Record<string, unknown>), inbox_id: 8 } } } as EventEnvelope;
    };
    const cases: Record<string, (accountId: number) => EventEnvelope[]> = {
      // An update that keeps the creation time, then one that moves it (merged into the first's write), then a reply.
      merged: (accountId) => [update(accountId, T0 + 100_000), update(accountId, T0 + 110_000, { created_at: earlier }), message(accountId, 1, 12, 1, T0 + 300_000)],
      // An update that moves the creation time, then a reply.
      moved: (accountId) => [update(accountId, T0 + 110_000, { created_at: earlier }), message(accountId, 1, 12, 1, T0 + 300_000)],
      // An update in inbox 7, then a contact's message in inbox 8 (the conversation moved): the fact records inbox 8's hours.
      inbox: (accountId) => [update(accountId, T0 + 100_000), inInbox8(message(accountId, 1, 12, 0, T0 + 300_000))],
    };
    for (const [k, events] of Object.values(cases).entries()) {
      const [batched, oneByOne] = [50 + k, 60 + k];
      await setUp(batched);
      await setUp(oneByOne);
      await inOneTransaction(events(batched));
      for (const event of events(oneByOne)) await inOneTransaction([event]);
      expect(await derived(batched)).toEqual(await derived(oneByOne));
    }
    // What one at a time gives, so that the comparisons above compare something: the creation time moved, a reply measured from it; Tokyo's hours recorded.
    expect((await derived(61)).events.map((e) => `${e.name} ${e.value}`)).toContain('first_response 3900');
    expect((await derived(62)).facts.map((f) => f.business_hours?.timezone)).toEqual(['UTC', 'Asia/Tokyo']);
  });

  it('when a batch holds a late fact of a conversation (its events rebuilt) and then a later one, then the later one is derived from the rebuilt timeline, as one at a time', async () => {
    for (const accountId of [7, 8]) await inOneTransaction([envelope(accountId, 'conversation.created', conversation(accountId, 1), T0)]);
    const first = (accountId: number) => [message(accountId, 1, 11, 0, T0 + 60_000), message(accountId, 1, 12, 1, T0 + 300_000), message(accountId, 1, 13, 0, T0 + 600_000)];
    // A reply of 400 s that arrives after the message of 600 s, then a reply at 900 s.
    const second = (accountId: number) => [message(accountId, 1, 15, 1, T0 + 400_000), message(accountId, 1, 16, 1, T0 + 900_000)];
    await inOneTransaction(first(7));
    await inOneTransaction(second(7));
    for (const event of [...first(8), ...second(8)]) await inOneTransaction([event]);
    const [batched, oneByOne] = [await derived(7), await derived(8)];
    expect(oneByOne.events.map((e) => `${e.name} ${e.value}`)).toEqual(['first_response 300', 'reply_time 240', 'reply_time 300']);
    expect(batched).toEqual(oneByOne);
  });

  it("when a batch's conversations share an inbox whose copy is missing, then its owner is asked once and every fact records its working hours", async () => {
    let asked = 0;
    const inbox = inboxOf(9);
    const answering = { ...peers, conversations: { inbox: async () => ((asked += 1), inbox) } } as unknown as Peers;
    const withHours = inBatches(reportsConsumer(new ProjectionKit({ log: { warn: () => undefined } as never, peers: answering })), { size: 50, maxWaitMs: 0, before: lockBatch });
    const run = (events: EventEnvelope[]) => inOneTransaction(events, withHours);
    await run([1, 2, 3].map((id) => envelope(9, 'conversation.created', conversation(9, id), T0)));
    expect(asked).toBe(0);
    await run([1, 2, 3].map((id) => message(9, id, 90 + id, 0, T0 + id * 60_000)));
    expect(asked).toBe(1);
    const { rows } = await pg.query('SELECT conversation_id, business_hours FROM conversation_facts WHERE account_id = 9 ORDER BY conversation_id');
    expect(rows.map((r) => [Number(r.conversation_id), r.business_hours?.timezone ?? null])).toEqual([[1, 'UTC'], [2, 'UTC'], [3, 'UTC']]);
  });
});
