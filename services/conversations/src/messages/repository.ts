import { copiesColumnSql, prepared, wantedPairs, type Executor } from '@parley/shared';
import { MESSAGE_COLUMNS, type AttachmentMeta, type MessageRow } from '../common/rows';

/** The columns a new message is inserted with; the optional ones have defaults. */
export type NewMessage = Pick<
  MessageRow,
  'account_id' | 'inbox_id' | 'conversation_id' | 'message_type' | 'content' | 'content_type' | 'content_attributes' | 'private' | 'source_id' | 'sender_type' | 'sender_id'
> &
  Partial<Pick<MessageRow, 'additional_attributes' | 'external_source_ids' | 'attachments' | 'status'>>;

/**
 * Inserts a message; `participants` (user ids) become the conversation's participants in the
 * same statement (a reply is one round trip fewer).
 */
export async function insertMessage(tx: Executor, m: NewMessage, participants: number[] = []): Promise<MessageRow> {
  return (await insertMessageWithCopies(tx, m, participants, null)).message;
}

/** Projection rows of the copies a statement read with it (`copiesColumnSql`). */
export type CopyRows = Array<{ kind: string; id: number; data: unknown }>;

const INSERT_MESSAGE = `INSERT INTO messages (account_id, inbox_id, conversation_id, message_type, content, content_type, content_attributes,
       additional_attributes, external_source_ids, attachments, private, status, source_id, sender_type, sender_id)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) RETURNING ${MESSAGE_COLUMNS}`;
const WITH_PARTICIPANTS = `WITH m AS (${INSERT_MESSAGE}),
         p AS (INSERT INTO conversation_participants (account_id, conversation_id, user_id) SELECT $1, $3, u FROM unnest($16::int[]) AS u ON CONFLICT DO NOTHING)`;
// Every message runs one of these: prepared, they are parsed and planned once per connection.
const insertAlone = prepared(INSERT_MESSAGE);
const insertWithParticipants = prepared(`${WITH_PARTICIPANTS} SELECT * FROM m`);
const insertWithCopies = prepared(`${WITH_PARTICIPANTS} SELECT *, ${copiesColumnSql(1, 17)} AS copies__ FROM m`);

/**
 * `insertMessage` that also answers, from the same statement, the projection rows of the copies
 * `wanted` names (the message's sender, for its answer): a round trip fewer than reading them after.
 */
export async function insertMessageWithCopies(tx: Executor, m: NewMessage, participants: number[], wanted: Record<string, Array<number | null | undefined>> | null): Promise<{ message: MessageRow; copies: CopyRows }> {
  const pairs = wanted ? wantedPairs(wanted) : null;
  const values = [
    m.account_id, m.inbox_id, m.conversation_id, m.message_type, m.content, m.content_type, JSON.stringify(m.content_attributes),
    JSON.stringify(m.additional_attributes ?? {}), JSON.stringify(m.external_source_ids ?? {}), JSON.stringify(m.attachments ?? []),
    m.private, m.status ?? 'sent', m.source_id, m.sender_type, m.sender_id,
  ];
  const { rows } = await tx.query<MessageRow & { copies__?: CopyRows }>(
    pairs ? insertWithCopies([...values, participants, pairs.kinds, pairs.ids]) : participants.length > 0 ? insertWithParticipants([...values, participants]) : insertAlone(values),
  );
  const { copies__: found, ...message } = rows[0] as MessageRow & { copies__?: CopyRows };
  return { message: message as MessageRow, copies: found ?? [] };
}

