import type { Changes } from '@parley/shared';
import type { ContactSnapshot } from '../projections/contacts';
import type { InboxInfo } from '../projections/inboxes';

/**
 * Chatwoot-shaped webhook payloads (reference Op 15, `app/listeners/webhook_listener.rb`),
 * built from the event snapshots. Timestamps follow Chatwoot's webhook data: unix seconds
 * for the conversation's counters, ISO-8601 for `snoozed_until`, message `created_at` and
 * `first_reply_created_at`.
 */

type Json = Record<string, unknown>;

export const WEBHOOK_EVENTS = [
  'conversation_status_changed',
  'conversation_updated',
  'conversation_created',
  'contact_created',
  'contact_updated',
  'message_created',
  'message_updated',
  'webwidget_triggered',
  'inbox_created',
  'inbox_updated',
  'conversation_typing_on',
  'conversation_typing_off',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** Chatwoot's DB default: the first eight. */
export const DEFAULT_SUBSCRIPTIONS: WebhookEvent[] = WEBHOOK_EVENTS.slice(0, 8);

const MESSAGE_TYPE_NAMES = ['incoming', 'outgoing', 'activity', 'template'];

const iso = (unix: unknown): string | null => (typeof unix === 'number' && unix > 0 ? new Date(unix * 1000).toISOString() : null);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export function changedAttributes(changes: Changes | null | undefined): Json[] | null {
  if (!changes) return null;
  return Object.entries(changes).map(([k, [prev, curr]]) => ({ [k]: { previous_value: prev, current_value: curr } }));
}

/** Chatwoot's `contact.push_event_data` (the conversation's `meta.sender`). */
export function contactPushData(c: ContactSnapshot): Json {
  return {
    additional_attributes: c.additional_attributes ?? {},
    custom_attributes: c.custom_attributes ?? {},
    email: c.email ?? null,
    id: c.id,
    identifier: c.identifier ?? null,
    name: c.name ?? null,
    phone_number: c.phone_number ?? null,
    thumbnail: c.thumbnail ?? c.avatar_url ?? '',
    blocked: c.blocked ?? false,
    type: 'contact',
  };
}

export interface PayloadContext {
  accountName: string | null;
  inbox: InboxInfo | null;
  /** The conversation's contact, when the projection has it. */
  contact: ContactSnapshot | null;
}

/** `conversation.webhook_data` (Conversations::EventDataPresenter#push_data). */
export function conversationData(conv: Json, pc: PayloadContext): Json {
  const contactId = typeof conv['contact_id'] === 'number' ? (conv['contact_id'] as number) : null;
  const assigneeId = conv['assignee_id'] ?? null;
  const teamId = conv['team_id'] ?? null;
  const sender = pc.contact && pc.contact.id === contactId ? contactPushData(pc.contact) : contactId !== null ? { id: contactId, type: 'contact' } : null;
  return {
    additional_attributes: conv['additional_attributes'] ?? {},
    can_reply: true,
    channel: pc.inbox?.channel_type ?? 'Channel::Api',
    contact_inbox: {
      id: conv['contact_inbox_id'] ?? null,
      contact_id: contactId,
      inbox_id: conv['inbox_id'] ?? null,
    },
    id: conv['id'],
    inbox_id: conv['inbox_id'],
    messages: [],
    labels: conv['labels'] ?? [],
    meta: {
      sender,
      assignee: assigneeId !== null ? { id: assigneeId, type: 'user' } : null,
      assignee_type: assigneeId !== null ? 'User' : null,
      team: teamId !== null ? { id: teamId } : null,
      hmac_verified: false,
    },
    status: conv['status'],
    custom_attributes: conv['custom_attributes'] ?? {},
    snoozed_until: conv['snoozed_until'] ?? null,
    unread_count: 0,
    first_reply_created_at: iso(conv['first_reply_created_at']),
    priority: conv['priority'] ?? null,
    waiting_since: num(conv['waiting_since']),
    agent_last_seen_at: 0,
    contact_last_seen_at: 0,
    last_activity_at: num(conv['last_activity_at']),
    timestamp: num(conv['last_activity_at']),
    created_at: num(conv['created_at']),
    updated_at: Date.now() / 1000,
    account_id: conv['account_id'],
    uuid: conv['uuid'] ?? null,
  };
}

function senderData(msg: Json, pc: PayloadContext): Json | null {
  const id = msg['sender_id'];
  const type = msg['sender_type'];
  if (id === null || id === undefined || !type) return null;
  if (type === 'Contact') {
    if (pc.contact && pc.contact.id === id) {
      const c = pc.contact;
      return { account: { id: c.account_id ?? msg['account_id'], name: pc.accountName }, ...contactPushData(c), avatar: c.avatar_url ?? c.thumbnail ?? '' };
    }
    return { id, type: 'contact' };
  }
  if (type === 'User') return { id, type: 'user' };
  if (type === 'AgentBot') return { id, type: 'agent_bot' };
  return { id, type: String(type).toLowerCase() };
}

/** `message.webhook_data`. */
export function messageData(msg: Json, pc: PayloadContext): Json {
  const conv = (msg['conversation'] as Json | undefined) ?? null;
  const mt = msg['message_type'];
  return {
    account: { id: msg['account_id'], name: pc.accountName },
    additional_attributes: msg['additional_attributes'] ?? {},
    content_attributes: msg['content_attributes'] ?? {},
    content_type: msg['content_type'] ?? 'text',
    content: msg['content'] ?? null,
    conversation: conv ? conversationData(conv, pc) : { id: msg['conversation_id'] },
    created_at: iso(msg['created_at']),
    id: msg['id'],
    inbox: { id: msg['inbox_id'], name: pc.inbox?.name ?? null },
    message_type: typeof mt === 'number' ? (MESSAGE_TYPE_NAMES[mt] ?? mt) : mt,
    private: msg['private'] ?? false,
    sender: senderData(msg, pc),
    source_id: msg['source_id'] ?? null,
  };
}

/** `contact.webhook_data`. */
export function contactData(c: ContactSnapshot, accountName: string | null): Json {
  return {
    account: { id: c.account_id, name: accountName },
    additional_attributes: c.additional_attributes ?? {},
    avatar: c.avatar_url ?? c.thumbnail ?? '',
    custom_attributes: c.custom_attributes ?? {},
    email: c.email ?? null,
    id: c.id,
    identifier: c.identifier ?? null,
    name: c.name ?? null,
    phone_number: c.phone_number ?? null,
    thumbnail: c.thumbnail ?? '',
    blocked: c.blocked ?? false,
  };
}

const INBOX_SECRET_KEYS = /token|secret|password/i;

/** `Inbox::EventDataPresenter#push_data`: the inbox record without its secrets. */
export function inboxData(inbox: Json): Json {
  return Object.fromEntries(Object.entries(inbox).filter(([k]) => !INBOX_SECRET_KEYS.test(k)));
}

/** A conversation event's payload: `conversation.webhook_data + {event[, changed_attributes]}`, plus the account. */
export function conversationPayload(conv: Json, pc: PayloadContext, event: string, changes: Changes | null | undefined, withChanges = false): Json {
  const out: Json = { event, ...conversationData(conv, pc), account: { id: conv['account_id'], name: pc.accountName } };
  if (withChanges) out['changed_attributes'] = changedAttributes(changes);
  return out;
}

/** A message event's payload: `message.webhook_data + {event}`. */
export function messagePayload(msg: Json, pc: PayloadContext, event: string): Json {
  return { event, ...messageData(msg, pc) };
}

/** A contact event's payload: `contact.webhook_data + {event[, changed_attributes]}`. */
export function contactPayload(c: ContactSnapshot, accountName: string | null, event: string, changes: Changes | null | undefined): Json {
  const out: Json = { event, ...contactData(c, accountName) };
  if (event === 'contact_updated') out['changed_attributes'] = changedAttributes(changes);
  return out;
}

/** An inbox event's payload: the inbox without secrets + `{event[, changed_attributes]}`. */
export function inboxPayload(inbox: Json, accountName: string | null, event: string, changes: Changes | null | undefined): Json {
  const out: Json = { event, ...inboxData(inbox), account: { id: inbox['account_id'], name: accountName } };
  if (event === 'inbox_updated') {
    const safe = changes ? Object.fromEntries(Object.entries(changes).filter(([k]) => !INBOX_SECRET_KEYS.test(k))) : null;
    out['changed_attributes'] = changedAttributes(safe);
  }
  return out;
}

/** Typing events: `{event, user, conversation, is_private}`; who typed is not in our events, so `user` is null. */
export function typingPayload(conv: Json, pc: PayloadContext, event: string): Json {
  return { event, user: null, conversation: conversationData(conv, pc), is_private: false, account: { id: conv['account_id'], name: pc.accountName } };
}
