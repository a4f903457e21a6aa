import { z } from 'zod';
import { queryInt, stringList, teamContract } from '@parley/shared';
import { agentResponse } from '../inboxes/schemas';
import { messageFields, messageResponse } from '../messages/schemas';
import { boolInput, idInput, instantInput, jsonObject } from '../common/validation';
import { SORTS } from './list';

export const STATUSES = ['open', 'resolved', 'pending', 'snoozed'] as const;
export const statusInput = z.enum(STATUSES);

/** SPEC op 1 (+ Chatwoot's `sort_by`, `source_id`, `conversation_type`, `updated_within`). Unknown keys are 400. */
export const listConversationsQuery = z.strictObject({
  assignee_type: z.enum(['me', 'unassigned', 'all', 'assigned']).optional(),
  status: z.enum(['all', ...STATUSES]).optional(),
  q: z.string().max(200).optional(),
  inbox_id: queryInt.optional(),
  team_id: queryInt.optional(),
  labels: stringList.pipe(z.array(z.string().max(255)).max(50)).optional(),
  page: queryInt.max(100_000).optional(),
  sort_by: z.enum(Object.keys(SORTS) as [keyof typeof SORTS, ...Array<keyof typeof SORTS>]).optional(),
  source_id: z.string().max(255).optional(),
  conversation_type: z.enum(['unattended', 'mention', 'participating']).optional(),
  updated_within: queryInt.optional(),
});
export type ListConversationsQuery = z.infer<typeof listConversationsQuery>;

/**
 * `GET /conversations/meta`: the list's parameters (Chatwoot's dashboard sends `assignee_type`
 * here too); `assignee_type`, `page` and `sort_by` do not change the counts.
 */
export const conversationsMetaQuery = listConversationsQuery.omit({ updated_within: true });

/** `GET /conversations/search`: the list's parameters with `q` required (and no `updated_within`). */
export const searchConversationsQuery = listConversationsQuery.omit({ updated_within: true }).extend({ q: z.string().min(1).max(200) });

/** SPEC op 4. The initial message is Chatwoot's `message` object. */
export const createConversationBody = z.object({
  source_id: z.string().trim().min(1).max(255).optional(),
  inbox_id: idInput.optional(),
  contact_id: idInput.optional(),
  additional_attributes: jsonObject.optional(),
  custom_attributes: jsonObject.optional(),
  status: statusInput.optional(),
  assignee_id: idInput.nullable().optional(),
  team_id: idInput.nullable().optional(),
  snoozed_until: instantInput.nullable().optional(),
  hmac_verified: boolInput.optional(),
  message: z.object(messageFields).optional(),
});
export type CreateConversationInput = z.infer<typeof createConversationBody>;

/** `POST .../toggle_typing_status` (Chatwoot's agent typing indicator). */
export const toggleTypingStatusBody = z.object({ typing_status: z.enum(['on', 'off']), is_private: z.boolean().default(false) });

export const toggleStatusBody = z.object({
  status: statusInput.optional(),
  /** Unix seconds (Chatwoot) or ISO-8601. */
  snoozed_until: instantInput.nullable().optional(),
});
export type ToggleStatusInput = z.infer<typeof toggleStatusBody>;

/** SPEC op 7: `none` (or null, or nothing) clears the priority. */
export const priorityInput = z.enum(['urgent', 'high', 'medium', 'low', 'none']).nullable();
export const togglePriorityBody = z.object({ priority: priorityInput.optional() });
export const updateConversationBody = z.object({ priority: priorityInput.optional() });

export const assignmentBody = z.object({
  assignee_id: idInput.nullable().optional(),
  team_id: idInput.nullable().optional(),
  assignee_type: z.literal('User').optional(),
});
export type AssignmentInput = z.infer<typeof assignmentBody>;

export const customAttributesBody = z.object({ custom_attributes: jsonObject });

/** SPEC op 6: the list replaces the conversation's labels; a missing list clears them (Chatwoot). */
export const labelsBody = z.object({ labels: z.array(z.string().trim().min(1).max(255)).max(100).optional() });


/** `meta.sender`: Chatwoot's contact partial (SPEC). */
export const contactPartialResponse = z.object({
  additional_attributes: z.record(z.string(), z.unknown()),
  availability_status: z.string(),
  email: z.string().nullable(),
  id: z.number(),
  name: z.string(),
  phone_number: z.string().nullable(),
  blocked: z.boolean(),
  identifier: z.string().nullable(),
  thumbnail: z.string().nullable(),
  custom_attributes: z.record(z.string(), z.unknown()),
  last_activity_at: z.number(),
  created_at: z.number(),
});
export type ContactPartialResponse = z.infer<typeof contactPartialResponse>;

export const teamPartialResponse = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  allow_auto_assign: z.boolean(),
  account_id: z.number(),
  is_member: z.boolean(),
});

/** The account API conversation (SPEC "Conversation" with the list's `meta`). */
export const conversationResponse = z
  .object({
    meta: z.object({
      sender: contactPartialResponse,
      channel: z.string(),
      assignee: agentResponse.nullable(),
      assignee_type: z.literal('User').optional(),
      team: teamPartialResponse.optional(),
      hmac_verified: z.boolean(),
    }),
    id: z.number(),
    messages: z.array(messageResponse),
    account_id: z.number(),
    uuid: z.string(),
    additional_attributes: z.record(z.string(), z.unknown()),
    agent_last_seen_at: z.number(),
    assignee_last_seen_at: z.number(),
    can_reply: z.boolean(),
    contact_last_seen_at: z.number(),
    custom_attributes: z.record(z.string(), z.unknown()),
    inbox_id: z.number(),
    labels: z.array(z.string()),
    muted: z.boolean(),
    snoozed_until: z.number().nullable(),
    status: statusInput,
    created_at: z.number(),
    updated_at: z.number(),
    timestamp: z.number(),
    first_reply_created_at: z.number().nullable(),
    unread_count: z.number(),
    last_non_activity_message: messageResponse.nullable(),
    last_activity_at: z.number(),
    priority: z.enum(['low', 'medium', 'high', 'urgent']).nullable(),
    waiting_since: z.number().nullable(),
    sla_policy_id: z.number().nullable(),
    applied_sla: z.record(z.string(), z.unknown()),
    sla_events: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'Conversation' });
export type ConversationResponse = z.infer<typeof conversationResponse>;

export const countsResponse = z.object({
  mine_count: z.number(),
  assigned_count: z.number(),
  unassigned_count: z.number(),
  all_count: z.number(),
});

export const conversationListResponse = z.object({ data: z.object({ meta: countsResponse, payload: z.array(conversationResponse) }) });
export const conversationsMetaResponse = z.object({ meta: countsResponse });
export const contactConversationsResponse = z.object({ payload: z.array(conversationResponse) });

export const toggleStatusResponse = z.object({
  meta: z.object({}),
  payload: z.object({
    success: z.boolean(),
    conversation_id: z.number(),
    current_status: statusInput,
    snoozed_until: z.number().nullable(),
  }),
});

/** Chatwoot's raw Team JSON answered by a team assignment: the Team contract. */
export const teamResponse = teamContract;
export const assignmentResponse = z.union([agentResponse, teamResponse, z.null()]);

export const labelsResponse = z.object({ payload: z.array(z.string()) });
export const customAttributesResponse = z.object({ custom_attributes: z.record(z.string(), z.unknown()) });
