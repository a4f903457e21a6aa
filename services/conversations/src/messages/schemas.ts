import { z } from 'zod';
import { queryInt } from '@parley/shared';
import { CONTENT_TYPES, MESSAGE_TYPES } from '../common/rows';
import { boolInput, jsonObject } from '../common/validation';

export const MAX_CONTENT = 150_000;

/** Multipart bodies carry objects as JSON text; JSON bodies carry them as objects. */
const jsonObjectInput = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}, jsonObject);

/** `incoming`/`outgoing`/`activity`/`template`, or Chatwoot's integers 0-3 (also as text). */
export const messageTypeInput = z.union([
  z.enum(MESSAGE_TYPES).transform((t) => MESSAGE_TYPES.indexOf(t)),
  z.number().int().min(0).max(3),
  z.enum(['0', '1', '2', '3']).transform(Number),
]);

/** The fields a message is created with (account API; also the `message` of conversation create). */
export const messageFields = {
  content: z.string().max(MAX_CONTENT).nullable().optional(),
  message_type: messageTypeInput.optional(),
  private: boolInput.optional(),
  content_type: z.enum(CONTENT_TYPES).optional(),
  content_attributes: jsonObjectInput.optional(),
  echo_id: z.string().max(255).optional(),
  source_id: z.string().max(255).optional(),
};

export const createMessageBody = z.object(messageFields);
export type CreateMessageInput = z.infer<typeof createMessageBody>;

export const updateMessageBody = z
  .object({
    content: z.string().max(MAX_CONTENT).optional(),
    content_attributes: jsonObjectInput.optional(),
    status: z.enum(['sent', 'delivered', 'read', 'failed']).optional(),
  })
  .refine((b) => b.content !== undefined || b.content_attributes !== undefined || b.status !== undefined, {
    message: 'Give at least one of content, content_attributes or status',
    path: ['content'],
  });
export type UpdateMessageInput = z.infer<typeof updateMessageBody>;

export const listMessagesQuery = z.strictObject({
  before: queryInt.optional(),
  after: queryInt.optional(),
});


/** The public attachment shape (SPEC), also used by the account API. */
export const attachmentResponse = z
  .object({
    id: z.number(),
    message_id: z.number(),
    account_id: z.number(),
    file_type: z.string(),
    extension: z.string().nullable(),
    data_url: z.string(),
    thumb_url: z.string(),
    file_size: z.number(),
    width: z.number().nullable(),
    height: z.number().nullable(),
    fallback_title: z.string().nullable(),
    transcribed_text: z.string().nullable(),
    coordinates_lat: z.number().nullable(),
    coordinates_long: z.number().nullable(),
    meta: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'MessageAttachment' });
export type AttachmentResponse = z.infer<typeof attachmentResponse>;

const contactSender = z.object({
  additional_attributes: z.record(z.string(), z.unknown()),
  custom_attributes: z.record(z.string(), z.unknown()),
  email: z.string().nullable(),
  id: z.number(),
  identifier: z.string().nullable(),
  name: z.string(),
  phone_number: z.string().nullable(),
  thumbnail: z.string(),
  avatar_url: z.string(),
  available_name: z.string(),
  availability_status: z.string(),
  /** ISO-8601 (SPEC's public sender types it as a string); '' when unknown. */
  created_at: z.string(),
  blocked: z.boolean(),
  type: z.literal('contact'),
});
const userSender = z.object({
  id: z.number(),
  name: z.string(),
  available_name: z.string(),
  avatar_url: z.string(),
  type: z.literal('user'),
  availability_status: z.string(),
  thumbnail: z.string(),
});
const botSender = z.object({
  id: z.number(),
  name: z.string(),
  available_name: z.string(),
  avatar_url: z.string(),
  thumbnail: z.string(),
  availability_status: z.string(),
  type: z.enum(['agent_bot', 'captain_assistant']),
});
/** A message's `sender`: Chatwoot's push_event_data of the contact, user or bot. */
export const senderResponse = z.union([contactSender, userSender, botSender]).meta({ id: 'MessageSender' });
export type SenderResponse = z.infer<typeof senderResponse>;

/** The account API message (Chatwoot's Message#push_event_data). */
export const messageResponse = z
  .object({
    id: z.number(),
    content: z.string().nullable(),
    account_id: z.number(),
    inbox_id: z.number(),
    conversation_id: z.number(),
    message_type: z.number().int().min(0).max(3),
    created_at: z.number().int(),
    updated_at: z.string(),
    private: z.boolean(),
    status: z.enum(['sent', 'delivered', 'read', 'failed']).nullable(),
    source_id: z.string().nullable(),
    content_type: z.string().nullable(),
    content_attributes: z.record(z.string(), z.unknown()),
    sender_type: z.string().nullable(),
    sender_id: z.number().nullable(),
    external_source_ids: z.record(z.string(), z.unknown()),
    additional_attributes: z.record(z.string(), z.unknown()),
    processed_message_content: z.string().nullable(),
    sentiment: z.record(z.string(), z.unknown()).nullable(),
    conversation: z.object({
      assignee_id: z.number().nullable(),
      unread_count: z.number(),
      last_activity_at: z.number(),
      contact_inbox: z.object({ source_id: z.string().nullable() }),
    }),
    /** SPEC's single attachment: the first file, or null. */
    attachment: attachmentResponse.nullable(),
    sender: senderResponse.optional(),
    attachments: z.array(attachmentResponse).optional(),
    echo_id: z.string().optional(),
  })
  .meta({ id: 'Message' });
export type MessageResponse = z.infer<typeof messageResponse>;

/** `GET .../conversations/{id}/messages`. */
export const messageListResponse = z.object({
  meta: z.object({
    labels: z.array(z.string()),
    additional_attributes: z.record(z.string(), z.unknown()),
    contact: z.record(z.string(), z.unknown()),
    assignee: z.record(z.string(), z.unknown()).optional(),
    agent_last_seen_at: z.number(),
    assignee_last_seen_at: z.number(),
  }),
  payload: z.array(messageResponse),
});

/** The public API message (SPEC "Public Message"). */
export const publicMessageResponse = z
  .object({
    id: z.number(),
    content: z.string().nullable(),
    message_type: z.number().int().min(0).max(3),
    content_type: z.string().nullable(),
    content_attributes: z.record(z.string(), z.unknown()),
    created_at: z.number().int(),
    conversation_id: z.number(),
    attachments: z.array(attachmentResponse),
    sender: senderResponse.optional(),
  })
  .meta({ id: 'PublicMessage' });
export type PublicMessageResponse = z.infer<typeof publicMessageResponse>;

export const publicCreateMessageBody = z.object({
  content: z.string().max(MAX_CONTENT).nullable().optional(),
  echo_id: z.string().max(255).optional(),
});

export const publicUpdateMessageBody = z.object({
  submitted_values: z.union([z.array(z.unknown()).max(100), jsonObject]),
});

export const publicListMessagesQuery = z.strictObject({ before: queryInt.optional(), after: queryInt.optional() });
