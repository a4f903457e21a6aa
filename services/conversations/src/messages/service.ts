import { ValidationError, type Executor, type RequestContext } from '@parley/shared';
import { participantsOf, recordParticipation } from '../conversations/participation';
import { botIdOf, userIdOf } from '../common/access';
import type { AttachmentMeta, ConversationRow, MessageRow, SenderType } from '../common/rows';
import { messageSnapshot } from '../common/snapshots';
import { changeConversation, emit, type Cause } from '../conversations/changes';
import type { ConversationPatch } from '../conversations/repository';
import { imageSize } from './image-size';
import { insertAttachmentBlob, insertMessageWithCopies, markSentMessagesRead, updateMessageRow, type CopyRows } from './repository';
import { wantedRefs } from '../conversations/presenter';

/** A file of a multipart body. */
export interface UploadedFile {
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

export interface MessageInput {
  message_type: number;
  content: string | null;
  content_type: string;
  content_attributes: Record<string, unknown>;
  private: boolean;
  source_id: string | null;
  sender_type: SenderType | null;
  sender_id: number | null;
  files?: UploadedFile[];
  external_source_ids?: Record<string, unknown>;
  additional_attributes?: Record<string, unknown>;
}

/** Chatwoot's attachment file_type from the upload's media type. */
export function fileTypeOf(mime: string): string {
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  return 'file';
}

function extensionOf(name: string): string | null {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return m ? (m[1] as string).toLowerCase() : null;
}

/**
 * Who sends a message of this type: an incoming one comes from the conversation's contact;
 * outgoing and template ones from the caller (a user or a bot; nobody for automation and
 * system work); activity from nobody.
 */
export function senderFor(ctx: RequestContext, conv: ConversationRow, messageType: number): { sender_type: SenderType | null; sender_id: number | null } {
  if (messageType === 0) return conv.contact_id === null ? { sender_type: null, sender_id: null } : { sender_type: 'Contact', sender_id: conv.contact_id };
  if (messageType === 2) return { sender_type: null, sender_id: null };
  const user = userIdOf(ctx);
  if (user !== null) return { sender_type: 'User', sender_id: user };
  const bot = botIdOf(ctx);
  if (bot !== null) return { sender_type: 'AgentBot', sender_id: bot };
  return { sender_type: null, sender_id: null };
}

/** A message needs something to show: text, files, or an interactive content type. */
export function assertHasContent(content: string | null | undefined, files: UploadedFile[] | undefined, contentType: string): void {
  const hasText = typeof content === 'string' && content.trim().length > 0;
  if (!hasText && (files?.length ?? 0) === 0 && contentType === 'text') {
    throw ValidationError.field('content', "can't be blank", 'blank');
  }
}

/**
 * Adds a message and applies Chatwoot's rules to its conversation: last activity; an incoming
 * message reopens a resolved (unless muted) or snoozed conversation and starts the wait; the
 * first human reply sets first_reply_created_at; human and bot replies end the wait.
 */
export async function createMessage(
  tx: Executor,
  cause: Cause,
  conv: ConversationRow,
  input: MessageInput,
  /**
   * `last`: the caller's transaction changes the conversation no more after this (see ChangeOptions).
   * `senderCopies`: the copies presenting the message names (its sender) are read by its insert and come back as `copies` (else none).
   */
  opts: { last?: boolean; senderCopies?: boolean } = {},
): Promise<{ message: MessageRow; conversation: ConversationRow; copies: CopyRows }> {
  const { files, ...fields } = input;
  // The sender (and a note's mentioned agents) take part from this message on: added by its insert.
  const { users } = participantsOf(fields);
  const inserted = await insertMessageWithCopies(tx, { account_id: conv.account_id, inbox_id: conv.inbox_id, conversation_id: conv.id, ...fields }, users, opts.senderCopies ? wantedRefs([], [fields]) : null);
  let message = inserted.message;
  if (files && files.length > 0) {
    const metas: AttachmentMeta[] = [];
    for (const f of files) {
      const id = await insertAttachmentBlob(tx, conv.account_id, message.id, f.mimetype || 'application/octet-stream', f.originalname || null, f.buffer);
      const fileType = fileTypeOf(f.mimetype);
      const size = fileType === 'image' ? imageSize(f.buffer) : null;
      metas.push({ id, file_type: fileType, extension: extensionOf(f.originalname), file_size: f.size, fallback_title: f.originalname || null, width: size?.width ?? null, height: size?.height ?? null });
    }
    message = await updateMessageRow(tx, conv.account_id, message.id, { attachments: metas });
  }
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
  const after = await changeConversation(tx, cause, conv, patch, { statusActivity, last: opts.last });
  await recordParticipation(tx, after, message, { participantsAdded: true });
  await emit(tx, cause, 'message.created', after.account_id, messageSnapshot(message, after));
  return { message, conversation: after, copies: inserted.copies };
}

export type MessagePatch = Parameters<typeof updateMessageRow>[3];

export async function updateMessage(tx: Executor, cause: Cause, conv: ConversationRow, message: MessageRow, patch: MessagePatch): Promise<MessageRow> {
  const updated = await updateMessageRow(tx, message.account_id, message.id, patch);
  const changes: Record<string, [unknown, unknown]> = {};
  for (const k of Object.keys(patch) as Array<keyof MessagePatch>) {
    const a = (message as unknown as Record<string, unknown>)[k];
    const b = (updated as unknown as Record<string, unknown>)[k];
    if (JSON.stringify(a) !== JSON.stringify(b)) changes[k] = [a ?? null, b ?? null];
  }
  await emit(tx, cause, 'message.updated', conv.account_id, messageSnapshot(updated, conv), changes);
  return updated;
}

/**
 * Chatwoot's soft delete: the message becomes plain text saying so, its attributes only
 * `deleted: true` (what an interactive message offered goes too), and the files go.
 */
export async function softDeleteMessage(tx: Executor, cause: Cause, conv: ConversationRow, message: MessageRow): Promise<MessageRow> {
  await tx.query('DELETE FROM attachment_blobs WHERE account_id = $1 AND message_id = $2', [message.account_id, message.id]);
  return updateMessage(tx, cause, conv, message, {
    content: 'This message was deleted',
    content_type: 'text',
    content_attributes: { deleted: true },
    deleted: true,
    attachments: [],
  });
}

/**
 * The contact has read the conversation (Chatwoot's UpdateMessageStatusJob): what was sent to it
 * becomes `read`, each with its message.updated, as Chatwoot updates them one by one.
 */
export async function markReadByContact(tx: Executor, cause: Cause, conv: ConversationRow): Promise<void> {
  for (const m of await markSentMessagesRead(tx, conv.account_id, conv.id)) {
    await emit(tx, cause, 'message.updated', conv.account_id, messageSnapshot(m, conv), { status: [m.previous_status, m.status] });
  }
}
