import { z } from 'zod';
import { jsonObject } from '../common/validation';
import { publicMessageResponse } from '../messages/schemas';

/** SPEC "Public full contact" (Chatwoot renders the raw Contact record: ISO timestamps). */
export const publicContactResponse = z
  .object({
    id: z.number(),
    account_id: z.number(),
    company_id: z.number().nullable(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone_number: z.string().nullable(),
    identifier: z.string().nullable(),
    contact_type: z.string().nullable(),
    country_code: z.string().nullable(),
    last_name: z.string().nullable(),
    middle_name: z.string().nullable(),
    location: z.string().nullable(),
    last_activity_at: z.string().nullable(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    blocked: z.boolean(),
    additional_attributes: z.record(z.string(), z.unknown()),
    custom_attributes: z.record(z.string(), z.unknown()),
    label_list: z.array(z.string()),
  })
  .meta({ id: 'PublicConversationContact' });
export type PublicContactResponse = z.infer<typeof publicContactResponse>;

/** SPEC "Conversation (public API)". */
export const publicConversationResponse = z
  .object({
    id: z.number(),
    uuid: z.string(),
    inbox_id: z.number(),
    contact_last_seen_at: z.number(),
    agent_last_seen_at: z.number(),
    status: z.enum(['open', 'resolved', 'pending', 'snoozed']),
    messages: z.array(publicMessageResponse),
    contact: publicContactResponse,
  })
  .meta({ id: 'PublicConversation' });
export type PublicConversationResponse = z.infer<typeof publicConversationResponse>;
export const publicConversationListResponse = z.array(publicConversationResponse);

export const publicCreateConversationBody = z.object({ custom_attributes: jsonObject.optional() });
export const toggleTypingBody = z.object({ typing_status: z.enum(['on', 'off']) });

