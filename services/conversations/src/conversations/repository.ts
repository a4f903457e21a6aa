import type { QueryConfig } from 'pg';
import { atCommit, prepared, sqlPrepared, type Executor, type SqlPrepared } from '@parley/shared';
import { CONVERSATION_COLUMNS, MESSAGE_COLUMNS, type ConversationRow, type MessageRow } from '../common/rows';

/** The columns a new conversation is inserted with (the rest take their defaults). */
export type NewConversation = Pick<
  ConversationRow,
  | 'account_id' | 'inbox_id' | 'contact_id' | 'contact_inbox_id' | 'contact_inbox_source_id' | 'hmac_verified' | 'status' | 'priority' | 'assignee_id'
  | 'team_id' | 'snoozed_until' | 'additional_attributes' | 'custom_attributes'
>;

/** Next display id of the account; the row lock lasts until the caller's transaction ends. */
export async function nextDisplayId(tx: Executor, accountId: number): Promise<number> {
  const { rows } = await tx.query<{ last_display_id: number }>(
    `INSERT INTO account_counters (account_id, last_display_id) VALUES ($1, 1)
     ON CONFLICT (account_id) DO UPDATE SET last_display_id = account_counters.last_display_id + 1
     RETURNING last_display_id`,
    [accountId],
  );
  return (rows[0] as { last_display_id: number }).last_display_id;
}

export async function insertConversation(tx: Executor, c: NewConversation, displayId: number): Promise<ConversationRow> {
  const { rows } = await tx.query<ConversationRow>(
    `INSERT INTO conversations (account_id, display_id, inbox_id, contact_id, contact_inbox_id, contact_inbox_source_id, hmac_verified,
       status, priority, assignee_id, team_id, snoozed_until, additional_attributes, custom_attributes, waiting_since)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14, now())
     RETURNING *`,
    [
      c.account_id, displayId, c.inbox_id, c.contact_id, c.contact_inbox_id, c.contact_inbox_source_id, c.hmac_verified,
      c.status, c.priority, c.assignee_id, c.team_id, c.snoozed_until, JSON.stringify(c.additional_attributes), JSON.stringify(c.custom_attributes),
    ],
  );
  return rows[0] as ConversationRow;
}

export async function findConversation(db: Executor, accountId: number, displayId: number, opts: { forUpdate?: boolean } = {}): Promise<ConversationRow | null> {
  const { rows } = await db.query<ConversationRow>(
    `SELECT * FROM conversations WHERE account_id = $1 AND display_id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, displayId],
  );
  return rows[0] ?? null;
}

const lockConversation = sqlPrepared(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE account_id = $1 AND display_id = $2 FOR UPDATE`);

/** `findConversation`'s locking read, prepared, to go with a BEGIN; null for ids that are not safe integers. */
export function lockConversationSql(accountId: number, displayId: number): SqlPrepared | null {
  if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(displayId)) return null;
  return lockConversation([accountId, displayId]);
}

