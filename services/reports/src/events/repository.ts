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

/**
 * What `lockConversations` did for a transaction (a consumer batch of conversation and message
 * events, each of which locks its conversation before it writes: `batch`): the rows it locked and
 * read, each used once, by `account:conversation`, with the inbox asked for (`rows`); and the
 * writes of the batch's events not yet sent (`pending`, `writeConversation`), one a conversation,
 * sent together in one statement an account: before a later event of one of their conversations
 * reads its row (unless what the row holds after the write is known: `PendingWrite`), and at the
 * latest at the commit. Gathered with the lock, before any rollups of the
 * transaction, so its flush (the writes, which add rollups) runs before theirs (and were it not,
 * `bumpRollups` writes what comes after theirs at once). A write that fails fails the batch (the
 * kernel then takes its events one at a time), in the span of a later event or of the commit.
 */
interface Prefetched {
  batch: boolean;
  rows: Map<string, Locked>;
  pending: Map<string, PendingWrite>;
  /** What `lockConversation` last answered for each conversation: the row it read, with the copy of the inbox it read with it (a prefetched row's, even when the caller asked for none). */
  locked: Map<string, Locked>;
}

interface Locked {
  inboxId: number | null;
  state: ConversationState;
}

/**
 * A write waiting for the batch's others, and what is known of its conversation's row after it
 * without reading it back (the row is locked: nothing else changes it):
 * - `live`: the row is there, not deleted, with a creation time, as it was when locked; a later
 *   event that only brings a snapshot (no fact) needs no more than that (`keepSnapshot`);
 * - `after`: what the lock read (creation time, deletion, timeline, the inbox's copy), when the write
 *   has no fact and its snapshot cannot move the creation time (it leaves those as they were): a later
 *   event of the conversation asking for no inbox, or for the inbox whose copy was read, is answered it
 *   by `lockConversation`, once, and its write takes this one's place (`writeConversation`), so the
 *   conversation is written once a batch.
 */
interface PendingWrite {
  write: ConversationWrite;
  live: boolean;
  after: Locked | null;
  /** `after` was handed to a later event, whose write takes this one's place (and no other does). */
  handed: boolean;
}
const PREFETCHED = 'reports.locked';
const prefetchedIn = (tx: Executor) =>
  gatherForCommit<Prefetched>(tx, PREFETCHED, () => ({ batch: false, rows: new Map(), pending: new Map(), locked: new Map() }), (client, p) => flushWrites(client, p));

/**
 * The conversation's row, created empty when first seen, locked for the rest of the transaction:
 * events of one conversation (handled concurrently from one batch, or by two replicas) are
 * applied one after the other, and each sees the facts the previous one committed. `inboxId`:
 * the inbox whose copy's row comes back with it (`inbox_copy`). A row `lockConversations` read
 * for this transaction is answered from memory, once; a second event of the conversation is
 * answered what the first's pending write leaves when that is known (`PendingWrite.after`), and
 * otherwise reads what the first wrote.
 */
