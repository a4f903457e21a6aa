import { prepared, type EventEnvelope, type Executor } from '@parley/shared';

type Json = Record<string, unknown>;

/** Chatwoot's `messages.chat`: neither an activity note nor private. */
export function isChatMessage(msg: Json): boolean {
  return msg['message_type'] !== 2 && msg['private'] !== true;
}

const upsertLastMessages = prepared(
  `INSERT INTO last_messages (account_id, conversation_id, message_id, data)
   SELECT m.account_id, m.conversation_id, m.message_id, m.data FROM jsonb_to_recordset($1::jsonb) AS m(account_id integer, conversation_id integer, message_id bigint, data jsonb)
   ON CONFLICT (account_id, conversation_id) DO UPDATE SET message_id = EXCLUDED.message_id, data = EXCLUDED.data
   WHERE last_messages.message_id <= EXCLUDED.message_id`,
);

interface LastMessage {
  accountId: number;
  conversationId: number;
  messageId: number;
  data: Json;
}

/** The row a message event would make the conversation's last message, or null (not a chat message). */
function lastMessageOf(accountId: number, event: EventEnvelope): LastMessage | null {
  const { conversation: _conversation, ...msg } = event.data;
  const id = msg['id'];
  const conversationId = msg['conversation_id'];
  if (typeof id !== 'number' || typeof conversationId !== 'number' || !isChatMessage(msg)) return null;
  const created = typeof msg['created_at'] === 'number' ? new Date(msg['created_at'] * 1000).toISOString() : event.occurred_at;
  return { accountId, conversationId, messageId: id, data: { ...msg, updated_at: event.type === 'message.updated' ? event.occurred_at : created } };
}

/**
 * The last messages of a batch of message events, written in one statement: per conversation
 * the newest message (of equals, the latest event: an update refreshes it). `flush` before
 * anything reads them back, and at the end of the batch.
 */
export class LastMessages {
  private pending = new Map<string, LastMessage>();

  remember(accountId: number, event: EventEnvelope): void {
    const m = lastMessageOf(accountId, event);
    if (!m) return;
    const key = `${m.accountId}:${m.conversationId}`;
    const had = this.pending.get(key);
    if (!had || had.messageId <= m.messageId) this.pending.set(key, m);
  }

  async flush(db: Executor): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()].map((m) => ({ account_id: m.accountId, conversation_id: m.conversationId, message_id: m.messageId, data: m.data }));
    this.pending = new Map();
    await db.query(upsertLastMessages([JSON.stringify(rows)]));
  }
}

/**
 * Keeps the conversation's last chat message (the `messages` of Chatwoot's conversation
 * payloads) from a message event: a newer message replaces it, an update of the same message
 * refreshes it, anything older is ignored. Stored without the nested conversation, with the
 * `updated_at` Chatwoot's message attributes carry (ISO).
 */
export async function rememberMessage(db: Executor, accountId: number, event: EventEnvelope): Promise<void> {
  const batch = new LastMessages();
  batch.remember(accountId, event);
  await batch.flush(db);
}

export async function lastMessage(db: Executor, accountId: number, conversationId: number): Promise<Json | null> {
  const { rows } = await db.query<{ data: Json }>('SELECT data FROM last_messages WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
  return rows[0]?.data ?? null;
}

export async function forgetConversation(db: Executor, accountId: number, conversationId: number): Promise<void> {
  await db.query('DELETE FROM last_messages WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
}
