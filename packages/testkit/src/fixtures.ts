import { randomBytes } from 'node:crypto';
import {
  accountContract,
  agentBotContract,
  agentBotEventContract,
  agentContract,
  contactContract,
  contactInboxContract,
  contactInboxEventContract,
  contactMergedContract,
  conversationContract,
  eventCatalogue,
  inboxContract,
  inboxMemberContract,
  messageContract,
  teamContract,
  teamMemberContract,
  userContract,
  type EventData,
  type EventType,
  type Account,
  type Agent,
  type AgentBot,
  type AgentBotEvent,
  type ContactInbox,
  type ContactSnapshot,
  type ConversationSnapshot,
  type Inbox,
  type WorkingHour,
  type MessageSnapshot,
  type Team,
  type User,
} from '@parley/shared';

/**
 * Records as their owners publish them, for tests: each is parsed by its contract
 * (`@parley/shared` contracts), so a fixture with a misspelt or missing field fails where it is
 * made instead of passing a record no owner would send.
 */
const now = () => Math.floor(Date.now() / 1000);

export function accountFixture(id: number, fields: Partial<Account> = {}): Account {
  return accountContract.parse({ id, name: `Account ${id}`, status: 'active', features: {}, locale: 'en', ...fields });
}

export function userFixture(id: number, fields: Partial<User> = {}): User {
  return userContract.parse({ id, name: `Agent ${id}`, display_name: null, email: `agent${id}@example.com`, thumbnail: '', ...fields });
}

/** The gateway's `Agent`, as `agent.*` events and the internal API carry it. */
export function agentSnapshot(accountId: number, id: number, fields: Partial<Agent> = {}): Agent {
  return agentContract.parse({
    id,
    account_id: accountId,
    availability_status: 'online',
    auto_offline: true,
    confirmed: true,
    email: `agent${id}@example.com`,
    provider: 'email',
    available_name: `Agent ${id}`,
    name: `Agent ${id}`,
    role: 'agent',
    thumbnail: '',
    custom_role_id: null,
    ...fields,
  });
}

export function teamFixture(accountId: number, id: number, fields: Partial<Team> = {}): Team {
  return teamContract.parse({ id, name: `Team ${id}`, description: null, allow_auto_assign: true, account_id: accountId, ...fields });
}

/** An agent bot as the gateway's internal API answers it. */
export function agentBotFixture(id: number, fields: Partial<AgentBot> = {}): AgentBot {
  return agentBotContract.parse({ id, name: `Bot ${id}`, description: null, thumbnail: '', outgoing_url: null, bot_type: 'webhook', ...fields });
}

/** An agent bot as `agent_bot.*` events carry it. */
export function agentBotEventFixture(accountId: number | null, id: number, fields: Partial<AgentBotEvent> = {}): AgentBotEvent {
  return agentBotEventContract.parse({ id, account_id: accountId, name: `Bot ${id}`, description: null, outgoing_url: null, ...fields });
}

export function inboxFixture(accountId: number, id: number, fields: Partial<Inbox> = {}): Inbox {
  return inboxContract.parse({
    id,
    account_id: accountId,
    name: `API inbox ${id}`,
    channel_type: 'Channel::Api',
    channel_id: id,
    identifier: randomBytes(12).toString('base64url'),
    hmac_token: randomBytes(16).toString('hex'),
    hmac_mandatory: false,
    webhook_url: null,
    avatar_url: '',
    provider: null,
    working_hours_enabled: false,
    timezone: 'UTC',
    working_hours: defaultWorkingHours(),
    ...fields,
  });
}

/** Chatwoot's default week of a new inbox: Monday to Friday 09:00-17:00, the weekend closed. */
export function defaultWorkingHours(): WorkingHour[] {
  return [0, 1, 2, 3, 4, 5, 6].map((d) =>
    d === 0 || d === 6
      ? { day_of_week: d, closed_all_day: true, open_hour: null, open_minutes: null, close_hour: null, close_minutes: null, open_all_day: false }
      : { day_of_week: d, closed_all_day: false, open_hour: 9, open_minutes: 0, close_hour: 17, close_minutes: 0, open_all_day: false },
  );
}

