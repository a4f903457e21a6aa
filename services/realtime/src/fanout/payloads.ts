import {
  contactPushData, conversationData, messagePushData, userPushData,
  type ConversationSnapshot, type Executor, type MessageSnapshot, type ProjectionKit, type PushAgent, type PushContext,
} from '@parley/shared';
import { lastMessage, sourceIdOf } from './state';

type Json = Record<string, unknown>;

/** The user who caused an event (the envelope's actor), when it was a user. */
export type Performer = { type: string; id: unknown } | null | undefined;

const performerId = (p: Performer): number | null => (p?.type === 'user' && typeof p.id === 'number' ? p.id : null);

/**
 * Chatwoot's push data for the channel (`Message#push_event_data`, the conversation's
 * `EventDataPresenter#push_data`, contact and user push data), from the event snapshot, the
 * copies this service keeps of the records they name (read through to their owners on a miss;
 * an owner that cannot answer leaves a record by id, never a failed delivery) and its own
 * conversation state (the last chat message, contact inbox source ids). Events a user caused
 * carry `performer`, that user's push data, as Chatwoot's do (Chatwoot drops it on the events it
 * re-reads, #10876; here every one keeps it).
 */
export class PushPayloads {
  constructor(private readonly projections: ProjectionKit) {}

  private async context(db: Executor, conv: ConversationSnapshot, extra: { users?: number[]; bots?: number[]; contact?: number | null } = {}, requestId?: string): Promise<PushContext> {
    const a = conv.account_id;
    const o = { requestId };
    // One query at a time: `db` is the consumer's transaction.
    const last = await lastMessage(db, a, conv.id);
    const lastSender = last?.['sender_type'] === 'User' && typeof last['sender_id'] === 'number' ? [last['sender_id']] : [];
    const userIds = [conv.assignee_id, ...lastSender, ...(extra.users ?? [])];
    const inbox = await this.projections.readOne(db, 'inbox', a, conv.inbox_id, o);
    const contact = await this.projections.readOne(db, 'contact', a, extra.contact ?? conv.contact_id, o);
    const agents = await this.projections.readThrough(db, 'agent', a, userIds, o);
    const bots = await this.projections.readThrough(db, 'agent_bot', a, extra.bots ?? [], o);
    const team = await this.projections.readOne(db, 'team', a, conv.team_id, o);
    return { inbox, contact, agents: agents as Map<number, PushAgent>, bots, team, lastMessage: last };
  }

  private async withSource(db: Executor, conv: ConversationSnapshot, data: Json): Promise<Json> {
    const sourceId = await sourceIdOf(db, conv.account_id, conv.contact_inbox_id);
    return { ...data, contact_inbox: { ...(data['contact_inbox'] as Json), source_id: sourceId } };
  }

  private performer(data: Json, performer: Performer, pc: PushContext): Json {
    const id = performerId(performer);
    return id === null ? data : { ...data, performer: userPushData(id, pc.agents.get(id)) };
  }

  /** `conversation.*`, `assignee.changed`, `team.changed`, `first.reply.created`: the conversation's push data and `account_id`. */
  async conversation(db: Executor, conv: ConversationSnapshot, performer?: Performer, requestId?: string): Promise<Json> {
    const id = performerId(performer);
    const pc = await this.context(db, conv, { users: id === null ? [] : [id] }, requestId);
    return this.performer(await this.withSource(db, conv, conversationData(conv as unknown as Json, pc)), performer, pc);
  }

  /** `message.*`: the message's push data (`conversation_id` the display id), with `previous_changes` on updates. */
  async message(db: Executor, msg: MessageSnapshot, changes: Record<string, unknown> | null | undefined, performer?: Performer, requestId?: string): Promise<Json> {
    const senderId = msg.sender_id;
    const id = performerId(performer);
    const users = [...(msg.sender_type === 'User' && senderId ? [senderId] : []), ...(id === null ? [] : [id])];
    const pc = await this.context(db, msg.conversation, { users, bots: msg.sender_type === 'AgentBot' && senderId ? [senderId] : [] }, requestId);
    const { conversation, ...rest } = msg;
    const data = messagePushData(rest as unknown as Json, conversation as unknown as Json, pc);
    data['conversation'] = { ...(data['conversation'] as Json), contact_inbox: { source_id: await sourceIdOf(db, conversation.account_id, conversation.contact_inbox_id) } };
    if (changes) data['previous_changes'] = changes;
    return this.performer(data, performer, pc);
  }

  /** Typing: `{conversation, user, is_private}`, `user` the typist's push data (a user or the contact). */
  async typing(db: Executor, conv: ConversationSnapshot, isPrivate: boolean, typist: { type: string; id: number } | null, requestId?: string): Promise<Json> {
    const pc = await this.context(db, conv, { users: typist?.type === 'user' ? [typist.id] : [] }, requestId);
    let user: Json | null = null;
    if (typist?.type === 'user') user = userPushData(typist.id, pc.agents.get(typist.id));
    else if (typist?.type === 'contact') user = contactPushData(pc.contact?.id === typist.id ? pc.contact : { id: typist.id });
    return { conversation: await this.withSource(db, conv, conversationData(conv as unknown as Json, pc)), user, is_private: isPrivate, account_id: conv.account_id };
  }
}
