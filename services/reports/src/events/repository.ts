import { fewRows, gatherForCommit, prepared, type ConversationSnapshot, type Executor } from '@parley/shared';
import { startTimeline, stepTimeline, type DerivedEvent, type Fact, type ReportingEventName, type Timeline } from './timeline';
import { bumpRollups, dropGatheredRollups, type RollupItem } from './rollups';

export interface ConversationState {
  account_id: number;
  id: number;
  created_at: Date | null;
  deleted: boolean;
  /** The derivation's state after its last fact (null: rebuild on the next fact). */
  timeline: Timeline | null;
  /** The row of the inbox copy asked for with the lock (tombstone: data null), if there is one. */
  inbox_copy: { kind: 'inbox'; id: number; data: unknown } | null;
}

// Every message runs this: prepared, parsed and planned once per connection (`fewRows`). The lock also reads
// the copy of the inbox a fact records the working hours of (null for none): a round trip fewer
// per fact than reading it after. One conversation (`lockConversation`) or a batch's.
const lockMany = prepared(
  `SELECT c.account_id, c.id, c.created_at, c.deleted, c.timeline, i.id AS inbox_copy_id, i.data AS inbox_copy_data
     FROM unnest($2::bigint[], $3::int[]) AS w (id, inbox)
     JOIN conversations c ON c.account_id = $1 AND c.id = w.id
     LEFT JOIN projections i ON i.account_id = c.account_id AND i.kind = 'inbox' AND i.id = w.inbox
    WHERE ${fewRows('w.id')}
    ORDER BY c.id FOR UPDATE OF c`,
);

type LockRow = Omit<ConversationState, 'inbox_copy'> & { inbox_copy_id: number | null; inbox_copy_data: unknown };

const stateOfRow = ({ inbox_copy_id: copyId, inbox_copy_data: copyData, ...row }: LockRow): ConversationState => ({
  ...row,
  account_id: Number(row.account_id),
  id: Number(row.id),
  inbox_copy: copyId === null ? null : { kind: 'inbox', id: Number(copyId), data: copyData },
});

/** Rows `lockConversations` locked and read for a transaction, each used once, by `account:conversation`, with the inbox asked for. */
type Prefetched = Map<string, { inboxId: number | null; state: ConversationState }>;
const PREFETCHED = 'reports.locked';
const prefetchedIn = (tx: Executor) => gatherForCommit<Prefetched>(tx, PREFETCHED, () => new Map(), async () => undefined);

/**
 * The conversation's row, created empty when first seen, locked for the rest of the transaction:
 * events of one conversation (handled concurrently from one batch, or by two replicas) are
 * applied one after the other, and each sees the facts the previous one committed. `inboxId`:
 * the inbox whose copy's row comes back with it (`inbox_copy`). A row `lockConversations` read
 * for this transaction is answered from memory, once (a second event of the conversation reads
 * what the first wrote).
 */
