import type { Executor } from '@parley/shared';

type Json = Record<string, unknown>;

/**
 * The channel's own per-conversation state (migration 002): one query per function, in the
 * consumer's transaction, always by account.
 */

/** Keeps `message` as the conversation's last chat message unless a newer one is there. */
export async function keepLastMessage(db: Executor, accountId: number, conversationId: number, message: Json & { id: number }): Promise<void> {
  await db.query(
    `INSERT INTO conversation_state (account_id, conversation_id, last_message, last_message_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, conversation_id) DO UPDATE SET last_message = EXCLUDED.last_message, last_message_id = EXCLUDED.last_message_id
      WHERE conversation_state.last_message_id IS NULL OR conversation_state.last_message_id <= EXCLUDED.last_message_id`,
    [accountId, conversationId, JSON.stringify(message), message.id],
  );
}

export async function lastMessage(db: Executor, accountId: number, conversationId: number): Promise<Json | null> {
  const { rows } = await db.query<{ last_message: Json | null }>('SELECT last_message FROM conversation_state WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
  return rows[0]?.last_message ?? null;
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

export async function sourceIdOf(db: Executor, accountId: number, contactInboxId: number | null): Promise<string | null> {
  if (contactInboxId === null) return null;
  const { rows } = await db.query<{ source_id: string }>('SELECT source_id FROM contact_inbox_sources WHERE account_id = $1 AND contact_inbox_id = $2', [accountId, contactInboxId]);
  return rows[0]?.source_id ?? null;
}
