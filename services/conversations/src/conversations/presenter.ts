import { unixSeconds, type Executor, type RequestContext } from '@parley/shared';
import type { Agent, AgentBot, ContactSnapshot, Team } from '../common/peers';
import { priorityName, type ConversationRow, type MessageRow } from '../common/rows';
import { userIdOf } from '../common/access';
import type { Projections } from '../projections/store';
import { conversationExtras, type ConversationExtras } from '../messages/repository';

/** Contacts, agents, teams and bots a batch of conversations and messages refer to. */
export interface Refs {
  contacts: Map<number, ContactSnapshot>;
  agents: Map<number, Agent>;
  teams: Map<number, Team>;
  bots: Map<number, AgentBot>;
  /** Teams the caller belongs to (for `meta.team.is_member`). */
  myTeams: Set<number>;
}

export async function loadRefs(
  db: Executor,
  projections: Projections,
  ctx: RequestContext,
  accountId: number,
  conversations: ConversationRow[],
  messages: MessageRow[],
): Promise<Refs> {
  const contactIds = [...conversations.map((c) => c.contact_id), ...messages.filter((m) => m.sender_type === 'Contact').map((m) => m.sender_id)];
  const agentIds = [...conversations.map((c) => c.assignee_id), ...messages.filter((m) => m.sender_type === 'User').map((m) => m.sender_id)];
  const teamIds = conversations.map((c) => c.team_id);
  const botIds = messages.filter((m) => m.sender_type === 'AgentBot').map((m) => m.sender_id);
  const userId = userIdOf(ctx);
  const [contacts, agents, teams, bots, mine] = await Promise.all([
    projections.contacts(ctx, accountId, contactIds),
    projections.agents(ctx, accountId, agentIds),
    projections.teams(ctx, accountId, teamIds),
    projections.bots(ctx, accountId, botIds),
    userId === null
      ? Promise.resolve({ rows: [] as Array<{ team_id: number }> })
      : db.query<{ team_id: number }>('SELECT team_id FROM team_member_projections WHERE account_id = $1 AND user_id = $2', [accountId, userId]),
  ]);
  return { contacts, agents, teams, bots, myTeams: new Set(mine.rows.map((r) => r.team_id)) };
}

/** Chatwoot's contact partial (`meta.sender`). */
export function contactPartial(c: ContactSnapshot | undefined, id: number | null): Record<string, unknown> {
  return {
    additional_attributes: c?.additional_attributes ?? {},
    availability_status: c?.availability_status ?? 'offline',
    email: c?.email ?? null,
    id: c?.id ?? id,
    name: c?.name ?? '',
    phone_number: c?.phone_number ?? null,
    blocked: c?.blocked ?? false,
    identifier: c?.identifier ?? null,
    thumbnail: c?.thumbnail ?? c?.avatar_url ?? '',
    custom_attributes: c?.custom_attributes ?? {},
    last_activity_at: c?.last_activity_at ?? 0,
    created_at: c?.created_at ?? 0,
  };
}

/** A message's `sender` (Chatwoot's push_event_data of the contact, user or bot). */
export function senderData(m: MessageRow, refs: Refs): Record<string, unknown> | null {
  if (m.sender_id === null || m.sender_type === null) return null;
  if (m.sender_type === 'Contact') {
    const c = refs.contacts.get(m.sender_id);
    return {
      additional_attributes: c?.additional_attributes ?? {},
      custom_attributes: c?.custom_attributes ?? {},
      email: c?.email ?? null,
      id: m.sender_id,
      identifier: c?.identifier ?? null,
      name: c?.name ?? '',
      phone_number: c?.phone_number ?? null,
      thumbnail: c?.thumbnail ?? '',
      blocked: c?.blocked ?? false,
      type: 'contact',
    };
  }
  if (m.sender_type === 'User') {
    const a = refs.agents.get(m.sender_id);
    return {
      id: m.sender_id,
      name: a?.name ?? '',
      available_name: (a?.['available_name'] as string | undefined) ?? a?.name ?? '',
      avatar_url: (a?.['thumbnail'] as string | undefined) ?? '',
      type: 'user',
      availability_status: (a?.['availability_status'] as string | undefined) ?? 'offline',
      thumbnail: (a?.['thumbnail'] as string | undefined) ?? '',
    };
  }
  const b = refs.bots.get(m.sender_id);
  return { id: m.sender_id, name: b?.name ?? '', avatar_url: b?.thumbnail ?? '', type: m.sender_type === 'AgentBot' ? 'agent_bot' : 'captain_assistant' };
}

function attachmentData(m: MessageRow): Array<Record<string, unknown>> {
  return m.attachments.map((a) => ({
    id: a.id,
    message_id: Number(m.id),
    account_id: m.account_id,
    file_type: a.file_type,
    extension: a.extension,
    data_url: null,
    thumb_url: null,
    file_size: a.file_size,
    fallback_title: a.fallback_title,
  }));
}