export async function findMessage(db: Executor, accountId: number, conversationId: string, id: number, opts: { forUpdate?: boolean } = {}): Promise<MessageRow | null> {
  const { rows } = await db.query<MessageRow>(
    `SELECT * FROM messages WHERE account_id = $1 AND conversation_id = $2 AND id = $3${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, conversationId, id],
  );
  return rows[0] ?? null;
}

/**
 * A changed message's `updated_at`: the clock at the change (taken after the row lock, unlike
 * `now()`, the transaction's start), and at least a millisecond after the version it replaces, so
 * each change's snapshot is later than the one before it in commit order.
 */
const NEXT_VERSION = "GREATEST(clock_timestamp(), updated_at + interval '1 millisecond')";
// (markSentMessagesRead spells it out for its alias.)

export async function updateMessageRow(
  tx: Executor,
  accountId: number,
  id: string,
  patch: Partial<{ content: string | null; content_type: string; content_attributes: Record<string, unknown>; status: string; deleted: boolean; attachments: AttachmentMeta[] }>,
): Promise<MessageRow> {
  // Later than the version before it, to the millisecond (the snapshot's `updated_at` orders copies of the message).
  const sets: string[] = [`updated_at = ${NEXT_VERSION}`];
  const values: unknown[] = [accountId, id];
  for (const key of ['content', 'content_type', 'content_attributes', 'status', 'deleted', 'attachments'] as const) {
    if (!(key in patch)) continue;
    const v = patch[key];
    values.push(key === 'content_attributes' || key === 'attachments' ? JSON.stringify(v) : v);
    sets.push(`${key} = $${values.length}`);
  }
  const { rows } = await tx.query<MessageRow>(`UPDATE messages SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2 RETURNING *`, values);
  return rows[0] as MessageRow;
}

export interface MessagePage {
  before?: number;
  after?: number;
  /** Hide private notes and activity (public API). */
  publicOnly?: boolean;
}

/**
 * Chatwoot's MessageFinder: no cursor gives the latest 20; `before` the 20 older than it;
 * `after` up to 100 newer; both, up to 1,000 between. Always answered oldest first.
 */
export async function listMessages(db: Executor, accountId: number, conversationId: string, page: MessagePage): Promise<MessageRow[]> {
  const where = ['account_id = $1', 'conversation_id = $2'];
  const values: unknown[] = [accountId, conversationId];
  if (page.publicOnly) where.push('private = false', 'message_type <> 2');
  if (page.before !== undefined) {
    values.push(page.before);
    where.push(`id < $${values.length}`);
  }
  if (page.after !== undefined) {
    values.push(page.after);
    where.push(`id > $${values.length}`);
  }
  let order = 'DESC';
  let limit = 20;
  if (page.after !== undefined && page.before !== undefined) limit = 1000;
  else if (page.after !== undefined) {
    order = 'ASC';
    limit = 100;
  }
  const { rows } = await db.query<MessageRow>(`SELECT * FROM messages WHERE ${where.join(' AND ')} ORDER BY id ${order} LIMIT ${limit}`, values);
  return order === 'DESC' ? rows.reverse() : rows;
}

/** All chat messages (no notes, no activity), oldest first: the public conversation's `messages`. */
export async function listChatMessages(db: Executor, accountId: number, conversationId: string): Promise<MessageRow[]> {
  const { rows } = await db.query<MessageRow>(
    'SELECT * FROM messages WHERE account_id = $1 AND conversation_id = $2 AND private = false AND message_type <> 2 ORDER BY id ASC',
    [accountId, conversationId],
  );
  return rows;
}

export interface ConversationExtras {
  last_message: MessageRow | null;
  last_non_activity_message: MessageRow | null;
  unread_count: number;
}

export interface JsonMessage extends Omit<MessageRow, 'id' | 'conversation_id' | 'created_at' | 'updated_at'> {
  id: number | string;
  conversation_id: number | string;
  created_at: string;
  updated_at: string;
}

/** The message a row's JSON column holds, as a `MessageRow` (the parsed object is the caller's own, so it is converted in place, not copied). */
function fromJson(m: JsonMessage | null): MessageRow | null {
  if (!m) return null;
  const row = m as unknown as MessageRow;
  row.id = String(m.id);
  row.conversation_id = String(m.conversation_id);
  row.created_at = new Date(m.created_at);
  row.updated_at = new Date(m.updated_at);
  return row;
}

/**
 * Chatwoot's `unread_count` of the conversation `c`: its incoming messages created after the agent
 * last saw it, at most 10. Any 10 of them count the same, so no order: Postgres reads at most 10
 * entries of the partial index on incoming messages (migration 012).
 */
export const UNREAD_COUNT = `(SELECT count(*)::int FROM (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.message_type = 0
          AND m.created_at > coalesce(c.agent_last_seen_at, '-infinity'::timestamptz) LIMIT 10) u)`;

/**
 * The select-list columns giving a conversation's (alias `c`) extras: `x_last_message`,
 * `x_last_non_activity`, `x_unread`. The list's page query selects them beside its rows, so a
 * page needs no second query for them. The last non-activity message is sent only when the last
 * message is an activity: otherwise it is the last message itself (`extrasOf`), which a page would
 * read, send and parse twice (half the JSON of a page; issue 12).
 */
export const EXTRAS_COLUMNS = `(SELECT row_to_json(m) FROM (SELECT * FROM messages WHERE conversation_id = c.id ORDER BY id DESC LIMIT 1) m) AS x_last_message,
       (SELECT row_to_json(m) FROM (SELECT * FROM messages WHERE conversation_id = c.id AND message_type <> 2 ORDER BY id DESC LIMIT 1) m
         WHERE (SELECT l.message_type FROM messages l WHERE l.conversation_id = c.id ORDER BY l.id DESC LIMIT 1) = 2) AS x_last_non_activity,
       ${UNREAD_COUNT} AS x_unread`;

export interface ExtrasColumns {
  x_last_message: JsonMessage | null;
  /** Null unless the last message is an activity (EXTRAS_COLUMNS). */
  x_last_non_activity: JsonMessage | null;
  x_unread: number;
}

export function extrasOf(r: ExtrasColumns): ConversationExtras {
  const last = fromJson(r.x_last_message);
  const lastNonActivity = last !== null && last.message_type !== 2 ? last : fromJson(r.x_last_non_activity);
  return { last_message: last, last_non_activity_message: lastNonActivity, unread_count: r.x_unread };
}

/** The last message, last non-activity message and unread count (capped at 10) of each conversation. */
export async function conversationExtras(db: Executor, conversationIds: string[]): Promise<Map<string, ConversationExtras>> {
  const out = new Map<string, ConversationExtras>();
  if (conversationIds.length === 0) return out;
  const { rows } = await db.query<{ id: string } & ExtrasColumns>(`SELECT c.id::text AS id, ${EXTRAS_COLUMNS} FROM conversations c WHERE c.id = ANY($1::bigint[])`, [conversationIds]);
  for (const r of rows) out.set(r.id, extrasOf(r));
  return out;
}

export async function insertAttachmentBlob(tx: Executor, accountId: number, messageId: string, contentType: string, fileName: string | null, data: Buffer): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    'INSERT INTO attachment_blobs (account_id, message_id, content_type, file_name, data) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [accountId, messageId, contentType, fileName, data],
  );
  return Number((rows[0] as { id: string }).id);
}

export async function findAttachmentBlob(db: Executor, accountId: number, messageId: string, id: number): Promise<{ content_type: string; file_name: string | null; data: Buffer } | null> {
  const { rows } = await db.query<{ content_type: string; file_name: string | null; data: Buffer }>(
    'SELECT content_type, file_name, data FROM attachment_blobs WHERE account_id = $1 AND message_id = $2 AND id = $3',
    [accountId, messageId, id],
  );
  return rows[0] ?? null;
}

export async function lastIncomingAt(db: Executor, conversationId: string): Promise<Date | null> {
  const { rows } = await db.query<{ created_at: Date }>('SELECT created_at FROM messages WHERE conversation_id = $1 AND message_type = 0 ORDER BY id DESC LIMIT 1', [conversationId]);
  return rows[0]?.created_at ?? null;
}

/**
 * Marks what the contact has now seen read: the outgoing and template messages (not notes) still
 * `sent` or `delivered`. Answers each changed message with the status it had.
 */
export async function markSentMessagesRead(tx: Executor, accountId: number, conversationId: string): Promise<Array<MessageRow & { previous_status: string }>> {
  const { rows } = await tx.query<MessageRow & { previous_status: string }>(
    `WITH before AS (
       SELECT id, status FROM messages
        WHERE account_id = $1 AND conversation_id = $2 AND message_type IN (1, 3) AND private = false AND status IN ('sent', 'delivered')
        ORDER BY id FOR UPDATE)
     UPDATE messages m SET status = 'read', updated_at = GREATEST(clock_timestamp(), m.updated_at + interval '1 millisecond') FROM before WHERE m.id = before.id
     RETURNING m.*, before.status AS previous_status`,
    [accountId, conversationId],
  );
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}
