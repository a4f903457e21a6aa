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
 * Whom a message makes participants: a user's message its sender, and a private note's
 * @-mentions the mentioned agents (`mentioned`, also stored as mentions). Nobody for others.
 */
export function participantsOf(message: Pick<MessageRow, 'sender_type' | 'sender_id' | 'private' | 'content'>): { users: number[]; mentioned: number[] } {
  if (message.sender_type !== 'User' || message.sender_id === null) return { users: [], mentioned: [] };
  const mentioned = message.private && message.content
    ? [...new Set([...message.content.matchAll(MENTION)].map((m) => Number(m[1])))].filter((id) => id > 0 && id <= 2_147_483_647).slice(0, 50)
    : [];
  return { users: [message.sender_id, ...mentioned], mentioned };
}

/**
 * A user's message makes them a participant; a private note's @-mentions are stored as Chatwoot
 * stores them (one mention per user and conversation, its time the latest) and make the
 * mentioned agents participants too. `participantsAdded`: the message's insert added the
 * participants already (insertMessage's `participants`), only the mentions are left.
 */
export async function recordParticipation(db: Executor, conv: Pick<ConversationRow, 'id' | 'account_id'>, message: MessageRow, opts: { participantsAdded?: boolean } = {}): Promise<void> {
  const { users, mentioned } = participantsOf(message);
  if (users.length === 0) return;
  if (mentioned.length > 0) {
    await db.query(
      `INSERT INTO mentions (account_id, conversation_id, user_id, mentioned_at) SELECT $1, $2, u, $4 FROM unnest($3::int[]) AS u
       ON CONFLICT (conversation_id, user_id) DO UPDATE SET mentioned_at = EXCLUDED.mentioned_at`,
      [conv.account_id, conv.id, mentioned, message.created_at],
    );
  }
  if (!opts.participantsAdded) await addParticipants(db, conv, users);
}