export async function lockConversation(tx: Executor, accountId: number, id: number, inboxId: number | null = null): Promise<ConversationState> {
  const cache = prefetchedIn(tx);
  const key = `${accountId}:${id}`;
  const pending = cache?.pending.get(key);
  if (cache && pending) {
    // An event before this one left its write of the conversation pending. When what the row holds
    // after it is known (`after`), with the copy of the inbox asked for if any (as a hit below), that
    // is the answer; otherwise its account's writes are sent first, so this one reads what it wrote.
    const { after } = pending;
    pending.after = null;
    if (after && inboxId === null) return remember(cache, key, after, { ...after.state, inbox_copy: null }, pending);
    if (after && after.inboxId === inboxId && after.state.inbox_copy !== null) return remember(cache, key, after, after.state, pending);
    await flushWrites(tx, cache, accountId);
  }
  const hit = cache?.rows.get(key);
  if (cache && hit) {
    cache.rows.delete(key);
    if (inboxId === null) return remember(cache, key, hit, { ...hit.state, inbox_copy: null });
    // A copy missing when the batch began may have been read through and stored by an event before
    // this one (the inbox's owner asked once a batch, not once an event): read it again.
    if (hit.inboxId === inboxId && hit.state.inbox_copy !== null) return remember(cache, key, hit, hit.state);
  }
  const one = lockMany([accountId, [id], [inboxId]]);
  let r = await tx.query<LockRow>(one);
  if (r.rows.length === 0) {
    await tx.query('INSERT INTO conversations (account_id, id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, id]);
    r = await tx.query<LockRow>(one);
  }
  const state = stateOfRow(r.rows[0] as LockRow);
  return cache ? remember(cache, key, { inboxId, state }, state) : state;
}

/** What `lockConversation` answers, kept for the write that follows (`writeConversation`: a pending write's `after`). */
function remember(cache: Prefetched, key: string, locked: Locked, state: ConversationState, from?: PendingWrite): ConversationState {
  if (cache.batch) cache.locked.set(key, locked);
  if (from) from.handed = true;
  return state;
}

/**
 * `lockConversation` for the conversations a batch's events name, one statement per account (rows
 * locked in id order), each with its inbox's copy: the events' own calls then take their row from
 * memory instead of a round trip each, and their writes (`writeConversation`) wait to be sent
 * together. Only for a transaction in which nothing else writes those rows before each one's first
 * `lockConversation`, nor reads or writes a conversation but through `lockConversation` (a batch of
 * conversation and message events); outside a consumer's or `withTransaction`'s transaction it does
 * nothing. A conversation never seen before is left to `lockConversation`, which creates its row.
 */
export async function lockConversations(tx: Executor, wanted: ReadonlyArray<{ accountId: number; id: number; inboxId: number | null }>): Promise<void> {
  const cache = prefetchedIn(tx);
  if (!cache || wanted.length === 0) return;
  cache.batch = true;
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
      cache.rows.set(`${accountId}:${state.id}`, { inboxId: ids.get(state.id) ?? null, state });
    }
  }
}

const fromUnix = (s: number | null) => (s === null ? null : new Date(s * 1000));

/** The row a snapshot's update answers: the conversation as it counts now and as it counted before. */
type SnapshotRow = ConversationRow & { old_created_at: Date | null; old_assignee_id: string | null; old_team_id: string | null; old_inbox_id: string | null };

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

/**
 * One event's write of its locked conversation (`writeConversation`): the snapshot it brings, and
 * its fact if it is one, with the reporting events derived from the stored timeline when the fact
 * can be appended (`events`, and `timeline` as it stands after the fact, as JSON; null when it cannot).
 */
interface ConversationWrite {
  snap: ConversationSnapshot;
  occurredAt: string;
  fact: NewFact | null;
  events: DerivedEvent[];
  timeline: string | null;
  /** Where a rebuild of the conversation's events starts: its creation time as the row knew it, else the snapshot's. */
  rebuildFrom: Date;
}

/**
 * The writes of one account's conversations (one write a conversation), in one statement of
 * data-modifying CTEs, each write as the one-event statement it replaces would have done it:
 * - the snapshot kept if it is the newest;
 * - the fact recorded once (a redelivered event adds nothing);
 * - if the fact comes after every other fact of its conversation and the caller derived its
 *   events from the stored timeline (`can_append`), those events inserted and the timeline moved
 *   past the fact.
 * Each conversation's row is updated once, the snapshot's columns and the timeline's together. Every
 * part reads the rows as they were before the statement (the conversations are locked), so the
 * fact's place is read before the snapshot could move anything. The labels, an array a row, come as
 * JSON. Answers a row a write, in their order.
 */
