import { copiesColumnSql, fewRows, prepared, wantedPairs, type Executor } from '@parley/shared';

type Json = Record<string, unknown>;

/**
 * The channel's own per-conversation state (migrations 002, 003): one query per function, in the
 * consumer's transaction, always by account.
 */

/** What a conversation's push data needs beside the copies: its last chat message, latest incoming messages and contact inbox's source id. */
export interface ConversationState {
  lastMessage: Json | null;
  /** `[message id, created at, unix ms]` of the latest incoming messages (at most 10), newest first. */
  incoming: Array<[number, number]>;
  sourceId: string | null;
}

/** Chatwoot's `unread_incoming_messages.count`: incoming messages created after `agent_last_seen_at` (all of them when never seen), at most 10. */
export function unreadCount(state: ConversationState, agentLastSeenAt: string | null | undefined): number {
  const seen = typeof agentLastSeenAt === 'string' ? Date.parse(agentLastSeenAt) : -Infinity;
  return state.incoming.filter(([, at]) => at > seen).length;
}

/** When a new message was created, to the millisecond: its first version (`updated_at`), else its unix second. */
export function createdMs(message: RecordedMessage): number {
  return message.updated_at ? Date.parse(message.updated_at) : message.created_at * 1000;
}

type StateRow = { last_message: Json | null; incoming: Array<[number, number]> | null; source_id: string | null };
const stateOf = (r: StateRow | undefined): ConversationState => ({ lastMessage: r?.last_message ?? null, incoming: r?.incoming ?? [], sourceId: r?.source_id ?? null });

/** One conversation's state: prepared, planned once per connection (it was planned at every read). */
const stateOne = prepared(
  `SELECT s.last_message, s.incoming, (SELECT source_id FROM contact_inbox_sources WHERE account_id = $1 AND contact_inbox_id = $3) AS source_id
     FROM (SELECT 1) one LEFT JOIN conversation_state s ON s.account_id = $1 AND s.conversation_id = $2`,
);

export async function readState(db: Executor, accountId: number, conversationId: number, contactInboxId: number | null): Promise<ConversationState> {
  const { rows } = await db.query<StateRow>(stateOne([accountId, conversationId, contactInboxId]));
  return stateOf(rows[0]);
}

/** A message that may be the conversation's last: its push JSON, id and version. */
export interface LastMessage {
  json: Json;
  id: number;
  version: string | null;
}

export interface RecordedMessage {
  id: number;
  created_at: number;
  /** The message's version (ISO, ms); absent from older events. */
  updated_at?: string | undefined;
}

/**
 * A message's `message.created` or `message.updated`, in one statement answering the state after it:
 * - `last`: a chat message (not private, not activity) becomes the last message unless a newer
 *   message is there, or this one is there at a later version (an update that arrives after a
 *   newer one changes nothing);
 * - `incoming`: a new incoming message joins the latest incoming ones.
 */
export async function recordMessage(
  db: Executor,
  accountId: number,
  conversationId: number,
  contactInboxId: number | null,
  message: RecordedMessage,
  o: { last: Json | null; incoming: boolean },
): Promise<ConversationState> {
  return (await record(db, accountId, conversationId, contactInboxId, ...partsOf(message, o), null)).state;
}

/** What one message brings to the state: the last message it may be, the incoming one it adds. */
function partsOf(message: RecordedMessage, o: { last: Json | null; incoming: boolean }): [LastMessage | null, Array<[number, number]>] {
  return [o.last === null ? null : { json: o.last, id: message.id, version: message.updated_at ?? null }, o.incoming ? [[message.id, createdMs(message)]] : []];
}

/** Copies of the account asked for by kind (`{agent: [1, 2], inbox: [3]}`), and the table's rows of them (tombstones included, data null). */
export interface CopyRows {
  asked: Record<string, Array<number | null | undefined>>;
  rows: Array<{ kind: string; id: number; data: unknown }>;
}

/**
 * `recordMessage` that also reads, in the same statement, the rows of the copies `asked` (the
 * ones the message's push data names): a round trip fewer than reading them after.
 */
export async function recordMessageWithCopies(
  db: Executor,
  accountId: number,
  conversationId: number,
  contactInboxId: number | null,
  message: RecordedMessage,
  o: { last: Json | null; incoming: boolean },
  asked: CopyRows['asked'],
): Promise<{ state: ConversationState; copies: CopyRows }> {
  const { state, copies } = await record(db, accountId, conversationId, contactInboxId, ...partsOf(message, o), wantedPairs(asked));
  return { state, copies: { asked, rows: copies } };
}

