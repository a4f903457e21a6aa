/**
 * Chatwoot's `push_event_data` shapes (a conversation's `meta.sender` and `meta.assignee`, the
 * `messages` items with integer `message_type` and unix `created_at`, the conversation's
 * `EventDataPresenter#push_data`), built from the event snapshots and the copies a consumer keeps
 * of their senders. Webhook payloads (automation) and the realtime channel (`/cable`) both send
 * them; the records are structural so each service passes its own copies. A conversation's
 * counters are unix seconds; `snoozed_until` and `first_reply_created_at` are ISO-8601.
 */

type Json = Record<string, unknown>;

/** A contact as far as push data reads it (`ContactSnapshot` or a service's copy). */
export interface PushContact {
  id: number;
  account_id?: number;
  name?: string | null;
  email?: string | null;
  phone_number?: string | null;
  identifier?: string | null;
  thumbnail?: string | null;
  avatar_url?: string | null;
  additional_attributes?: Record<string, unknown> | null;
  custom_attributes?: Record<string, unknown> | null;
  blocked?: boolean;
}

/** A user (agent) as far as push data reads it. */
export interface PushAgent {
  id: number;
  name?: string | null;
  available_name?: string | null;
  availability_status?: string | null;
  thumbnail?: string | null;
}

export interface PushBot {
  id: number;
  name?: string | null;
  thumbnail?: string | null;
}

/** What push data needs beside the snapshot: the records it names. */
export interface PushContext {
  inbox: { channel_type?: string | null } | null;
  /** The conversation's contact, when known. */
  contact: PushContact | null;
  /** Users by id: the assignee, message senders, a typist. */
  agents: Map<number, PushAgent>;
  /** Agent bots by id (message senders). */
  bots: Map<number, PushBot>;
  /** The conversation's team, when it has one. */
  team: { id: number; name?: string | null } | null;
  /** The conversation's last public, non-activity message (Chatwoot's `messages.chat.last`). */
  lastMessage: Json | null;
  /** Incoming messages after the agents' `agent_last_seen_at`, at most 10 (Chatwoot's `unread_incoming_messages.count`); 0 when not known. */
  unreadCount?: number;
}

const iso = (unix: unknown): string | null => (typeof unix === 'number' && unix > 0 ? new Date(unix * 1000).toISOString() : null);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** Unix seconds of a unix or ISO-8601 time; 0 when absent. */
const unixOf = (v: unknown): number => (typeof v === 'string' ? Math.floor(Date.parse(v) / 1000) || 0 : num(v));
const idOf = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** Chatwoot's `contact.push_event_data` (a conversation's `meta.sender`). */
export function contactPushData(c: PushContact): Json {
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

/** Chatwoot's `user.push_event_data` (`meta.assignee`, senders inside `messages`). */
export function userPushData(id: number, a: PushAgent | undefined): Json {
  const avatar = a?.thumbnail ?? '';
  return { id, name: a?.name ?? null, available_name: a?.available_name ?? a?.name ?? null, avatar_url: avatar, type: 'user', availability_status: a?.availability_status ?? null, thumbnail: avatar };
}

/** Chatwoot's `agent_bot.push_event_data`. */
export function botPushData(id: number, b: PushBot | undefined): Json {
  return { id, name: b?.name ?? null, avatar_url: b?.thumbnail ?? '', type: 'agent_bot' };
}

/** A message's sender as push data (inside `messages`), or null (automation and system messages have none). */
function pushSender(msg: Json, pc: PushContext): Json | null {
  const id = idOf(msg['sender_id']);
  if (id === null) return null;
  switch (msg['sender_type']) {
    case 'Contact':
      return contactPushData(pc.contact?.id === id ? pc.contact : { id });
    case 'User':
      return userPushData(id, pc.agents.get(id));
    case 'AgentBot':
      return botPushData(id, pc.bots.get(id));
    default:
      return null;
  }
}

/** Chatwoot's `message.push_event_data`: one item of a conversation's `messages`. */
export function messagePushData(msg: Json, conv: Json, pc: PushContext): Json {
  const out: Json = {
    id: msg['id'],
    content: msg['content'] ?? null,
    account_id: msg['account_id'] ?? conv['account_id'],
    inbox_id: msg['inbox_id'] ?? conv['inbox_id'],
    conversation_id: msg['conversation_id'] ?? conv['id'],
    message_type: msg['message_type'],
    created_at: num(msg['created_at']),
    updated_at: msg['updated_at'] ?? iso(msg['created_at']),
    private: msg['private'] ?? false,
    status: msg['status'] ?? null,
    source_id: msg['source_id'] ?? null,
    content_type: msg['content_type'] ?? 'text',
    content_attributes: msg['content_attributes'] ?? {},
    sender_type: msg['sender_type'] ?? null,
    sender_id: msg['sender_id'] ?? null,
    external_source_ids: msg['external_source_ids'] ?? {},
    additional_attributes: msg['additional_attributes'] ?? {},
    processed_message_content: msg['content'] ?? null,
    sentiment: {},
    conversation: { assignee_id: conv['assignee_id'] ?? null, unread_count: pc.unreadCount ?? 0, last_activity_at: num(conv['last_activity_at']) },
  };
  const sender = pushSender(msg, pc);
  if (sender) out['sender'] = sender;
  return out;
}

/** `conversation.webhook_data` (Conversations::EventDataPresenter#push_data), plus the conversation's `account_id` and `uuid`. */
export function conversationData(conv: Json, pc: PushContext): Json {
  const contactId = idOf(conv['contact_id']);
  const assigneeId = idOf(conv['assignee_id']);
  const teamId = idOf(conv['team_id']);
  const sameConversation = pc.lastMessage !== null && pc.lastMessage['conversation_id'] === conv['id'];
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
    messages: sameConversation ? [messagePushData(pc.lastMessage as Json, conv, pc)] : [],
    labels: conv['labels'] ?? [],
    meta: {
      sender: contactId === null ? null : contactPushData(pc.contact?.id === contactId ? pc.contact : { id: contactId }),
      assignee: assigneeId === null ? null : userPushData(assigneeId, pc.agents.get(assigneeId)),
      assignee_type: assigneeId !== null ? 'User' : null,
      team: teamId === null ? null : { id: teamId, name: pc.team?.id === teamId ? (pc.team.name ?? null) : null },
      hmac_verified: false,
    },
    status: conv['status'],
    custom_attributes: conv['custom_attributes'] ?? {},
    snoozed_until: conv['snoozed_until'] ?? null,
    unread_count: pc.unreadCount ?? 0,
    first_reply_created_at: iso(conv['first_reply_created_at']),
    priority: conv['priority'] ?? null,
    waiting_since: num(conv['waiting_since']),
    agent_last_seen_at: unixOf(conv['agent_last_seen_at']),
    contact_last_seen_at: unixOf(conv['contact_last_seen_at']),
    last_activity_at: num(conv['last_activity_at']),
    timestamp: num(conv['last_activity_at']),
    created_at: num(conv['created_at']),
    updated_at: Date.now() / 1000,
    account_id: conv['account_id'],
    uuid: conv['uuid'] ?? null,
  };
}

