import type { Executor } from '@parley/shared';
import type { AttachmentMeta, ConversationRow, MessageRow, SenderType } from '../common/rows';
import { messageSnapshot } from '../common/snapshots';
import { changeConversation, emit, type Cause } from '../conversations/changes';
import type { ConversationPatch } from '../conversations/repository';
import { insertMessage, updateMessageRow } from './repository';

export interface MessageInput {
  message_type: number;
  content: string | null;
  content_type: string;
  content_attributes: Record<string, unknown>;
  private: boolean;
  source_id: string | null;
  sender_type: SenderType | null;
  sender_id: number | null;
  attachments?: AttachmentMeta[];
  external_source_ids?: Record<string, unknown>;
  additional_attributes?: Record<string, unknown>;
}

/**
 * Adds a message and applies Chatwoot's rules to its conversation: last activity; an incoming
 * message reopens a resolved (unless muted) or snoozed conversation and starts the wait; the
 * first human reply sets first_reply_created_at; human and bot replies end the wait.
 */
export async function createMessage(tx: Executor, cause: Cause, conv: ConversationRow, input: MessageInput): Promise<{ message: MessageRow; conversation: ConversationRow }> {
  const message = await insertMessage(tx, {
    account_id: conv.account_id,
    inbox_id: conv.inbox_id,
    conversation_id: conv.id,
    ...input,
  });
  const patch: ConversationPatch = { last_activity_at: message.created_at };
  let statusActivity: string | undefined;
  const incoming = message.message_type === 0;
  const outgoing = message.message_type === 1;
  if (incoming) {
    if (conv.waiting_since === null) patch.waiting_since = message.created_at;
    if ((conv.status === 'resolved' && !conv.muted) || conv.status === 'snoozed') {
      patch.status = 'open';
      statusActivity = 'System reopened the conversation due to a new incoming message.';
    }
  } else if (outgoing && !message.private) {
    const human = message.sender_type === 'User' && !message.content_attributes['automation_rule_id'];
    const bot = message.sender_type === 'AgentBot' || message.sender_type === 'Captain::Assistant';
    if (human && conv.first_reply_created_at === null) patch.first_reply_created_at = message.created_at;
    if ((human || bot) && conv.waiting_since !== null) patch.waiting_since = null;
  }
  const after = await changeConversation(tx, cause, conv, patch, { statusActivity });
  await emit(tx, cause, 'message.created', after.account_id, messageSnapshot(message, after));
  return { message, conversation: after };
}

export async function updateMessage(
  tx: Executor,
  cause: Cause,
  conv: ConversationRow,
  message: MessageRow,
  patch: Partial<{ content: string | null; content_attributes: Record<string, unknown>; status: string; deleted: boolean; attachments: AttachmentMeta[] }>,
): Promise<MessageRow> {
  const updated = await updateMessageRow(tx, message.account_id, message.id, patch);
  const changes: Record<string, [unknown, unknown]> = {};
  for (const k of Object.keys(patch) as Array<keyof typeof patch>) {
    const a = (message as unknown as Record<string, unknown>)[k];
    const b = (updated as unknown as Record<string, unknown>)[k];
    if (JSON.stringify(a) !== JSON.stringify(b)) changes[k] = [a ?? null, b ?? null];
  }
  await emit(tx, cause, 'message.updated', conv.account_id, messageSnapshot(updated, conv), changes);
  return updated;
}

/** Chatwoot's soft delete: the text is replaced and `content_attributes.deleted` is set. */
export async function softDeleteMessage(tx: Executor, cause: Cause, conv: ConversationRow, message: MessageRow): Promise<MessageRow> {
  return updateMessage(tx, cause, conv, message, {
    content: 'This message was deleted',
    content_attributes: { ...message.content_attributes, deleted: true },
    deleted: true,
    attachments: [],
  });
}
