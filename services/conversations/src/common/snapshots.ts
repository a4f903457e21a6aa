import { isoOrNull, unixSeconds, unixSecondsOrNull } from '@parley/shared';
import { priorityName, type ConversationRow, type InboxRow, type MessageRow } from './rows';
import { weekOf } from '../inboxes/working-hours';

/** docs/contracts.md `ConversationSnapshot`: the `data` of conversation.* events and of command answers. */
export function conversationSnapshot(c: ConversationRow): Record<string, unknown> & { id: number } {
  return {
    id: c.display_id,
    display_id: c.display_id,
    uuid: c.uuid,
    account_id: c.account_id,
    inbox_id: c.inbox_id,
    status: c.status,
    priority: priorityName(c.priority),
    labels: c.labels,
    assignee_id: c.assignee_id,
    team_id: c.team_id,
    contact_id: c.contact_id,
    contact_inbox_id: c.contact_inbox_id,
    snoozed_until: isoOrNull(c.snoozed_until),
    custom_attributes: c.custom_attributes,
    additional_attributes: c.additional_attributes,
    muted: c.muted,
    waiting_since: unixSecondsOrNull(c.waiting_since),
    first_reply_created_at: unixSecondsOrNull(c.first_reply_created_at),
    last_activity_at: unixSeconds(c.last_activity_at),
    created_at: unixSeconds(c.created_at),
    agent_last_seen_at: isoOrNull(c.agent_last_seen_at),
    contact_last_seen_at: isoOrNull(c.contact_last_seen_at),
  };
}

/** docs/contracts.md `MessageSnapshot`. */
export function messageSnapshot(m: MessageRow, c: ConversationRow): Record<string, unknown> {
  return {
    id: Number(m.id),
    account_id: m.account_id,
    inbox_id: m.inbox_id,
    conversation_id: c.display_id,
    message_type: m.message_type,
    content: m.content,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    private: m.private,
    status: m.status,
    sender_type: m.sender_type,
    sender_id: m.sender_id,
    source_id: m.source_id,
    created_at: unixSeconds(m.created_at),
    updated_at: m.updated_at.toISOString(),
    conversation: conversationSnapshot(c),
  };
}

/** docs/contracts.md `Inbox`: internal lookups and inbox.* events. */
export function inboxSnapshot(i: InboxRow): Record<string, unknown> & { id: number } {
  return {
    id: i.id,
    account_id: i.account_id,
    name: i.name,
    channel_type: i.channel_type,
    channel_id: i.id,
    identifier: i.identifier,
    hmac_token: i.hmac_token,
    hmac_mandatory: i.hmac_mandatory,
    webhook_url: i.webhook_url,
    avatar_url: i.avatar_url ?? '',
    provider: null,
    working_hours_enabled: i.working_hours_enabled,
    timezone: i.timezone,
    working_hours: weekOf(i.working_hours),
  };
}