/** Chatwoot's Message#push_event_data: the message object of the account API. */
export function messageData(m: MessageRow, conv: ConversationRow, refs: Refs, unreadCount = 0, echoId?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: Number(m.id),
    content: m.content,
    account_id: m.account_id,
    inbox_id: m.inbox_id,
    conversation_id: conv.display_id,
    message_type: m.message_type,
    created_at: unixSeconds(m.created_at),
    updated_at: m.updated_at.toISOString(),
    private: m.private,
    status: m.status,
    source_id: m.source_id,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    sender_type: m.sender_type,
    sender_id: m.sender_id,
    external_source_ids: m.external_source_ids,
    additional_attributes: m.additional_attributes,
    processed_message_content: m.content,
    sentiment: {},
    conversation: {
      assignee_id: conv.assignee_id,
      unread_count: unreadCount,
      last_activity_at: unixSeconds(conv.last_activity_at),
      contact_inbox: { source_id: conv.contact_inbox_source_id },
    },
  };
  const sender = senderData(m, refs);
  if (sender) out['sender'] = sender;
  if (m.attachments.length > 0) out['attachments'] = attachmentData(m);
  if (echoId) out['echo_id'] = echoId;
  return out;
}

function agentData(a: Agent | undefined, id: number): Record<string, unknown> {
  if (a) return { ...a };
  return { id, account_id: null, availability_status: 'offline', auto_offline: true, confirmed: true, email: null, provider: 'email', available_name: '', name: '', role: 'agent', thumbnail: '', custom_role_id: null };
}

/** The account API conversation object (SPEC "Conversation" + Chatwoot's `meta`). */
export function conversationData(c: ConversationRow, extras: ConversationExtras | undefined, refs: Refs): Record<string, unknown> {
  const contact = c.contact_id === null ? undefined : refs.contacts.get(c.contact_id);
  const meta: Record<string, unknown> = {
    sender: contactPartial(contact, c.contact_id),
    channel: 'Channel::Api',
    assignee: c.assignee_id === null ? null : agentData(refs.agents.get(c.assignee_id), c.assignee_id),
    hmac_verified: c.hmac_verified,
  };
  if (c.assignee_id !== null) meta['assignee_type'] = 'User';
  if (c.team_id !== null) {
    const t = refs.teams.get(c.team_id);
    meta['team'] = {
      id: c.team_id,
      name: t?.name ?? '',
      description: t?.description ?? null,
      allow_auto_assign: t?.allow_auto_assign ?? false,
      account_id: c.account_id,
      is_member: refs.myTeams.has(c.team_id),
    };
  }
  const unread = extras?.unread_count ?? 0;
  const last = extras?.last_message ?? null;
  const lastNonActivity = extras?.last_non_activity_message ?? null;
  return {
    meta,
    id: c.display_id,
    messages: last ? [messageData(last, c, refs, unread)] : [],
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
    muted: c.muted || (contact?.blocked ?? false),
    snoozed_until: c.snoozed_until ? unixSeconds(c.snoozed_until) : null,
    status: c.status,
    created_at: unixSeconds(c.created_at),
    updated_at: c.updated_at.getTime() / 1000,
    timestamp: unixSeconds(c.created_at),
    first_reply_created_at: unixSeconds(c.first_reply_created_at),
    unread_count: unread,
    last_non_activity_message: lastNonActivity ? messageData(lastNonActivity, c, refs, unread) : null,
    last_activity_at: unixSeconds(c.last_activity_at),
    priority: priorityName(c.priority),
    waiting_since: unixSeconds(c.waiting_since),
    sla_policy_id: null,
    applied_sla: {},
    sla_events: [],
  };
}

/** Presents a batch of conversations with one query for their messages and one per referenced kind. */
export async function presentConversations(db: Executor, projections: Projections, ctx: RequestContext, accountId: number, rows: ConversationRow[]): Promise<Array<Record<string, unknown>>> {
  const extras = await conversationExtras(db, rows.map((r) => r.id));
  const msgs: MessageRow[] = [];
  for (const e of extras.values()) {
    if (e.last_message) msgs.push(e.last_message);
    if (e.last_non_activity_message) msgs.push(e.last_non_activity_message);
  }
  const refs = await loadRefs(db, projections, ctx, accountId, rows, msgs);
  return rows.map((r) => conversationData(r, extras.get(r.id), refs));
}

export async function presentConversation(db: Executor, projections: Projections, ctx: RequestContext, row: ConversationRow): Promise<Record<string, unknown>> {
  const [one] = await presentConversations(db, projections, ctx, row.account_id, [row]);
  return one as Record<string, unknown>;
}