const WRITE_CONVERSATIONS = `WITH w AS (
    SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[], $7::jsonb[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[],
                         $12::boolean[], $13::uuid[], $14::text[], $15::timestamptz[], $16::bigint[], $17::bigint[], $18::bigint[], $19::bigint[], $20::smallint[], $21::boolean[],
                         $22::text[], $23::bigint[], $24::boolean[], $25::text[], $26::text[], $27::text[], $28::jsonb[], $29::boolean[], $30::jsonb[])
      WITH ORDINALITY AS w(id, inbox_id, status, assignee_id, team_id, labels, waiting_since, first_reply_created_at, created_at, version_at,
                           has_fact, event_id, kind, at, seq, f_inbox_id, f_assignee_id, f_team_id, message_type, private,
                           sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours, can_append, timeline, n)
     WHERE ${fewRows('w.id')}),
  ins AS (INSERT INTO conversation_facts (account_id, conversation_id, event_id, kind, at, seq, inbox_id, assignee_id, team_id, message_type, private,
                                          sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours)
          SELECT $1, w.id, w.event_id, w.kind, w.at, w.seq, w.f_inbox_id, w.f_assignee_id, w.f_team_id, w.message_type, w.private,
                 w.sender_type, w.sender_id, w.automated, w.status_from, w.status_to, w.actor_type, w.business_hours
            FROM w WHERE w.has_fact ORDER BY w.n
          ON CONFLICT (event_id) DO NOTHING RETURNING conversation_id, at, seq),
  f AS (SELECT ins.conversation_id AS id, w.can_append AND c.last_fact_at IS NOT NULL AND (c.last_fact_at, c.last_fact_seq) <= (ins.at, ins.seq) AS appends
          FROM ins JOIN w ON w.id = ins.conversation_id JOIN conversations c ON c.account_id = $1 AND c.id = ins.conversation_id),
  events AS (${eventsInsertSql(1, 31)} JOIN f ON f.id = e.conversation_id AND f.appends),
  up AS (UPDATE conversations c SET
           inbox_id = CASE WHEN o.newer THEN o.w_inbox_id ELSE c.inbox_id END,
           status = CASE WHEN o.newer THEN o.w_status ELSE c.status END,
           assignee_id = CASE WHEN o.newer THEN o.w_assignee_id ELSE c.assignee_id END,
           team_id = CASE WHEN o.newer THEN o.w_team_id ELSE c.team_id END,
           labels = CASE WHEN o.newer THEN ARRAY(SELECT l.x FROM jsonb_array_elements_text(o.w_labels) WITH ORDINALITY AS l(x, i) ORDER BY l.i) ELSE c.labels END,
           waiting_since = CASE WHEN o.newer THEN o.w_waiting_since ELSE c.waiting_since END,
           first_reply_created_at = CASE WHEN o.newer THEN o.w_first_reply_created_at ELSE c.first_reply_created_at END,
           created_at = CASE WHEN o.newer THEN o.w_created_at ELSE c.created_at END,
           version_at = CASE WHEN o.newer THEN o.w_version_at ELSE c.version_at END,
           timeline = CASE WHEN o.appends THEN o.w_timeline ELSE c.timeline END,
           last_fact_at = CASE WHEN o.appends THEN o.w_at ELSE c.last_fact_at END,
           last_fact_seq = CASE WHEN o.appends THEN o.w_seq ELSE c.last_fact_seq END
         FROM (SELECT o.account_id, o.id, o.created_at, o.assignee_id, o.team_id, o.inbox_id, o.version_at <= w.version_at AS newer, coalesce(f.appends, false) AS appends,
                      w.inbox_id AS w_inbox_id, w.status AS w_status, w.assignee_id AS w_assignee_id, w.team_id AS w_team_id, w.labels AS w_labels,
                      w.waiting_since AS w_waiting_since, w.first_reply_created_at AS w_first_reply_created_at, w.created_at AS w_created_at,
                      w.version_at AS w_version_at, w.timeline AS w_timeline, w.at AS w_at, w.seq AS w_seq
                 FROM w JOIN conversations o ON o.account_id = $1 AND o.id = w.id LEFT JOIN f ON f.id = w.id) o
        WHERE c.account_id = o.account_id AND c.id = o.id AND NOT c.deleted AND (o.newer OR o.appends)
        RETURNING c.id, o.newer AS updated, c.created_at, c.assignee_id, c.team_id, c.inbox_id,
                  o.created_at AS old_created_at, o.assignee_id AS old_assignee_id, o.team_id AS old_team_id, o.inbox_id AS old_inbox_id)
  SELECT u.updated, u.created_at, u.assignee_id, u.team_id, u.inbox_id, u.old_created_at, u.old_assignee_id, u.old_team_id, u.old_inbox_id,
         f.id IS NOT NULL AS recorded, f.appends
    FROM w LEFT JOIN up u ON u.id = w.id LEFT JOIN f ON f.id = w.id ORDER BY w.n`;