export function conversationFixture(accountId: number, id: number, fields: Partial<ConversationSnapshot> = {}): ConversationSnapshot {
  return conversationContract.parse({
    id,
    display_id: id,
    uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    account_id: accountId,
    inbox_id: 1,
    status: 'open',
    priority: null,
    labels: [],
    assignee_id: null,
    team_id: null,
    contact_id: 1,
    contact_inbox_id: 1,
    snoozed_until: null,
    custom_attributes: {},
    additional_attributes: {},
    muted: false,
    waiting_since: null,
    first_reply_created_at: null,
    last_activity_at: now(),
    created_at: now(),
    ...fields,
  });
}

let messageSeq = 1000;
/** A message of the conversation, carrying it as `conversation`. */
export function messageFixture(conv: ConversationSnapshot, fields: Partial<MessageSnapshot> = {}): MessageSnapshot {
  messageSeq += 1;
  return messageContract.parse({
    id: messageSeq,
    account_id: conv.account_id,
    inbox_id: conv.inbox_id,
    conversation_id: conv.id,
    message_type: 0,
    content: 'hello',
    content_type: 'text',
    content_attributes: {},
    private: false,
    status: 'sent',
    sender_type: 'Contact',
    sender_id: conv.contact_id,
    source_id: null,
    created_at: now(),
    conversation: { ...conv },
    ...fields,
  });
}

export function contactFixture(accountId: number, id: number, fields: Partial<ContactSnapshot> = {}): ContactSnapshot {
  return contactContract.parse({
    id,
    account_id: accountId,
    name: `Contact ${id}`,
    email: `c${id}@example.com`,
    phone_number: null,
    identifier: null,
    thumbnail: '',
    avatar_url: null,
    additional_attributes: {},
    custom_attributes: {},
    blocked: false,
    availability_status: 'offline',
    last_activity_at: null,
    created_at: now(),
    labels: [],
    updated_at: now(),
    ...fields,
  });
}

export function contactInboxFixture(id: number, contactId: number, inboxId: number, fields: Partial<ContactInbox> = {}): ContactInbox {
  return contactInboxContract.parse({ id, contact_id: contactId, inbox_id: inboxId, source_id: randomBytes(16).toString('hex'), hmac_verified: false, pubsub_token: randomBytes(18).toString('hex'), ...fields });
}

/**
 * A valid `data` for any event type (its contract's fixture), for tests that send every type:
 * records whose contract is still loose get `{id, account_id, name, description}`.
 */
export function eventFixture<T extends EventType>(type: T, accountId: number, id: number): EventData<T> {
  const schema = eventCatalogue[type] as unknown;
  const out = (() => {
    if (schema === accountContract) return accountFixture(id);
    if (schema === userContract) return userFixture(id);
    if (schema === agentContract) return agentSnapshot(accountId, id);
    if (schema === agentBotEventContract) return agentBotEventFixture(accountId, id);
    if (schema === teamContract) return teamFixture(accountId, id);
    if (schema === teamMemberContract) return { id, team_id: 1, user_id: 2 };
    if (schema === inboxContract) return inboxFixture(accountId, id);
    if (schema === inboxMemberContract) return { id, inbox_id: 1, user_id: 2 };
    if (schema === conversationContract) return conversationFixture(accountId, id);
    if (schema === messageContract) return messageFixture(conversationFixture(accountId, 1), { id });
    if (schema === contactContract) return contactFixture(accountId, id);
    if (schema === contactMergedContract) return { ...contactFixture(accountId, id), merged_contact_id: id + 1 };
    if (schema === contactInboxEventContract) return { ...contactInboxFixture(id, 1, 1), account_id: accountId };
    return { id, account_id: accountId, name: `thing ${id}`, description: null };
  })();
  return (eventCatalogue[type] as { parse(v: unknown): unknown }).parse(out) as EventData<T>;
}
