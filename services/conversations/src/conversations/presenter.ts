import { unixSeconds, type Executor, type RequestContext } from '@parley/shared';
import type { Agent, AgentBot, ContactSnapshot, Team } from '../common/peers';
import { priorityName, type ConversationRow, type MessageRow } from '../common/rows';
import { userIdOf } from '../common/access';
import { agentPartial } from '../common/agents';
import type { Projections } from '../projections/store';
import { conversationExtras, type ConversationExtras } from '../messages/repository';
import type { AttachmentResponse, MessageResponse, SenderResponse } from '../messages/schemas';
import type { ContactPartialResponse, ConversationResponse } from './schemas';

/** Contacts, agents, teams and bots a batch of conversations and messages refer to. */
export interface Refs {
  contacts: Map<number, ContactSnapshot>;
  agents: Map<number, Agent>;
  teams: Map<number, Team>;
  bots: Map<number, AgentBot>;
  /** Teams the caller belongs to (for `meta.team.is_member`). */
  myTeams: Set<number>;
}

/** What the list's page statement read besides its rows: the caller's teams and the copies the page names. */
export interface KnownRefs {
  myTeams: Set<number>;
  /** Projection rows (tombstones included) of some of the copies the page names; the rest are read through. */
  copies: Array<{ kind: string; id: number; data: unknown }>;
}

/** The copies that presenting `conversations` and `messages` names: contacts, agents (assignees, senders), teams and bots. */
export function wantedRefs(conversations: ReadonlyArray<Pick<ConversationRow, 'contact_id' | 'assignee_id' | 'team_id'>>, messages: ReadonlyArray<Pick<MessageRow, 'sender_type' | 'sender_id'>>) {
  const sentBy = (type: string) => messages.filter((m) => m.sender_type === type).map((m) => m.sender_id);
  return {
    contact: [...conversations.map((c) => c.contact_id), ...sentBy('Contact')],
    agent: [...conversations.map((c) => c.assignee_id), ...sentBy('User')],
    team: conversations.map((c) => c.team_id),
    agent_bot: sentBy('AgentBot'),
  };
}