const writeMany = prepared(WRITE_CONVERSATIONS);

type WriteRow = Partial<SnapshotRow> & { updated: boolean | null; recorded: boolean; appends: boolean | null };

/** The statement's thirty-eight arrays of `writes` (all of one account, one a conversation). */
function writeArrays(writes: readonly ConversationWrite[]): unknown[] {
  const col = <T>(f: (w: ConversationWrite) => T): T[] => writes.map(f);
  const fact = <T>(f: (x: NewFact) => T): Array<T | null> => writes.map((w) => (w.fact ? f(w.fact) : null));
  const events = writes.flatMap((w) => w.events.map((e) => Object.assign({ conversation_id: w.snap.id }, e)));
  return [
    col((w) => w.snap.id),
    col((w) => w.snap.inbox_id),
    col((w) => w.snap.status),
    col((w) => w.snap.assignee_id),
    col((w) => w.snap.team_id),
    col((w) => JSON.stringify(w.snap.labels)),
    col((w) => fromUnix(w.snap.waiting_since)),
    col((w) => fromUnix(w.snap.first_reply_created_at)),
    col((w) => fromUnix(w.snap.created_at)),
    col((w) => w.occurredAt),
    col((w) => w.fact !== null),
    fact((f) => f.event_id),
    fact((f) => f.kind),
    fact((f) => f.at),
    fact((f) => f.seq),
    fact((f) => f.inbox_id),
    fact((f) => f.assignee_id),
    fact((f) => f.team_id),
    fact((f) => f.message_type),
    fact((f) => f.private),
    fact((f) => f.sender_type),
    fact((f) => f.sender_id),
    fact((f) => f.automated),
    fact((f) => f.status_from),
    fact((f) => f.status_to),
    fact((f) => f.actor_type),
    fact((f) => (f.business_hours === null ? null : JSON.stringify(f.business_hours))),
    col((w) => w.timeline !== null),
    col((w) => w.timeline),
    ...eventArrays(events),
  ];
}

/**
 * Sends writes of one account's conversations (`WRITE_CONVERSATIONS`), then what each one's
 * outcome asks for: the conversation moved in the `conversations` rollups if the snapshot moved
 * it; a recorded fact's rollup items (and its events') added, or, when it did not come after the
 * others, its conversation's events rebuilt from all its facts.
 */
async function sendWrites(tx: Executor, accountId: number, writes: readonly ConversationWrite[]): Promise<void> {
  const { rows } = await tx.query<WriteRow>(writeMany([accountId, ...writeArrays(writes)]));
  for (const [k, w] of writes.entries()) {
    const row = rows[k];
    await countMove(tx, accountId, row?.updated ? (row as SnapshotRow) : undefined);
    if (!w.fact || !row?.recorded) continue;
    const appended = row.appends === true;
    const items = [...factItems(w.fact, 1), ...(appended ? w.events.map((e) => eventItem(e, 1)) : [])];
    if (appended) await bumpRollups(tx, accountId, items);
    else await rebuildConversation(tx, accountId, w.snap.id, w.rebuildFrom, items);
  }
}

/** The pending writes of a batch (of one account, or all), sent: one statement an account, accounts in order. */
async function flushWrites(tx: Executor, cache: Prefetched, only?: number): Promise<void> {
  if (cache.pending.size === 0) return;
  const byAccount = new Map<number, ConversationWrite[]>();
  for (const [key, { write: w }] of cache.pending) {
    const accountId = w.snap.account_id;
    if (only !== undefined && accountId !== only) continue;
    cache.pending.delete(key);
    const list = byAccount.get(accountId);
    if (list) list.push(w);
    else byAccount.set(accountId, [w]);
  }
  for (const [accountId, writes] of [...byAccount].sort((a, b) => a[0] - b[0])) await sendWrites(tx, accountId, writes);
}

