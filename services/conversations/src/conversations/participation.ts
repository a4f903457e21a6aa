import type { Executor } from '@parley/shared';
import type { ConversationRow, MessageRow } from '../common/rows';

/** How Chatwoot's editor writes an @-mention into a note: `[@Ann](mention://user/12/Ann)`. */
const MENTION = /mention:\/\/user\/([0-9]{1,10})\//g;

export async function addParticipants(db: Executor, conv: Pick<ConversationRow, 'id' | 'account_id'>, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(
    'INSERT INTO conversation_participants (account_id, conversation_id, user_id) SELECT $1, $2, u FROM unnest($3::int[]) AS u ON CONFLICT DO NOTHING',
    [conv.account_id, conv.id, userIds],
  );
}

/**
 * A user's message makes them a participant; a private note's @-mentions are stored as Chatwoot
 * stores them (one mention per user and conversation, its time the latest) and make the
 * mentioned agents participants too.
 */
export async function recordParticipation(db: Executor, conv: Pick<ConversationRow, 'id' | 'account_id'>, message: MessageRow): Promise<void> {
  if (message.sender_type !== 'User' || message.sender_id === null) return;
  const mentioned = message.private && message.content
    ? [...new Set([...message.content.matchAll(MENTION)].map((m) => Number(m[1])))].filter((id) => id > 0 && id <= 2_147_483_647).slice(0, 50)
    : [];
  if (mentioned.length > 0) {
    await db.query(
      `INSERT INTO mentions (account_id, conversation_id, user_id, mentioned_at) SELECT $1, $2, u, $4 FROM unnest($3::int[]) AS u
       ON CONFLICT (conversation_id, user_id) DO UPDATE SET mentioned_at = EXCLUDED.mentioned_at`,
      [conv.account_id, conv.id, mentioned, message.created_at],
    );
  }
  await addParticipants(db, conv, [message.sender_id, ...mentioned]);
}