export async function lockConversation(tx: Executor, accountId: number, id: number, inboxId: number | null = null): Promise<ConversationState> {
  const cache = prefetchedIn(tx);
  const key = `${accountId}:${id}`;
  const hit = cache?.get(key);
  if (hit) {
    cache?.delete(key);
    if (inboxId === null) return { ...hit.state, inbox_copy: null };
    // A copy missing when the batch began may have been read through and stored by an event before
    // this one (the inbox's owner asked once a batch, not once an event): read it again.
    if (hit.inboxId === inboxId && hit.state.inbox_copy !== null) return hit.state;
  }
  const one = lockMany([accountId, [id], [inboxId]]);
  let r = await tx.query<LockRow>(one);
  if (r.rows.length === 0) {
    await tx.query('INSERT INTO conversations (account_id, id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, id]);
    r = await tx.query<LockRow>(one);
  }
  return stateOfRow(r.rows[0] as LockRow);
}


/**
 * `lockConversation` for the conversations a batch's events name, one statement per account (rows
 * locked in id order), each with its inbox's copy: the events' own calls then take their row from
 * memory instead of a round trip each. Only for a transaction in which nothing else writes those
 * rows before each one's first `lockConversation` (a batch of conversation and message events);
 * outside a consumer's or `withTransaction`'s transaction it does nothing. A conversation never
 * seen before is left to `lockConversation`, which creates its row.
 */
export async function lockConversations(tx: Executor, wanted: ReadonlyArray<{ accountId: number; id: number; inboxId: number | null }>): Promise<void> {
  const cache = prefetchedIn(tx);
  if (!cache || wanted.length === 0) return;
  const byAccount = new Map<number, Map<number, number | null>>();
  for (const w of wanted) {
    let ids = byAccount.get(w.accountId);
    if (!ids) byAccount.set(w.accountId, (ids = new Map()));
    if (!ids.has(w.id)) ids.set(w.id, w.inboxId);
  }
  for (const [accountId, ids] of [...byAccount].sort((a, b) => a[0] - b[0])) {
    const r = await tx.query<LockRow>(lockMany([accountId, [...ids.keys()], [...ids.values()]]));
    for (const row of r.rows) {
      const state = stateOfRow(row);
      cache.set(`${accountId}:${state.id}`, { inboxId: ids.get(state.id) ?? null, state });
    }
  }
}

const fromUnix = (s: number | null) => (s === null ? null : new Date(s * 1000));

/**
 * Keeps the newest snapshot (by the owner's event time): an older event never overwrites newer
 * state. A change of the conversation's creation time, assignee, team or inbox moves it in the
 * `conversations` rollups (an agent's or team's conversations are those assigned to them now).
 */
const SNAPSHOT_UPDATE = `UPDATE conversations c SET inbox_id = $3, status = $4, assignee_id = $5, team_id = $6, labels = $7, waiting_since = $8,
            first_reply_created_at = $9, created_at = $10, version_at = $11
       FROM conversations o
      WHERE c.account_id = $1 AND c.id = $2 AND o.account_id = c.account_id AND o.id = c.id AND c.version_at <= $11 AND NOT c.deleted
      RETURNING c.created_at, c.assignee_id, c.team_id, c.inbox_id,
                o.created_at AS old_created_at, o.assignee_id AS old_assignee_id, o.team_id AS old_team_id, o.inbox_id AS old_inbox_id`;
const updateSnapshot = prepared(SNAPSHOT_UPDATE);

type SnapshotRow = ConversationRow & { old_created_at: Date | null; old_assignee_id: string | null; old_team_id: string | null; old_inbox_id: string | null };
const snapshotParams = (snap: ConversationSnapshot, occurredAt: string): unknown[] => [
  snap.account_id, snap.id, snap.inbox_id, snap.status, snap.assignee_id, snap.team_id, snap.labels, fromUnix(snap.waiting_since), fromUnix(snap.first_reply_created_at), fromUnix(snap.created_at), occurredAt,
];

export async function applySnapshot(tx: Executor, snap: ConversationSnapshot, occurredAt: string): Promise<void> {
  // `o` is the row as it was before this statement (the conversation is locked: lockConversation).
  const r = await tx.query<SnapshotRow>(updateSnapshot(snapshotParams(snap, occurredAt)));
  await countMove(tx, snap.account_id, r.rows[0]);
}

/** A snapshot's update moved the conversation in the `conversations` rollups (`row`: the update's, undefined when it changed nothing). */
async function countMove(tx: Executor, accountId: number, row: SnapshotRow | undefined): Promise<void> {
  if (!row) return;
  const before = { created_at: row.old_created_at, assignee_id: row.old_assignee_id, team_id: row.old_team_id, inbox_id: row.old_inbox_id };
  // Most events (every message) move nothing: then the -1 and +1 would cancel out in the statement.
  if (sameCounting(before, row)) return;
  await bumpRollups(tx, accountId, [...conversationItems(before, -1), ...conversationItems(row, 1)]);
}

interface ConversationRow {
  created_at: Date | null;
  assignee_id: string | number | null;
  team_id: string | number | null;
  inbox_id: string | number | null;
}

/** Whether two states of a conversation count it in the same `conversations` rollups. */
function sameCounting(a: ConversationRow, b: ConversationRow): boolean {
  return (
    (a.created_at?.getTime() ?? null) === (b.created_at?.getTime() ?? null) &&
    num(a.assignee_id) === num(b.assignee_id) &&
    num(a.team_id) === num(b.team_id) &&
    num(a.inbox_id) === num(b.inbox_id)
  );
}

/** A conversation as the `conversations` metric counts it (nothing until its creation time is known). */
function conversationItems(c: ConversationRow, n: 1 | -1): RollupItem[] {
  if (!c.created_at) return [];
  return [{ metric: 'conversations', t: c.created_at, agent: num(c.assignee_id), team: num(c.team_id), inbox: num(c.inbox_id), n, v: 0, v_bh: 0 }];
}

interface FactRow {
  kind: string;
  at: Date;
  message_type: number | null;
  private: boolean | null;
  sender_type: string | null;
  sender_id: string | number | null;
  assignee_id: string | number | null;
  team_id: string | number | null;
  inbox_id: string | number | null;
}

/** A fact as incoming_/outgoing_messages_count count it (public incoming or outgoing messages), or nothing. */
function factItems(f: FactRow, n: 1 | -1): RollupItem[] {
  if (f.kind !== 'message' || f.private || (f.message_type !== 0 && f.message_type !== 1)) return [];
  const incoming = f.message_type === 0;
  const agent = incoming ? num(f.assignee_id) : f.sender_type === 'User' ? num(f.sender_id) : null;
  return [{ metric: incoming ? 'incoming' : 'outgoing', t: f.at, agent, team: num(f.team_id), inbox: num(f.inbox_id), n, v: 0, v_bh: 0 }];
}

export interface NewFact extends Fact {
  account_id: number;
  conversation_id: number;
  event_id: string;
  seq: number;
}

/** The fact's insert, its account and conversation `$1` and `$2`, its other 16 values from `$i` (`factParams`). */
const factInsertSql = (i: number): string =>
  `INSERT INTO conversation_facts (account_id, conversation_id, event_id, kind, at, seq, inbox_id, assignee_id, team_id, message_type, private,
                                   sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours)
     VALUES ($1, $2, ${Array.from({ length: 16 }, (_, k) => `$${i + k}`).join(', ')})
     ON CONFLICT (event_id) DO NOTHING RETURNING at, seq`;
const factParams = (f: NewFact): unknown[] => [
  f.event_id, f.kind, f.at, f.seq, f.inbox_id, f.assignee_id, f.team_id, f.message_type, f.private, f.sender_type, f.sender_id,
  f.automated, f.status_from, f.status_to, f.actor_type, f.business_hours === null ? null : JSON.stringify(f.business_hours),
];

/**
 * A fact's whole write, in one statement (data-modifying CTEs), a round trip per fact:
 * - the snapshot kept if it is the newest ($1-$11, as `applySnapshot`);
 * - the fact recorded once ($12-$27; a redelivered event adds nothing);
 * - if the fact comes after every other fact of its conversation and the caller derived its
 *   events from the stored timeline (`$28`), those events inserted ($30-$38) and the timeline
 *   moved past the fact ($29).
 * The conversation's row is updated once, the snapshot's columns and the timeline's together
 * (Postgres updates a row once per statement). The fact's place is read from the row as it was
 * before the statement: the snapshot never moves the last fact.
 */
const FACT_WRITE = `WITH ins AS (${factInsertSql(12)}),
  f AS (SELECT true AS recorded, $28::boolean AND c.last_fact_at IS NOT NULL AND (c.last_fact_at, c.last_fact_seq) <= (ins.at, ins.seq) AS appends
          FROM ins JOIN conversations c ON c.account_id = $1 AND c.id = $2),
  events AS (${eventsInsertSql(1, 30)} WHERE (SELECT appends FROM f)),
  up AS (UPDATE conversations c SET
           inbox_id = CASE WHEN newer THEN $3::bigint ELSE c.inbox_id END,
           status = CASE WHEN newer THEN $4::text ELSE c.status END,
           assignee_id = CASE WHEN newer THEN $5::bigint ELSE c.assignee_id END,
           team_id = CASE WHEN newer THEN $6::bigint ELSE c.team_id END,
           labels = CASE WHEN newer THEN $7::text[] ELSE c.labels END,
           waiting_since = CASE WHEN newer THEN $8::timestamptz ELSE c.waiting_since END,
           first_reply_created_at = CASE WHEN newer THEN $9::timestamptz ELSE c.first_reply_created_at END,
           created_at = CASE WHEN newer THEN $10::timestamptz ELSE c.created_at END,
           version_at = CASE WHEN newer THEN $11::timestamptz ELSE c.version_at END,
           timeline = CASE WHEN appends THEN $29::jsonb ELSE c.timeline END,
           last_fact_at = CASE WHEN appends THEN $14::timestamptz ELSE c.last_fact_at END,
           last_fact_seq = CASE WHEN appends THEN $15::bigint ELSE c.last_fact_seq END
         FROM (SELECT o.account_id, o.id, o.created_at, o.assignee_id, o.team_id, o.inbox_id, o.version_at <= $11::timestamptz AS newer, coalesce(f.appends, false) AS appends
                 FROM conversations o LEFT JOIN f ON true WHERE o.account_id = $1 AND o.id = $2) o
        WHERE c.account_id = o.account_id AND c.id = o.id AND NOT c.deleted AND (o.newer OR o.appends)
        RETURNING o.newer AS updated, c.created_at, c.assignee_id, c.team_id, c.inbox_id,
                  o.created_at AS old_created_at, o.assignee_id AS old_assignee_id, o.team_id AS old_team_id, o.inbox_id AS old_inbox_id)
  SELECT u.*, f.recorded, f.appends FROM (SELECT 1) one LEFT JOIN up u ON true LEFT JOIN f ON true`;
const factWrite = prepared(FACT_WRITE);

/**
 * Applies a fact to its locked conversation (`state`, from `lockConversation`) in one statement
 * (`FACT_WRITE`): when the stored timeline can take it (it is there and begins at the known
 * creation time), the fact's events are derived from it beforehand and written if the fact
 * indeed comes after every other. Answers null when the fact was there already; else whether it
 * was appended, and the rollup items of the fact and of its events (the caller adds them: a
 * fact that was not appended needs its conversation rebuilt, which adds the events' own).
 */
export async function applyFact(tx: Executor, state: ConversationState, snap: ConversationSnapshot, occurredAt: string, f: NewFact): Promise<{ appended: boolean; items: RollupItem[] } | null> {
  const { timeline } = state;
  const canAppend = timeline !== null && state.created_at !== null && timeline.createdAt === state.created_at.getTime();
  const events = canAppend ? stepTimeline(timeline, f) : [];
  const r = await tx.query<Partial<SnapshotRow> & { updated: boolean | null; recorded: boolean | null; appends: boolean | null }>(
    factWrite([
      ...snapshotParams(snap, occurredAt),
      ...factParams(f),
      canAppend,
      canAppend ? timeline : null,
      ...eventArrays(events.map((e) => Object.assign({ conversation_id: f.conversation_id }, e))),
    ]),
  );
  const row = r.rows[0];
  await countMove(tx, snap.account_id, row?.updated ? (row as SnapshotRow) : undefined);
  if (!row?.recorded) return null;
  const appended = row.appends === true;
  return { appended, items: [...factItems(f, 1), ...(appended ? events.map((e) => eventItem(e, 1)) : [])] };
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const FACT_COLUMNS = 'kind, at, inbox_id, assignee_id, team_id, message_type, private, sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours';

function factOf(row: Record<string, unknown>): Fact {
  return { ...row, inbox_id: num(row['inbox_id']), assignee_id: num(row['assignee_id']), team_id: num(row['team_id']), sender_id: num(row['sender_id']) } as Fact;
}

export async function factsOf(tx: Executor, accountId: number, conversationId: number): Promise<Fact[]> {
  const r = await tx.query(`SELECT ${FACT_COLUMNS} FROM conversation_facts WHERE account_id = $1 AND conversation_id = $2 ORDER BY at, seq, id`, [accountId, conversationId]);
  return r.rows.map(factOf);
}

/**
 * Rewrites the conversation's reporting events from its facts. Runs after every fact, so the
 * events are always those of all the facts known, in their time order.
 */
export async function rebuildConversation(tx: Executor, accountId: number, conversationId: number, createdAt: Date | null, items: RollupItem[] = []): Promise<void> {
  await rebuildConversations(tx, accountId, [{ id: conversationId, created_at: createdAt }], { items });
}

/**
 * `rebuildConversation` for many conversations of one account at once (replay, the benchmark's
 * generator): one read of their facts and events, then only the differences written: the events
 * no longer derived deleted, the new ones inserted in one multi-row insert, both counted in the
 * rollups (`rollups: false` leaves those to a rebuild_rollups after). The caller holds the
 * conversations' row locks (or owns the account's data, as the generator does). Answers how many
 * events the conversations have.
 */
export async function rebuildConversations(
  tx: Executor,
  accountId: number,
  conversations: ReadonlyArray<{ id: number; created_at: Date | null }>,
  opts: { rollups?: boolean; items?: RollupItem[] } = {},
): Promise<number> {
  if (conversations.length === 0) return 0;
  const ids = conversations.map((c) => c.id);
  const [factRows, eventRows] = await Promise.all([
    tx.query(`SELECT conversation_id, ${FACT_COLUMNS} FROM conversation_facts WHERE account_id = $1 AND conversation_id = ANY($2::bigint[]) ORDER BY conversation_id, at, seq, id`, [accountId, ids]),
    tx.query<StoredEvent>(
      `SELECT id, conversation_id, name, value, value_in_business_hours, event_start_time, event_end_time, inbox_id, user_id, team_id
         FROM reporting_events WHERE account_id = $1 AND conversation_id = ANY($2::bigint[])`,
      [accountId, ids],
    ),
  ]);
  const facts = new Map<number, Fact[]>();
  for (const row of factRows.rows) {
    const id = Number(row.conversation_id);
    let list = facts.get(id);
    if (!list) facts.set(id, (list = []));
    list.push(factOf(row));
  }
  // The events stored now, by what they say: each derived event that matches one stays as it is.
  const stored = new Map<string, string[]>();
  for (const e of eventRows.rows) {
    const key = eventKey(Number(e.conversation_id), { name: e.name, value: e.value, value_in_business_hours: e.value_in_business_hours, start: e.event_start_time, end: e.event_end_time, inbox_id: num(e.inbox_id), user_id: num(e.user_id), team_id: num(e.team_id) });
    const list = stored.get(key);
    if (list) list.push(e.id);
    else stored.set(key, [e.id]);
  }
  const added: Array<DerivedEvent & { conversation_id: number }> = [];
  const timelines: Array<[number, Timeline | null]> = [];
  let total = 0;
  for (const c of conversations) {
    const list = facts.get(c.id) ?? [];
    // Until an event has told us when the conversation began, its first fact stands in.
    const start = c.created_at ?? list[0]?.at;
    if (!start) {
      timelines.push([c.id, null]);
      continue;
    }
    const timeline = startTimeline(start);
    for (const f of list) {
      for (const e of stepTimeline(timeline, f)) {
        total += 1;
        const same = stored.get(eventKey(c.id, e));
        if (same?.length) same.pop();
        else added.push(Object.assign({ conversation_id: c.id }, e));
      }
    }
    timelines.push([c.id, timeline]);
  }
  const removed = new Set([...stored.values()].flat());
  const gone = eventRows.rows.filter((e) => removed.has(e.id));
  if (gone.length > 0) await tx.query('DELETE FROM reporting_events WHERE id = ANY($1::bigint[])', [gone.map((e) => e.id)]);
  if (added.length > 0) await insertEvents(tx, accountId, added);
  // Each conversation's timeline after its last fact (that fact's place read back as stored).
  await tx.query(
    `UPDATE conversations c SET timeline = x.timeline, last_fact_at = lf.at, last_fact_seq = lf.seq
       FROM unnest($2::bigint[], $3::jsonb[]) AS x(id, timeline)
       LEFT JOIN LATERAL (SELECT f.at, f.seq FROM conversation_facts f WHERE f.account_id = $1 AND f.conversation_id = x.id ORDER BY f.at DESC, f.seq DESC, f.id DESC LIMIT 1) lf ON true
      WHERE c.account_id = $1 AND c.id = x.id`,
    [accountId, timelines.map(([id]) => id), timelines.map(([, t]) => (t === null ? null : JSON.stringify(t)))],
  );
  if (opts.rollups !== false) {
    await bumpRollups(tx, accountId, [
      ...(opts.items ?? []),
      ...gone.map((e) => eventItem({ name: e.name, end: e.event_end_time, user_id: num(e.user_id), team_id: num(e.team_id), inbox_id: num(e.inbox_id), value: e.value, value_in_business_hours: e.value_in_business_hours }, -1)),
      ...added.map((e) => eventItem(e, 1)),
    ]);
  }
  return total;
}

/** The reporting events insert, its account the parameter `$a` and its events the nine arrays from `$i` (`eventArrays`); created_at = the event's end, when it happened. */
function eventsInsertSql(a: number, i: number): string {
  return `INSERT INTO reporting_events (account_id, conversation_id, name, value, value_in_business_hours, event_start_time, event_end_time, inbox_id, user_id, team_id, created_at)
     SELECT $${a}::bigint, e.conversation_id, e.name, e.value, e.bh, e.s, e.e, e.inbox_id, e.user_id, e.team_id, e.e
       FROM unnest($${i}::bigint[], $${i + 1}::text[], $${i + 2}::float8[], $${i + 3}::float8[], $${i + 4}::timestamptz[], $${i + 5}::timestamptz[], $${i + 6}::bigint[], $${i + 7}::bigint[], $${i + 8}::bigint[])
            AS e(conversation_id, name, value, bh, s, e, inbox_id, user_id, team_id)`;
}

function eventArrays(events: Array<DerivedEvent & { conversation_id: number }>): unknown[] {
  return [
    events.map((e) => e.conversation_id),
    events.map((e) => e.name),
    events.map((e) => e.value),
    events.map((e) => e.value_in_business_hours),
    events.map((e) => e.start),
    events.map((e) => e.end),
    events.map((e) => e.inbox_id),
    events.map((e) => e.user_id),
    events.map((e) => e.team_id),
  ];
}

/** Reporting events, one multi-row insert. */
async function insertEvents(tx: Executor, accountId: number, events: Array<DerivedEvent & { conversation_id: number }>): Promise<void> {
  await tx.query(eventsInsertSql(1, 2), [accountId, ...eventArrays(events)]);
}

interface StoredEvent {
  id: string;
  conversation_id: string;
  name: ReportingEventName;
  value: number;
  value_in_business_hours: number;
  event_start_time: Date;
  event_end_time: Date;
  inbox_id: string | null;
  user_id: string | null;
  team_id: string | null;
}

type EventFields = Pick<DerivedEvent, 'name' | 'value' | 'value_in_business_hours' | 'start' | 'end' | 'inbox_id' | 'user_id' | 'team_id'>;

const eventKey = (conversationId: number, e: EventFields) =>
  `${conversationId}|${e.name}|${e.value}|${e.value_in_business_hours}|${e.start.getTime()}|${e.end.getTime()}|${e.inbox_id}|${e.user_id}|${e.team_id}`;

/** A reporting event as the rollups count it: at its time (created_at = its end), by its agent, team and inbox. */
function eventItem(e: Pick<DerivedEvent, 'name' | 'end' | 'user_id' | 'team_id' | 'inbox_id' | 'value' | 'value_in_business_hours'>, n: 1 | -1): RollupItem {
  return { metric: e.name, t: e.end, agent: e.user_id, team: e.team_id, inbox: e.inbox_id, n, v: e.value, v_bh: e.value_in_business_hours };
}

/** A deleted conversation leaves the reports (Chatwoot deletes its reporting events with it) and the rollups; the row stays as a tombstone. */
export async function deleteConversation(tx: Executor, accountId: number, conversationId: number): Promise<void> {
  const conv = await tx.query<ConversationRow>(
    `UPDATE conversations c SET deleted = true FROM conversations o
      WHERE c.account_id = $1 AND c.id = $2 AND o.account_id = c.account_id AND o.id = c.id AND NOT o.deleted
      RETURNING o.created_at, o.assignee_id, o.team_id, o.inbox_id`,
    [accountId, conversationId],
  );
  const facts = await tx.query<FactRow>(
    'DELETE FROM conversation_facts WHERE account_id = $1 AND conversation_id = $2 RETURNING kind, at, message_type, private, sender_type, sender_id, assignee_id, team_id, inbox_id',
    [accountId, conversationId],
  );
  const events = await tx.query<StoredEvent>(
    'DELETE FROM reporting_events WHERE account_id = $1 AND conversation_id = $2 RETURNING name, value, value_in_business_hours, event_end_time, inbox_id, user_id, team_id',
    [accountId, conversationId],
  );
  await bumpRollups(tx, accountId, [
    ...conv.rows.flatMap((c) => conversationItems(c, -1)),
    ...facts.rows.flatMap((f) => factItems(f, -1)),
    ...events.rows.map((e) => eventItem({ name: e.name, end: e.event_end_time, user_id: num(e.user_id), team_id: num(e.team_id), inbox_id: num(e.inbox_id), value: e.value, value_in_business_hours: e.value_in_business_hours }, -1)),
  ]);
}

/** Everything of a deleted account. */
export async function deleteAccount(tx: Executor, accountId: number): Promise<void> {
  dropGatheredRollups(tx, accountId);
  for (const t of ['rollups', 'reporting_events', 'conversation_facts', 'conversations']) await tx.query(`DELETE FROM ${t} WHERE account_id = $1`, [accountId]);
}