/**
 * Applies an event to its locked conversation (`state`, from `lockConversation`): its snapshot
 * kept if newest and its fact (`f`, or null) recorded; when the stored timeline can take the fact
 * (it is there and begins at the known creation time), the fact's events are derived from it here
 * and written if the fact indeed comes after every other. The snapshot is kept only if no later one
 * was (by the owner's event time); a change of the conversation's creation time, assignee, team or
 * inbox moves it in the `conversations` rollups. In a batch whose conversations were locked together
 * (`lockConversations`) the write waits for the batch's others, all sent in one statement (before
 * a later event of one of their conversations reads its row, at the latest at the commit), and a
 * write of the same conversation pending before it (no fact: `PendingWrite.after`) is taken into it;
 * anywhere else, or asked to (`now`: the caller reads what it wrote), it is sent at once.
 */
export async function writeConversation(
  tx: Executor,
  state: ConversationState,
  snap: ConversationSnapshot,
  occurredAt: string,
  f: NewFact | null,
  createdAt: Date,
  opts: { now?: boolean } = {},
): Promise<void> {
  const { timeline } = state;
  const canAppend = f !== null && timeline !== null && state.created_at !== null && timeline.createdAt === state.created_at.getTime();
  const events = canAppend ? stepTimeline(timeline, f) : [];
  const write: ConversationWrite = { snap, occurredAt, fact: f, events, timeline: canAppend ? JSON.stringify(timeline) : null, rebuildFrom: state.created_at ?? createdAt };
  const cache = prefetchedIn(tx);
  if (!cache?.batch || opts.now) return sendWrites(tx, snap.account_id, [write]);
  const key = `${snap.account_id}:${snap.id}`;
  const before = cache.pending.get(key);
  // Pending here when this event's state was taken from its `after` (`lockConversation`): this write
  // takes its place, with the later snapshot of the two. Any other is sent first.
  const merged = before?.handed && !before.write.fact ? later(before.write, write) : null;
  if (merged) Object.assign(write, merged);
  else if (before) await flushWrites(tx, cache, snap.account_id);
  const live = !state.deleted && state.created_at !== null;
  const locked = cache.locked.get(key);
  const keepsCreation = live && f === null && (state.created_at as Date).getTime() === snap.created_at * 1000;
  cache.pending.set(key, { write, live, after: keepsCreation && locked && !before ? locked : null, handed: false });
}

/**
 * The snapshot of two writes of one conversation that the row keeps when both are sent, one after
 * the other (each kept if no later one was, by the owner's event time; the second on a tie).
 */
type Snapshot = Pick<ConversationWrite, 'snap' | 'occurredAt'>;
function later(first: Snapshot, second: Snapshot): Snapshot | null {
  const [a, b] = [micros(first.occurredAt), micros(second.occurredAt)];
  if (Number.isNaN(a) || Number.isNaN(b)) return null;
  const w = a <= b ? second : first;
  return { snap: w.snap, occurredAt: w.occurredAt };
}

/** An event time in µs, Postgres's precision (NaN past it: Postgres would round, so the order is left to it). */
function micros(iso: string): number {
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? '';
  if (fraction.length > 6) return NaN;
  return Date.parse(iso) * 1000 + Number(fraction.slice(3).padEnd(3, '0'));
}

/**
 * An event that brings only a snapshot (no fact) of a conversation whose write is pending in this
 * batch, the row there and live (`PendingWrite.live`): the snapshot goes into that write (the later
 * of the two, as sending both would keep) and no lock nor write of its own is needed. False when
 * the event must go the usual way.
 */
export function keepSnapshot(tx: Executor, snap: ConversationSnapshot, occurredAt: string): boolean {
  const pending = prefetchedIn(tx)?.pending.get(`${snap.account_id}:${snap.id}`);
  const merged = pending?.live ? later(pending.write, { snap, occurredAt }) : null;
  if (!pending || !merged) return false;
  Object.assign(pending.write, merged);
  // A snapshot that could move the creation time leaves the row's state after the write unknown.
  if (pending.after && pending.after.state.created_at?.getTime() !== pending.write.snap.created_at * 1000) pending.after = null;
  return true;
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
