import {
  contactPushData, conversationData, messagePushData, userPushData,
  type ConversationSnapshot, type Executor, type MessageSnapshot, type ProjectionKit, type PushAgent, type PushContext,
} from '@parley/shared';

type Json = Record<string, unknown>;

/**
 * Chatwoot's push data for the channel (`Message#push_event_data`, the conversation's
 * `EventDataPresenter#push_data`, contact and user push data), from the event snapshot and the
 * copies this service keeps of the records they name (read through to their owners on a miss;
 * an owner that cannot answer leaves a record by id, never a failed delivery).
 */
export class PushPayloads {
  constructor(private readonly projections: ProjectionKit) {}

  private async context(db: Executor, conv: ConversationSnapshot, extra: { users?: number[]; bots?: number[]; contact?: number | null } = {}, requestId?: string): Promise<PushContext> {
    const a = conv.account_id;
    const o = { requestId };
    const userIds = [conv.assignee_id, ...(extra.users ?? [])];
    // One query at a time: `db` is the consumer's transaction.
    const inbox = await this.projections.readOne(db, 'inbox', a, conv.inbox_id, o);
    const contact = await this.projections.readOne(db, 'contact', a, extra.contact ?? conv.contact_id, o);
    const agents = await this.projections.readThrough(db, 'agent', a, userIds, o);
    const bots = await this.projections.readThrough(db, 'agent_bot', a, extra.bots ?? [], o);
    const team = await this.projections.readOne(db, 'team', a, conv.team_id, o);
    return { inbox, contact, agents: agents as Map<number, PushAgent>, bots, team, lastMessage: null };
  }

  /** `conversation.*`, `assignee.changed`, `team.changed`: the conversation's push data and `account_id`. */
  async conversation(db: Executor, conv: ConversationSnapshot, requestId?: string): Promise<Json> {
    return conversationData(conv as unknown as Json, await this.context(db, conv, {}, requestId));
  }

  /** `message.*`: the message's push data (`conversation_id` the display id), with `previous_changes` on updates. */
  async message(db: Executor, msg: MessageSnapshot, changes: Record<string, unknown> | null | undefined, requestId?: string): Promise<Json> {
    const senderId = msg.sender_id;
    const pc = await this.context(
      db,
      msg.conversation,
      { users: msg.sender_type === 'User' && senderId ? [senderId] : [], bots: msg.sender_type === 'AgentBot' && senderId ? [senderId] : [] },
      requestId,
    );
    const { conversation, ...rest } = msg;
    const data = messagePushData(rest as unknown as Json, conversation as unknown as Json, pc);
    data['conversation'] = { ...(data['conversation'] as Json), contact_inbox: { source_id: null } };
    if (changes) data['previous_changes'] = changes;
    return data;
  }

  /** Typing: `{conversation, user, is_private}`, `user` the typist's push data (a user or the contact). */
  async typing(db: Executor, conv: ConversationSnapshot, isPrivate: boolean, typist: { type: string; id: number } | null, requestId?: string): Promise<Json> {
    const pc = await this.context(db, conv, { users: typist?.type === 'user' ? [typist.id] : [] }, requestId);
    let user: Json | null = null;
    if (typist?.type === 'user') user = userPushData(typist.id, pc.agents.get(typist.id));
    else if (typist?.type === 'contact') user = contactPushData(pc.contact?.id === typist.id ? pc.contact : { id: typist.id });
    return { conversation: conversationData(conv as unknown as Json, pc), user, is_private: isPrivate, account_id: conv.account_id };
  }
}