export async function loadRefs(
  db: Executor,
  projections: Projections,
  ctx: RequestContext,
  accountId: number,
  conversations: ConversationRow[],
  messages: MessageRow[],
  /** The caller's teams and the copies when the caller's query read them already (the list). */
  known?: KnownRefs,
): Promise<Refs> {
  const wanted = wantedRefs(conversations, messages);
  const userId = userIdOf(ctx);
  // The caller's teams matter only for `meta.team.is_member`, so only when a conversation has a team.
  const teamsShown = conversations.some((c) => c.team_id !== null);
  const [refs, mine] = await Promise.all([
    known ? projections.manyFrom(ctx, accountId, wanted, known.copies) : projections.many(ctx, accountId, wanted),
    userId === null || !teamsShown || known
      ? Promise.resolve({ rows: [...(known?.myTeams ?? [])].map((team_id) => ({ team_id })) })
      : db.query<{ team_id: number }>('SELECT team_id FROM team_member_projections WHERE account_id = $1 AND user_id = $2', [accountId, userId]),
  ]);
  return { contacts: refs.contact, agents: refs.agent, teams: refs.team, bots: refs.agent_bot, myTeams: new Set(mine.rows.map((r) => r.team_id)) };
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Chatwoot's contact partial (`meta.sender`). */
export function contactPartial(c: ContactSnapshot | undefined, id: number | null): ContactPartialResponse {
  return {
    additional_attributes: obj(c?.additional_attributes),
    availability_status: str(c?.availability_status, 'offline'),
    email: strOrNull(c?.email),
    id: c?.id ?? id ?? 0,
    name: str(c?.name),
    phone_number: strOrNull(c?.phone_number),
    blocked: c?.blocked === true,
    identifier: strOrNull(c?.identifier),
    thumbnail: str(c?.thumbnail, str(c?.avatar_url)),
    custom_attributes: obj(c?.custom_attributes),
    last_activity_at: typeof c?.last_activity_at === 'number' ? c.last_activity_at : 0,
    created_at: typeof c?.created_at === 'number' ? c.created_at : 0,
  };
}

/** A message's `sender` (Chatwoot's push_event_data of the contact, user or bot). */
export function senderData(m: MessageRow, refs: Refs): SenderResponse | null {
  if (m.sender_id === null || m.sender_type === null) return null;
  if (m.sender_type === 'Contact') {
    const c = refs.contacts.get(m.sender_id);
    const thumbnail = str(c?.thumbnail);
    // Chatwoot's contact push data, plus the public-profile fields SPEC's public sender lists.
    return {
      additional_attributes: obj(c?.additional_attributes),
      custom_attributes: obj(c?.custom_attributes),
      email: strOrNull(c?.email),
      id: m.sender_id,
      identifier: strOrNull(c?.identifier),
      name: str(c?.name),
      phone_number: strOrNull(c?.phone_number),
      thumbnail,
      avatar_url: thumbnail,
      available_name: str(c?.name),
      availability_status: str(c?.availability_status, 'offline'),
      created_at: typeof c?.created_at === 'number' ? new Date(c.created_at * 1000).toISOString() : '',
      blocked: c?.blocked === true,
      type: 'contact',
    };
  }
  if (m.sender_type === 'User') {
    const a = refs.agents.get(m.sender_id);
    return {
      id: m.sender_id,
      name: str(a?.name),
      available_name: str(a?.['available_name'], str(a?.name)),
      avatar_url: str(a?.['thumbnail']),
      type: 'user',
      availability_status: str(a?.['availability_status'], 'offline'),
      thumbnail: str(a?.['thumbnail']),
    };
  }
  const b = refs.bots.get(m.sender_id);
  const avatar = str(b?.thumbnail);
  // A bot is always there to answer.
  return {
    id: m.sender_id,
    name: str(b?.name),
    available_name: str(b?.name),
    avatar_url: avatar,
    thumbnail: avatar,
    availability_status: 'online',
    type: m.sender_type === 'AgentBot' ? 'agent_bot' : 'captain_assistant',
  };
}

/** Where an attachment's bytes can be fetched: through the account API, or the public API for contacts. */
export type AttachmentBase = (messageId: number, attachmentId: number) => string;

export function accountAttachmentUrl(accountId: number, displayId: number): AttachmentBase {
  return (m, a) => `/api/v1/accounts/${accountId}/conversations/${displayId}/messages/${m}/attachments/${a}`;
}

export function attachmentData(m: MessageRow, url: AttachmentBase): AttachmentResponse[] {
  return m.attachments.map((a) => ({
    id: a.id,
    message_id: Number(m.id),
    account_id: m.account_id,
    file_type: a.file_type,
    extension: a.extension,
    data_url: url(Number(m.id), a.id),
    thumb_url: a.file_type === 'image' ? url(Number(m.id), a.id) : '',
    file_size: a.file_size,
    width: a.width ?? null,
    height: a.height ?? null,
    fallback_title: a.fallback_title,
    transcribed_text: null,
    coordinates_lat: null,
    coordinates_long: null,
    meta: {},
  }));
}

/** Chatwoot's Message#push_event_data: the message object of the account API. */
export function messageData(m: MessageRow, conv: ConversationRow, refs: Refs, unreadCount = 0, echoId?: string): MessageResponse {
  const out: MessageResponse = {
    id: Number(m.id),
    content: m.content,
    account_id: m.account_id,
    inbox_id: m.inbox_id,
    conversation_id: conv.display_id,
    message_type: m.message_type,
    created_at: unixSeconds(m.created_at),
    updated_at: m.updated_at.toISOString(),
    private: m.private,
    status: m.status as MessageResponse['status'],
    source_id: m.source_id,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    sender_type: m.sender_type,
    sender_id: m.sender_id,
    external_source_ids: m.external_source_ids,
    additional_attributes: m.additional_attributes,
    processed_message_content: m.content,
    sentiment: {},
    // SPEC names a single `attachment` (the first file); Chatwoot's `attachments` holds them all.
    attachment: null,
    conversation: {
      assignee_id: conv.assignee_id,
      unread_count: unreadCount,
      last_activity_at: unixSeconds(conv.last_activity_at),
      contact_inbox: { source_id: conv.contact_inbox_source_id },
    },
  };
  const sender = senderData(m, refs);
  if (sender) out.sender = sender;
  if (m.attachments.length > 0) {
    out.attachments = attachmentData(m, accountAttachmentUrl(conv.account_id, conv.display_id));
    out.attachment = out.attachments[0] ?? null;
  }
  if (echoId) out.echo_id = echoId;
  return out;
}

/** The account API conversation object (SPEC "Conversation" + Chatwoot's `meta`). */
export function conversationData(c: ConversationRow, extras: ConversationExtras | undefined, refs: Refs): ConversationResponse {
  const contact = c.contact_id === null ? undefined : refs.contacts.get(c.contact_id);
  const meta: ConversationResponse['meta'] = {
    sender: contactPartial(contact, c.contact_id),
    channel: 'Channel::Api',
    assignee: c.assignee_id === null ? null : agentPartial(refs.agents.get(c.assignee_id), c.assignee_id),
    hmac_verified: c.hmac_verified,
  };
  if (c.assignee_id !== null) meta.assignee_type = 'User';
  if (c.team_id !== null) {
    const t = refs.teams.get(c.team_id);
    meta.team = {
      id: c.team_id,
      name: str(t?.name),
      description: strOrNull(t?.description),
      allow_auto_assign: t?.allow_auto_assign === true,
      account_id: c.account_id,
      is_member: refs.myTeams.has(c.team_id),
    };
  }
  const unread = extras?.unread_count ?? 0;
  const last = extras?.last_message ?? null;
  const lastNonActivity = extras?.last_non_activity_message ?? null;
  const lastData = last ? messageData(last, c, refs, unread) : null;
  return {
    meta,
    id: c.display_id,
    messages: lastData ? [lastData] : [],
    account_id: c.account_id,
    uuid: c.uuid,
    additional_attributes: c.additional_attributes,
    agent_last_seen_at: unixSeconds(c.agent_last_seen_at),
    assignee_last_seen_at: unixSeconds(c.assignee_last_seen_at),
    can_reply: true,
    contact_last_seen_at: unixSeconds(c.contact_last_seen_at),
    custom_attributes: c.custom_attributes,
    inbox_id: c.inbox_id,
    labels: c.labels,
    muted: c.muted || contact?.blocked === true,
    snoozed_until: c.snoozed_until ? unixSeconds(c.snoozed_until) : null,
    status: c.status,
    created_at: unixSeconds(c.created_at),
    updated_at: c.updated_at.getTime() / 1000,
    // SPEC: the creation time (Chatwoot sends last_activity_at here).
    timestamp: unixSeconds(c.created_at),
    first_reply_created_at: unixSeconds(c.first_reply_created_at),
    unread_count: unread,
    // Usually the last message itself (extrasOf): its object is presented once, sent in both places.
    last_non_activity_message: lastNonActivity === null ? null : lastNonActivity === last ? lastData : messageData(lastNonActivity, c, refs, unread),
    last_activity_at: unixSeconds(c.last_activity_at),
    priority: priorityName(c.priority),
    waiting_since: unixSeconds(c.waiting_since),
    sla_policy_id: null,
    applied_sla: {},
    sla_events: [],
  };
}

/** Presents a batch of conversations with one query for their messages and one for the copies they name. */
export async function presentConversations(
  db: Executor,
  projections: Projections,
  ctx: RequestContext,
  accountId: number,
  rows: ConversationRow[],
  /** The rows' extras, the caller's teams and the copies, when the query that found the rows read them too (the list). */
  known?: KnownRefs & { extras: Map<string, ConversationExtras> },
): Promise<ConversationResponse[]> {
  const extras = known?.extras ?? (await conversationExtras(db, rows.map((r) => r.id)));
  const msgs: MessageRow[] = [];
  for (const e of extras.values()) {
    if (e.last_message) msgs.push(e.last_message);
    if (e.last_non_activity_message) msgs.push(e.last_non_activity_message);
  }
  const refs = await loadRefs(db, projections, ctx, accountId, rows, msgs, known);
  return rows.map((r) => conversationData(r, extras.get(r.id), refs));
}

export async function presentConversation(db: Executor, projections: Projections, ctx: RequestContext, row: ConversationRow): Promise<ConversationResponse> {
  const [one] = await presentConversations(db, projections, ctx, row.account_id, [row]);
  return one as ConversationResponse;
}

/** Messages of one conversation, with their senders. */
export async function presentMessages(db: Executor, projections: Projections, ctx: RequestContext, conv: ConversationRow, messages: MessageRow[]): Promise<MessageResponse[]> {
  const refs = await loadRefs(db, projections, ctx, conv.account_id, [], messages);
  return messages.map((m) => messageData(m, conv, refs));
}