/**
 * How a message's row merges into the stored state (`s`, the row proposed `EXCLUDED`):
 * - the last message is replaced only by a newer message, or by the same one at a later version;
 * - incoming messages are a set: the newest 10, each once.
 * The same whatever the order two writers arrive in, so a replica writing meanwhile loses nothing.
 */
const MERGE = `ON CONFLICT (account_id, conversation_id) DO UPDATE SET
         (last_message, last_message_id, last_message_version) = (
           SELECT CASE WHEN newer THEN EXCLUDED.last_message ELSE s.last_message END,
                  CASE WHEN newer THEN EXCLUDED.last_message_id ELSE s.last_message_id END,
                  CASE WHEN newer THEN EXCLUDED.last_message_version ELSE s.last_message_version END
             FROM (SELECT EXCLUDED.last_message_id IS NOT NULL AND (
                     s.last_message_id IS NULL OR s.last_message_id < EXCLUDED.last_message_id
                     OR (s.last_message_id = EXCLUDED.last_message_id
                         AND (s.last_message_version IS NULL OR EXCLUDED.last_message_version IS NULL OR s.last_message_version <= EXCLUDED.last_message_version))
                   ) AS newer) n),
         incoming = CASE WHEN EXCLUDED.incoming = '[]'::jsonb THEN s.incoming ELSE (
           SELECT coalesce(jsonb_agg(e ORDER BY (e->>0)::bigint DESC), '[]'::jsonb) FROM (
             SELECT DISTINCT ON ((e->>0)::bigint) e FROM jsonb_array_elements(s.incoming || EXCLUDED.incoming) e ORDER BY (e->>0)::bigint DESC LIMIT 10) t) END`;

/** Newest first, at most 10, each once: what the merge keeps (an insert keeps it as given). */
const incomingJson = (incoming: Array<[number, number]>) => JSON.stringify([...new Map(incoming.map((e) => [e[0], e] as const)).values()].sort((a, b) => b[0] - a[0]).slice(0, 10));

async function record(
  db: Executor,
  accountId: number,
  conversationId: number,
  contactInboxId: number | null,
  last: LastMessage | null,
  incoming: Array<[number, number]>,
  copies: { kinds: string[]; ids: number[] } | null,
): Promise<{ state: ConversationState; copies: CopyRows['rows'] }> {
  const { rows } = await db.query<StateRow & { copies?: CopyRows['rows'] }>(
    (copies ? recordWithCopies : recordOnly)([
      accountId,
      conversationId,
      last === null ? null : JSON.stringify(last.json),
      last === null ? null : last.id,
      last === null ? null : last.version,
      incomingJson(incoming),
      contactInboxId,
      ...(copies ? [copies.kinds, copies.ids] : []),
    ]),
  );
  return { state: stateOf(rows[0]), copies: rows[0]?.copies ?? [] };
}

/**
 * `record`'s statement, with the copies' rows (the projection kit's readThroughKinds query) as one
 * JSON array in the row or without them: prepared, so Postgres plans each once per connection (it
 * was planned at every message, 0.5 ms of planning on the large benchmark account, 2026-11-30).
 */
const recordSql = (withCopies: boolean) =>
  `WITH up AS (
     INSERT INTO conversation_state AS s (account_id, conversation_id, last_message, last_message_id, last_message_version, incoming)
     VALUES ($1, $2, $3::jsonb, $4::bigint, $5::timestamptz, $6::jsonb)
     ${MERGE}
     RETURNING s.last_message, s.incoming)
   SELECT up.last_message, up.incoming, (SELECT source_id FROM contact_inbox_sources WHERE account_id = $1 AND contact_inbox_id = $7) AS source_id${withCopies ? `, ${copiesColumnSql(1, 8)} AS copies` : ''} FROM up`;
const recordOnly = prepared(recordSql(false));
const recordWithCopies = prepared(recordSql(true));