export async function findConversationById(db: Executor, accountId: number, id: string, opts: { forUpdate?: boolean } = {}): Promise<ConversationRow | null> {
  const { rows } = await db.query<ConversationRow>(`SELECT * FROM conversations WHERE account_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

/** Columns a use case may change, and how each is sent to pg. */
const UPDATABLE = {
  status: 'text',
  priority: 'int',
  assignee_id: 'int',
  team_id: 'int',
  snoozed_until: 'ts',
  additional_attributes: 'json',
  custom_attributes: 'json',
  labels: 'text[]',
  muted: 'bool',
  last_activity_at: 'ts',
  waiting_since: 'ts',
  first_reply_created_at: 'ts',
  agent_last_seen_at: 'ts',
  assignee_last_seen_at: 'ts',
  contact_last_seen_at: 'ts',
  hmac_verified: 'bool',
  updated_at: 'ts',
} as const;

export type ConversationPatch = Partial<Pick<ConversationRow, keyof typeof UPDATABLE>>;

/** The SET list and values of a patch (`$1` the account, `$2` the row's id); `activityNow`: also last_activity_at = now(). */
function patchSets(accountId: number, id: string, patch: ConversationPatch, activityNow: boolean): { sets: string[]; values: unknown[] } {
  const sets: string[] = [];
  const values: unknown[] = [accountId, id];
  for (const [key, kind] of Object.entries(UPDATABLE)) {
    if (!(key in patch)) continue;
    const v = (patch as Record<string, unknown>)[key];
    values.push(kind === 'json' ? JSON.stringify(v) : v);
    sets.push(`${key} = $${values.length}${kind === 'text[]' ? '::text[]' : ''}`);
  }
  if (activityNow && !('last_activity_at' in patch)) sets.push('last_activity_at = now()');
  return { sets, values };
}

/** The statement of `text`, prepared once (up to ROW_UPDATES_MAX of them; past that, unprepared). */
function rowUpdate(text: string, values: unknown[]): QueryConfig {
  let update = rowUpdates.get(text);
  if (!update && rowUpdates.size < ROW_UPDATES_MAX) rowUpdates.set(text, (update = prepared(text)));
  return update ? update(values) : { text, values };
}

/** `activityNow`: also sets last_activity_at to the transaction's now() (the created_at of activity messages it writes next). */
export async function updateConversationRow(tx: Executor, accountId: number, id: string, patch: ConversationPatch, opts: { activityNow?: boolean } = {}): Promise<ConversationRow> {
  const { sets, values } = patchSets(accountId, id, patch, opts.activityNow === true);
  if (sets.length === 0) {
    const row = await findConversationById(tx, accountId, id);
    return row as ConversationRow;
  }
  const { rows } = await tx.query<ConversationRow>(rowUpdate(`UPDATE conversations SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2 RETURNING ${CONVERSATION_COLUMNS}`, values));
  return rows[0] as ConversationRow;
}

/** The conversation's columns under names no message column has (`c__id`...), for a statement answering both. */
const CONVERSATION_AS = CONVERSATION_COLUMNS.split(', ').map((c) => `${c} AS c__${c}`).join(', ');
const CONVERSATION_KEYS = CONVERSATION_COLUMNS.split(', ');

/**
 * `updateConversationRow` (with `activityNow`) and the insert of the change's activity messages
 * (`texts`, in order: their ids and created_at, the transaction's now(), follow it) in one
 * statement: a round trip fewer for every change that writes activity (a status, an assignment, a
 * rule's label). Answers the row the update leaves and the messages, oldest first. The row must be
 * this transaction's, locked (else null: no row, no message).
 */
export async function updateConversationWithActivities(
  tx: Executor,
  accountId: number,
  id: string,
  patch: ConversationPatch,
  texts: string[],
): Promise<{ row: ConversationRow; activities: MessageRow[] } | null> {
  const { sets, values } = patchSets(accountId, id, patch, true);
  values.push(texts);
  const text = `WITH c AS (UPDATE conversations SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2 RETURNING ${CONVERSATION_AS}),
     m AS (INSERT INTO messages (account_id, inbox_id, conversation_id, message_type, content, content_type, content_attributes,
             additional_attributes, external_source_ids, attachments, private, status, source_id, sender_type, sender_id)
           SELECT $1, c.c__inbox_id, $2, 2, t.content, 'text', '{}', '{}', '{}', '[]', false, 'sent', NULL, NULL, NULL
             FROM c, unnest($${values.length}::text[]) WITH ORDINALITY AS t (content, n) ORDER BY t.n
           RETURNING ${MESSAGE_COLUMNS})
SELECT * FROM c, m ORDER BY m.id`;
  const { rows } = await tx.query<Record<string, unknown>>(rowUpdate(text, values));
  const first = rows[0];
  if (!first) return null;
  const row: Record<string, unknown> = {};
  for (const k of CONVERSATION_KEYS) row[k] = first[`c__${k}`];
  const activities = rows.map((r) => {
    const m: Record<string, unknown> = {};
    for (const k in r) if (!k.startsWith('c__')) m[k] = r[k];
    return m as unknown as MessageRow;
  });
  return { row: row as unknown as ConversationRow, activities };
}

/**
 * The row updates prepared so far, by their text (one per set of columns a change sets: a label
 * change, an assignment, a status change..., alone or with its activity messages); past this many,
 * the rest go unprepared.
 */
const rowUpdates = new Map<string, ReturnType<typeof prepared>>();
const ROW_UPDATES_MAX = 64;

/** The columns `updateConversationAtCommit` writes: the times a message moves. */
const AT_COMMIT: ReadonlySet<string> = new Set(['last_activity_at', 'waiting_since', 'first_reply_created_at', 'updated_at']);

/**
 * Queues a patch of the conversation's times to be written with the transaction's COMMIT (in its
 * round trip, before the outbox rows: `atCommit`) and answers the row it leaves, which the caller
 * knows without reading it back (no trigger changes a conversation row). Null when the patch holds
 * other columns or `tx` is not a transaction that writes at commit: the caller updates at once.
 * Only for a conversation this transaction locked and changes nothing else of afterwards (a later
 * change of the row would be overwritten by this one at commit).
 */
export function updateConversationAtCommit(tx: Executor, before: ConversationRow, patch: ConversationPatch): ConversationRow | null {
  const keys = (Object.keys(patch) as Array<keyof ConversationPatch>).sort();
  if (keys.length === 0 || !keys.every((k) => AT_COMMIT.has(k))) return null;
  // One prepared statement per set of columns (a reply sets two, a contact's first message three...).
  const sig = keys.join(',');
  let update = timesUpdates.get(sig);
  if (!update) {
    const sets = keys.map((k, i) => `${k} = $${i + 3}::timestamptz`);
    timesUpdates.set(sig, (update = sqlPrepared(`UPDATE conversations SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2`)));
  }
  const values = keys.map((k) => patch[k] as Date | string | null);
  if (!atCommit(tx, update([Number(before.account_id), String(before.id), ...values]))) return null;
  return { ...before, ...patch };
}

/** The prepared time updates, by the columns they set (at most fifteen sets of AT_COMMIT's four). */
const timesUpdates = new Map<string, (values: readonly (number | string | Date | null)[]) => SqlPrepared>();

export async function deleteConversationRow(tx: Executor, accountId: number, id: string): Promise<void> {
  await tx.query('DELETE FROM conversations WHERE account_id = $1 AND id = $2', [accountId, id]);
}
