import { z } from 'zod';
import { workingHourContract } from '@parley/shared';
import { idInput, jsonObject } from '../common/validation';
import { isTimeZone, workingHoursInput } from './working-hours';

const webhookUrl = z
  .union([z.url({ protocol: /^https?$/ }).max(2048), z.literal(''), z.null()])
  .transform((v) => (v === '' ? null : v));

const settingsShape = {
  name: z.string().trim().min(1).max(255),
  avatar_url: z.union([z.url({ protocol: /^https?$/ }).max(2048), z.literal(''), z.null()]),
  greeting_enabled: z.boolean(),
  greeting_message: z.string().max(20_000).nullable(),
  enable_auto_assignment: z.boolean(),
  working_hours_enabled: z.boolean(),
  out_of_office_message: z.string().max(20_000).nullable(),
  timezone: z.string().min(1).max(100).refine(isTimeZone, { message: 'is not a time zone (an IANA name such as Asia/Kolkata or UTC)' }),
  working_hours: workingHoursInput.describe('The days that change (`day_of_week` 0 = Sunday .. 6), merged field by field into the inbox\'s week; see the inbox\'s `working_hours`'),
  csat_survey_enabled: z.boolean(),
  allow_messages_after_resolved: z.boolean(),
  lock_to_single_conversation: z.boolean(),
  webhook_url: webhookUrl,
  hmac_mandatory: z.boolean(),
};

/** Chatwoot's `channel` object of an inbox create/update; only the API channel exists here. */
const channelSchema = z.object({
  type: z.literal('api', { message: 'is not supported: only API channel inboxes exist here' }).optional(),
  webhook_url: webhookUrl.optional(),
  hmac_mandatory: z.boolean().optional(),
  additional_attributes: jsonObject.optional(),
});

export const createInboxBody = z.object({ ...settingsShape, channel: channelSchema.optional() }).partial({
  avatar_url: true,
  greeting_enabled: true,
  greeting_message: true,
  enable_auto_assignment: true,
  working_hours_enabled: true,
  out_of_office_message: true,
  timezone: true,
  working_hours: true,
  csat_survey_enabled: true,
  allow_messages_after_resolved: true,
  lock_to_single_conversation: true,
  webhook_url: true,
  hmac_mandatory: true,
});
export const updateInboxBody = z.object({ ...settingsShape, channel: channelSchema.optional() }).partial();
export type UpdateInboxInput = z.infer<typeof updateInboxBody>;

/** `/inbox_members`: Chatwoot's body (user ids of agents of the account). */
export const inboxMembersBody = z.object({
  inbox_id: idInput,
  user_ids: z.array(idInput).max(1000),
});


/** The account API inbox object (Chatwoot's inbox partial for an API channel). */
export const inboxResponse = z.object({
  id: z.number(),
  account_id: z.number(),
  avatar_url: z.string(),
  channel_id: z.number(),
  name: z.string(),
  channel_type: z.string(),
  greeting_enabled: z.boolean(),
  greeting_message: z.string().nullable(),
  working_hours_enabled: z.boolean(),
  enable_email_collect: z.boolean(),
  csat_survey_enabled: z.boolean(),
  enable_auto_assignment: z.boolean(),
  auto_assignment_config: z.record(z.string(), z.unknown()),
  out_of_office_message: z.string().nullable(),
  working_hours: z.array(workingHourContract).describe('The week, Sunday first: closed all day, or open from open_hour:open_minutes to close_hour:close_minutes in `timezone`'),
  timezone: z.string(),
  callback_webhook_url: z.string().nullable(),
  allow_messages_after_resolved: z.boolean(),
  lock_to_single_conversation: z.boolean(),
  sender_name_type: z.string(),
  business_name: z.string().nullable(),
  webhook_url: z.string().nullable(),
  inbox_identifier: z.string(),
  additional_attributes: z.record(z.string(), z.unknown()),
  hmac_mandatory: z.boolean(),
  provider: z.string().nullable(),
  /** The HMAC secret; shown to administrators only. */
  hmac_token: z.string().optional(),
});
export type InboxResponse = z.infer<typeof inboxResponse>;
export const inboxListResponse = z.object({ payload: z.array(inboxResponse) });

/** Chatwoot's agent partial (docs/contracts.md `Agent`), as inbox members and assignees are shown. */
export const agentResponse = z.object({
  id: z.number(),
  account_id: z.number().nullable(),
  availability_status: z.string(),
  auto_offline: z.boolean(),
  confirmed: z.boolean(),
  email: z.string().nullable(),
  provider: z.string(),
  available_name: z.string(),
  name: z.string(),
  role: z.string(),
  thumbnail: z.string(),
  /** SPEC User fields that are not credentials. */
  avatar_url: z.string(),
  display_name: z.string().nullable(),
  custom_role_id: z.number().nullable(),
});
export type AgentResponse = z.infer<typeof agentResponse>;
export const inboxMembersResponse = z.object({ payload: z.array(agentResponse) });

/** `GET /public/api/v1/inboxes/{inbox_identifier}`. */
export const publicInboxResponse = z.object({
  identifier: z.string(),
  identity_validation_enabled: z.boolean(),
  name: z.string(),
  timezone: z.string(),
  working_hours: z.array(workingHourContract),
  working_hours_enabled: z.boolean(),
  csat_survey_enabled: z.boolean(),
  greeting_enabled: z.boolean(),
});
export type PublicInboxResponse = z.infer<typeof publicInboxResponse>;
