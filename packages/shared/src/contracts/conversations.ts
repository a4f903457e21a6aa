import { z } from 'zod';
import { id, isoTime, jsonObject, unixTime } from './common';

/**
 * What the conversations service publishes: `inbox.*`, `inbox_member.*`, `conversation.*`,
 * `assignee.changed`, `team.changed`, `message.*` events, its internal API and the automation
 * commands. Producers: `services/conversations/src/common/snapshots.ts`.
 */

/**
 * One day of an inbox's week (Chatwoot's `working_hours` rows, `weekly_schedule`): `day_of_week` 0
 * (Sunday) to 6; closed all day, or open from `open_hour:open_minutes` to `close_hour:close_minutes`
 * in the inbox's `timezone` (open all day: 00:00 to 23:59). Hours and minutes are null on a closed day.
 */
export const workingHourContract = z.strictObject({
  day_of_week: z.number().int().min(0).max(6),
  closed_all_day: z.boolean(),
  open_hour: z.number().int().min(0).max(23).nullable(),
  open_minutes: z.number().int().min(0).max(59).nullable(),
  close_hour: z.number().int().min(0).max(23).nullable(),
  close_minutes: z.number().int().min(0).max(59).nullable(),
  open_all_day: z.boolean(),
});
export type WorkingHour = z.infer<typeof workingHourContract>;

/** `inbox.*` data and `GET /internal/accounts/{a}/inboxes/{id}`, `/internal/inboxes/by_identifier/{identifier}`. */
export const inboxContract = z.strictObject({
  id,
  account_id: id,
  name: z.string(),
  channel_type: z.string(),
  channel_id: id,
  identifier: z.string(),
  hmac_token: z.string(),
  hmac_mandatory: z.boolean(),
  webhook_url: z.string().nullable(),
  /** `''` without a picture. */
  avatar_url: z.string(),
  provider: z.string().nullable(),
  /** Whether the working hours apply (reports' business hours; 0 when off). */
  working_hours_enabled: z.boolean(),
  /** IANA time zone the working hours are in. */
  timezone: z.string(),
  /** The seven days, Sunday first. */
  working_hours: z.array(workingHourContract),
});
export type Inbox = z.infer<typeof inboxContract>;

/** `inbox_member.added|removed` data (envelope `account_id` set). */
export const inboxMemberContract = z.strictObject({ id, inbox_id: id, user_id: id });
export type InboxMember = z.infer<typeof inboxMemberContract>;

export const conversationStatus = z.enum(['open', 'resolved', 'pending', 'snoozed']);
export const conversationPriority = z.enum(['low', 'medium', 'high', 'urgent']);

/**
 * `ConversationSnapshot`: the data of `conversation.*`, `assignee.changed`, `team.changed`, the
 * internal lookup and command answers. `id` is the per-account display id (the database id never
 * leaves the service).
 */
export const conversationContract = z.strictObject({
  id,
  display_id: id,
  uuid: z.string(),
  account_id: id,
  inbox_id: id,
  status: conversationStatus,
  priority: conversationPriority.nullable(),
  labels: z.array(z.string()),
  assignee_id: id.nullable(),
  team_id: id.nullable(),
  contact_id: id.nullable(),
  contact_inbox_id: id.nullable(),
  snoozed_until: isoTime.nullable(),
  custom_attributes: jsonObject,
  additional_attributes: jsonObject,
  muted: z.boolean(),
  waiting_since: unixTime.nullable(),
  first_reply_created_at: unixTime.nullable(),
  last_activity_at: unixTime,
  created_at: unixTime,
  /**
   * When an agent last read it, to the millisecond (the unread count is the incoming messages
   * created after it); absent from events written before it was added.
   */
  agent_last_seen_at: isoTime.nullable().optional(),
  /** When the contact last read it. */
  contact_last_seen_at: isoTime.nullable().optional(),
});
export type ConversationSnapshot = z.infer<typeof conversationContract>;

/** 0 incoming, 1 outgoing, 2 activity, 3 template. */
export const messageType = z.number().int().min(0).max(3);

/** `MessageSnapshot`: the data of `message.*`, with the conversation as it is after the change. */
export const messageContract = z.strictObject({
  id,
  account_id: id,
  inbox_id: id,
  /** The conversation's display id. */
  conversation_id: id,
  message_type: messageType,
  content: z.string().nullable(),
  content_type: z.string(),
  content_attributes: jsonObject,
  private: z.boolean(),
  status: z.enum(['sent', 'delivered', 'read', 'failed']),
  sender_type: z.enum(['Contact', 'User', 'AgentBot', 'Captain::Assistant']).nullable(),
  sender_id: id.nullable(),
  source_id: z.string().nullable(),
  created_at: unixTime,
  /**
   * The message's version, to the millisecond: every change of the message makes it later than
   * the one before (a copy keeps the snapshot with the latest). A new message's is when it was
   * created (or its files stored). Absent from events written before it was added.
   */
  updated_at: isoTime.optional(),
  conversation: conversationContract,
});
export type MessageSnapshot = z.infer<typeof messageContract>;

/** Longest message content a command may send (the message API's limit). */
export const MAX_MESSAGE_CONTENT = 150_000;

const commandLabels = z.array(z.string().trim().min(1).max(255)).min(1).max(100);
const nullableId = z.number().int().positive().max(2_147_483_647).nullable();

/** What automation asks the conversations service to do (`POST .../conversations/{id}/commands`). */
export const commandContract = z.discriminatedUnion('type', [
  z.object({ type: z.literal('add_labels'), labels: commandLabels }),
  z.object({ type: z.literal('remove_labels'), labels: commandLabels }),
  z.object({ type: z.literal('assign_agent'), assignee_id: nullableId }),
  z.object({ type: z.literal('assign_team'), team_id: nullableId }),
  z.object({ type: z.literal('change_priority'), priority: conversationPriority.nullable() }),
  z.object({ type: z.literal('change_status'), status: conversationStatus, snoozed_until: isoTime.nullable().optional() }),
  z.object({ type: z.literal('mute') }),
  z.object({ type: z.literal('send_message'), content: z.string().min(1).max(MAX_MESSAGE_CONTENT), private: z.boolean().default(false) }),
]);
export type Command = z.input<typeof commandContract>;

/** The command call's body: the rule as actor, the triggering event as cause, one key per action. */
export const commandRequestContract = z.object({
  idempotency_key: z.string().min(1).max(255),
  actor: z.object({ type: z.literal('automation_rule'), id: z.union([z.number(), z.string()]), name: z.string().nullable().optional() }),
  causation_id: z.string().max(255).nullable().optional(),
  command: commandContract,
});
export type CommandRequest = z.input<typeof commandRequestContract>;

/** `applied: false` when the idempotency key was seen before (nothing happened twice). */
export const commandAnswerContract = z.strictObject({ applied: z.boolean(), conversation: conversationContract });
export type CommandAnswer = z.infer<typeof commandAnswerContract>;

/** `GET /internal/accounts/{a}/agents/{user_id}/inboxes`: the inboxes a user is a member of (what an agent may see). */
export const agentInboxesContract = z.strictObject({ inbox_ids: z.array(id) });
export type AgentInboxes = z.infer<typeof agentInboxesContract>;

/**
 * `conversation.typing_on|typing_off` data: the conversation, and whether the typist writes a
 * private note (agents only; a contact's typing is never private). The typist is the envelope's actor.
 */
export const typingContract = conversationContract.extend({ is_private: z.boolean() });
export type TypingSnapshot = z.infer<typeof typingContract>;
