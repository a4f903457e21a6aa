import { contactPushData, conversationData, type Changes } from '@parley/shared';
import type { AgentRecord, BotRecord, ContactSnapshot, InboxInfo, TeamRecord } from '../projections/copies';

/**
 * Chatwoot-shaped webhook payloads (reference Op 15, `app/listeners/webhook_listener.rb`),
 * built from the event snapshots and the records `PayloadSources` gathers. Two families of
 * shapes, as in Chatwoot: `webhook_data` (the top level of message and contact payloads:
 * message `message_type` as a name, `created_at` ISO-8601, user senders `{id, name, email,
 * type}`) and `push_event_data` (inside a conversation: `meta.sender`, `meta.assignee`, the
 * `messages` array with integer `message_type` and unix `created_at`). A conversation's
 * counters are unix seconds; `snoozed_until` and `first_reply_created_at` are ISO-8601.
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
const idOf = (v: unknown): number | null => (typeof v === 'number' ? v : null);

export interface PayloadContext {
  accountId: number;
  accountName: string | null;
  inbox: InboxInfo | null;
  /** The conversation's contact, when known. */
  contact: ContactSnapshot | null;
  /** Users by id: the assignee, message senders, a typist. */
  agents: Map<number, AgentRecord>;
  /** Agent bots by id (message senders). */
  bots: Map<number, BotRecord>;
  /** The conversation's team, when it has one. */
  team: TeamRecord | null;
  /** The conversation's last public, non-activity message (Chatwoot's `messages.chat.last`). */
  lastMessage: Json | null;
}

/** Conversation fields that are timestamps in `changes` (unix seconds there, ISO in Chatwoot's `changed_attributes`). */
const TIME_FIELDS = new Set(['waiting_since', 'first_reply_created_at', 'last_activity_at', 'created_at', 'updated_at']);

/** `[{attr: {previous_value, current_value}}, ...]`, timestamps as ISO-8601 like Chatwoot's `previous_changes`. */
export function changedAttributes(changes: Changes | null | undefined): Json[] | null {
  if (!changes) return null;
  return Object.entries(changes).map(([k, [prev, curr]]) => {
    const t = (v: unknown) => (TIME_FIELDS.has(k) && typeof v === 'number' ? iso(v) : v);
    return { [k]: { previous_value: t(prev), current_value: t(curr) } };
  });
}

/** Chatwoot's `contact.webhook_data` (contact payloads, and a contact as a message's `sender`). */
export function contactData(c: ContactSnapshot, accountId: number, accountName: string | null): Json {
  const { type: _type, ...push } = contactPushData(c);
  return { account: { id: c.account_id ?? accountId, name: accountName }, ...push, avatar: c.avatar_url ?? c.thumbnail ?? '' };
}

/** A message's (or typist's) `sender` as Chatwoot's `webhook_data` of that record. */
function webhookSender(type: unknown, id: number | null, pc: PayloadContext): Json | null {
  if (id === null) return null;
  switch (type) {
    case 'Contact':
    case 'contact':
      return contactData(pc.contact?.id === id ? pc.contact : { id }, pc.accountId, pc.accountName);
    case 'User':
    case 'user': {
      const a = pc.agents.get(id);
      return { id, name: a?.name ?? null, email: a?.email ?? null, type: 'user' };
    }
    case 'AgentBot':
    case 'agent_bot':
      return { id, name: pc.bots.get(id)?.name ?? null, type: 'agent_bot' };
    default:
      return null;
  }
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
    sender: webhookSender(msg['sender_type'], idOf(msg['sender_id']), pc),
    source_id: msg['source_id'] ?? null,
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
export function contactPayload(c: ContactSnapshot, accountId: number, accountName: string | null, event: string, changes: Changes | null | undefined): Json {
  const out: Json = { event, ...contactData(c, accountId, accountName) };
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

/** Typing events: `{event, user, conversation, is_private}`, `user` the typist's `webhook_data` (the event's actor). */
export function typingPayload(conv: Json, pc: PayloadContext, event: string, typist: { type: string; id: number } | null): Json {
  return {
    event,
    user: typist ? webhookSender(typist.type, typist.id, pc) : null,
    conversation: conversationData(conv, pc),
    is_private: conv['is_private'] === true,
    account: { id: conv['account_id'], name: pc.accountName },
  };
}
