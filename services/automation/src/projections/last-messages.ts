import type { EventEnvelope, Executor } from '@parley/shared';

type Json = Record<string, unknown>;

/** Chatwoot's `messages.chat`: neither an activity note nor private. */
export function isChatMessage(msg: Json): boolean {
  return msg['message_type'] !== 2 && msg['private'] !== true;
}

/**
 * Keeps the conversation's last chat message (the `messages` of Chatwoot's conversation
 * payloads) from a message event: a newer message replaces it, an update of the same message
 * refreshes it, anything older is ignored. Stored without the nested conversation, with the
 * `updated_at` Chatwoot's message attributes carry (ISO).
 */
export async function rememberMessage(db: Executor, accountId: number, event: EventEnvelope): Promise<void> {
  const { conversation: _conversation, ...msg } = event.data;
  const id = msg['id'];
  const conversationId = msg['conversation_id'];
  if (typeof id !== 'number' || typeof conversationId !== 'number' || !isChatMessage(msg)) return;
  const created = typeof msg['created_at'] === 'number' ? new Date(msg['created_at'] * 1000).toISOString() : event.occurred_at;
  const data = { ...msg, updated_at: event.type === 'message.updated' ? event.occurred_at : created };
  await db.query(
    `INSERT INTO last_messages (account_id, conversation_id, message_id, data) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, conversation_id) DO UPDATE SET message_id = EXCLUDED.message_id, data = EXCLUDED.data
     WHERE last_messages.message_id <= EXCLUDED.message_id`,
    [accountId, conversationId, id, JSON.stringify(data)],
  );
}

export async function lastMessage(db: Executor, accountId: number, conversationId: number): Promise<Json | null> {
  const { rows } = await db.query<{ data: Json }>('SELECT data FROM last_messages WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
  return rows[0]?.data ?? null;
}

export async function forgetConversation(db: Executor, accountId: number, conversationId: number): Promise<void> {
  await db.query('DELETE FROM last_messages WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
}
