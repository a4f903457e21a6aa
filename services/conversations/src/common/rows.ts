import { columnsOf } from '@parley/shared';

/** Row shapes as pg returns them (bigint ids arrive as strings and are converted on read). */
export interface InboxRow {
  id: number;
  account_id: number;
  name: string;
  channel_type: string;
  identifier: string;
  hmac_token: string;
  hmac_mandatory: boolean;
  webhook_url: string | null;
  avatar_url: string | null;
  greeting_enabled: boolean;
  greeting_message: string | null;
  enable_auto_assignment: boolean;
  working_hours_enabled: boolean;
  out_of_office_message: string | null;
  timezone: string;
  /** The week (packages/shared `WorkingHour`s, Sunday first). */
  working_hours: unknown;
  csat_survey_enabled: boolean;
  allow_messages_after_resolved: boolean;
  lock_to_single_conversation: boolean;
  additional_attributes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** The columns `InboxRow` has, for prepared statements (see MESSAGE_COLUMNS). */
export const INBOX_COLUMNS = columnsOf<InboxRow>({
  id: true, account_id: true, name: true, channel_type: true, identifier: true, hmac_token: true,
  hmac_mandatory: true, webhook_url: true, avatar_url: true, greeting_enabled: true, greeting_message: true,
  enable_auto_assignment: true, working_hours_enabled: true, out_of_office_message: true, timezone: true,
  csat_survey_enabled: true, allow_messages_after_resolved: true, lock_to_single_conversation: true,
  additional_attributes: true, created_at: true, updated_at: true, working_hours: true,
});

export type ConversationStatus = 'open' | 'resolved' | 'pending' | 'snoozed';

export interface ConversationRow {
  id: string;
  account_id: number;
  display_id: number;
  uuid: string;
  inbox_id: number;
  contact_id: number | null;
  contact_inbox_id: number | null;
  contact_inbox_source_id: string | null;
  hmac_verified: boolean;
  status: ConversationStatus;
  priority: number | null;
  assignee_id: number | null;
  team_id: number | null;
  snoozed_until: Date | null;
  additional_attributes: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  labels: string[];
  muted: boolean;
  last_activity_at: Date;
  waiting_since: Date | null;
  first_reply_created_at: Date | null;
  agent_last_seen_at: Date | null;
  assignee_last_seen_at: Date | null;
  contact_last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns `ConversationRow` has: what its prepared statements return instead of `*` (see MESSAGE_COLUMNS). */
export const CONVERSATION_COLUMNS = columnsOf<ConversationRow>({
  id: true, account_id: true, display_id: true, uuid: true, inbox_id: true, contact_id: true,
  contact_inbox_id: true, contact_inbox_source_id: true, hmac_verified: true, status: true, priority: true,
  assignee_id: true, team_id: true, snoozed_until: true, additional_attributes: true,
  custom_attributes: true, labels: true, muted: true, last_activity_at: true, waiting_since: true,
  first_reply_created_at: true, agent_last_seen_at: true, assignee_last_seen_at: true,
  contact_last_seen_at: true, created_at: true, updated_at: true,
});

export type SenderType = 'Contact' | 'User' | 'AgentBot' | 'Captain::Assistant';

/**
 * The columns `MessageRow` has: what prepared statements return instead of `*` (a prepared
 * statement's result type is fixed; a column a migration adds would break it). The compiler holds
 * the list to the row type (`columnsOf`); a test, to the table.
 */
export const MESSAGE_COLUMNS = columnsOf<MessageRow>({
  id: true, account_id: true, inbox_id: true, conversation_id: true, message_type: true, content: true,
  content_type: true, content_attributes: true, additional_attributes: true, external_source_ids: true,
  attachments: true, private: true, status: true, source_id: true, sender_type: true, sender_id: true,
  deleted: true, created_at: true, updated_at: true,
});

export interface MessageRow {
  id: string;
  account_id: number;
  inbox_id: number;
  conversation_id: string;
  message_type: number;
  content: string | null;
  content_type: string;
  content_attributes: Record<string, unknown>;
  additional_attributes: Record<string, unknown>;
  external_source_ids: Record<string, unknown>;
  attachments: AttachmentMeta[];
  private: boolean;
  status: string;
  source_id: string | null;
  sender_type: SenderType | null;
  sender_id: number | null;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface AttachmentMeta {
  id: number;
  file_type: string;
  extension: string | null;
  file_size: number;
  fallback_title: string | null;
  /** Images only (read from the file's header when it was uploaded). */
  width?: number | null;
  height?: number | null;
}

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export function priorityName(p: number | null): Priority | null {
  return p === null || p === undefined ? null : (PRIORITIES[p] ?? null);
}

export function priorityValue(name: string | null | undefined): number | null {
  if (!name || name === 'none') return null;
  const i = (PRIORITIES as readonly string[]).indexOf(name);
  return i < 0 ? null : i;
}

export const MESSAGE_TYPES = ['incoming', 'outgoing', 'activity', 'template'] as const;
export const CONTENT_TYPES = [
  'text', 'input_text', 'input_textarea', 'input_email', 'input_select', 'cards', 'form', 'article',
  'incoming_email', 'input_csat', 'integrations', 'sticker', 'voice_call',
] as const;
