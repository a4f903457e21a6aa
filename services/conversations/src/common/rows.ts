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

/** Every column of `inboxes`, in the table's order (see MESSAGE_COLUMNS). */
export const INBOX_COLUMNS =
  'id, account_id, name, channel_type, identifier, hmac_token, hmac_mandatory, webhook_url, avatar_url, greeting_enabled, greeting_message, enable_auto_assignment, working_hours_enabled, out_of_office_message, timezone, csat_survey_enabled, allow_messages_after_resolved, lock_to_single_conversation, additional_attributes, created_at, updated_at, working_hours';

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

/**
 * Every column of `conversations`, as `ConversationRow` has them: what its prepared statements
 * return instead of `*` (see MESSAGE_COLUMNS).
 */
export const CONVERSATION_COLUMNS =
  'id, account_id, display_id, uuid, inbox_id, contact_id, contact_inbox_id, contact_inbox_source_id, hmac_verified, status, priority, assignee_id, team_id, snoozed_until, additional_attributes, custom_attributes, labels, muted, last_activity_at, waiting_since, first_reply_created_at, agent_last_seen_at, assignee_last_seen_at, contact_last_seen_at, created_at, updated_at';

export type SenderType = 'Contact' | 'User' | 'AgentBot' | 'Captain::Assistant';

/**
 * Every column of `messages`, as `MessageRow` has them: what prepared statements return instead of
 * `*` (a prepared statement's result type is fixed; a column a migration adds would break it).
 */
export const MESSAGE_COLUMNS =
  'id, account_id, inbox_id, conversation_id, message_type, content, content_type, content_attributes, additional_attributes, external_source_ids, attachments, private, status, source_id, sender_type, sender_id, deleted, created_at, updated_at';

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