// Each batch runs these two: prepared, parsed and planned once per connection (`statesOf` with `fewRows`).
const writeStates = prepared(
  `INSERT INTO conversation_state AS s (account_id, conversation_id, last_message, last_message_id, last_message_version, incoming)
   SELECT * FROM unnest($1::int[], $2::int[], $3::jsonb[], $4::bigint[], $5::timestamptz[], $6::jsonb[])
   ${MERGE}`,
);
const statesOf = prepared(
  `SELECT w.a AS account_id, w.c AS conversation_id, s.last_message, s.incoming,
          (SELECT source_id FROM contact_inbox_sources WHERE account_id = w.a AND contact_inbox_id = w.ci) AS source_id
     FROM unnest($1::int[], $2::int[], $3::int[]) AS w (a, c, ci)
     LEFT JOIN conversation_state s ON s.account_id = w.a AND s.conversation_id = w.c
    WHERE ${fewRows('w.c')}`,
);

/** What a batch writes to one conversation's state: the newest message of it that may be the last, its new incoming messages. */
export interface StateWrite {
  accountId: number;
  conversationId: number;
  last: LastMessage | null;
  incoming: Array<[number, number]>;
}

/**
 * `recordMessage` for the messages of a batch, one statement for all their conversations (one row each,
 * in key order: two writers take the rows in the same order), with the same merge. Answers nothing:
 * the batch kept the states it needs.
 */
export async function recordStates(db: Executor, writes: readonly StateWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const sorted = [...writes].sort((a, b) => a.accountId - b.accountId || a.conversationId - b.conversationId);
  await db.query(
    writeStates([
      sorted.map((w) => w.accountId),
      sorted.map((w) => w.conversationId),
      sorted.map((w) => (w.last === null ? null : JSON.stringify(w.last.json))),
      sorted.map((w) => (w.last === null ? null : w.last.id)),
      sorted.map((w) => (w.last === null ? null : w.last.version)),
      sorted.map((w) => incomingJson(w.incoming)),
    ]),
  );
}

/** The states of several conversations (a batch's), by `account:conversation`, in one query. */
export async function readStates(db: Executor, convs: Array<{ account_id: number; id: number; contact_inbox_id: number | null }>): Promise<Map<string, ConversationState>> {
  const out = new Map<string, ConversationState>();
  if (convs.length === 0) return out;
  const { rows } = await db.query<StateRow & { account_id: number; conversation_id: number }>(
    statesOf([convs.map((c) => c.account_id), convs.map((c) => c.id), convs.map((c) => c.contact_inbox_id)]),
  );
  for (const r of rows) out.set(`${r.account_id}:${r.conversation_id}`, stateOf(r));
  return out;
}

/** True the first time it is asked for a conversation (`first.reply.created` goes out once). */
export async function claimFirstReply(db: Executor, accountId: number, conversationId: number): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO conversation_state (account_id, conversation_id, first_reply_sent) VALUES ($1, $2, true)
     ON CONFLICT (account_id, conversation_id) DO UPDATE SET first_reply_sent = true WHERE NOT conversation_state.first_reply_sent
     RETURNING 1`,
    [accountId, conversationId],
  );
  return rows.length > 0;
}

export async function keepSourceId(db: Executor, accountId: number, contactInboxId: number, sourceId: string): Promise<void> {
  await db.query(
    `INSERT INTO contact_inbox_sources (account_id, contact_inbox_id, source_id) VALUES ($1, $2, $3)
     ON CONFLICT (account_id, contact_inbox_id) DO UPDATE SET source_id = EXCLUDED.source_id`,
    [accountId, contactInboxId, sourceId],
  );
}

export type CacheKey = 'label' | 'inbox' | 'team';

/**
 * A label, inbox or team of the account changed at `at`: its cache key becomes that second, or a
 * second past the key before it (so every change gives clients a new key, even two in a second).
 * Answers all three keys as Chatwoot's `Account#cache_keys` shows them: unix seconds as strings,
 * `'0000000000'` for a list never changed.
 */
export async function touchCacheKey(db: Executor, accountId: number, key: CacheKey, at: string): Promise<Record<CacheKey, string>> {
  const seconds = Math.floor(Date.parse(at) / 1000);
  const { rows } = await db.query<Record<CacheKey, string>>(
    `INSERT INTO account_cache_keys AS k (account_id, ${key}) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET ${key} = GREATEST(EXCLUDED.${key}, k.${key} + 1)
     RETURNING k.label, k.inbox, k.team`,
    [accountId, seconds],
  );
  const r = rows[0] as Record<CacheKey, string>;
  const shown = (v: string) => (Number(v) > 0 ? String(v) : '0000000000');
  return { label: shown(r.label), inbox: shown(r.inbox), team: shown(r.team) };
}
