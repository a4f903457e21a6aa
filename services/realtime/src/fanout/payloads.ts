import {
  AppError, contactPushData, conversationData, messagePushData, userPushData,
  type ConversationSnapshot, type Executor, type Logger, type MessageSnapshot, type Peers, type ProjectionKit, type PushAgent, type PushContext,
} from '@parley/shared';
import type { BatchCache } from './batch';
import { keepSourceId, readState, unreadCount, type ConversationState, type CopyRows } from './state';

type Json = Record<string, unknown>;

/** The user who caused an event (the envelope's actor), when it was a user. */
export type Performer = { type: string; id: unknown } | null | undefined;

const performerId = (p: Performer): number | null => (p?.type === 'user' && typeof p.id === 'number' ? p.id : null);

/**
 * Chatwoot's push data for the channel (`Message#push_event_data`, the conversation's
 * `EventDataPresenter#push_data`, contact and user push data), from the event snapshot, the
 * copies this service keeps of the records they name (read through to their owners on a miss;
 * an owner that cannot answer leaves a record by id, never a failed delivery) and its own
 * conversation state (the last chat message, the latest incoming messages for the unread count,
 * contact inbox source ids). An event costs two reads: its conversation state (or the write that
 * answers it) and every copy it names in one `readThroughKinds`. Events a user caused carry
 * `performer`, that user's push data, as Chatwoot's do (Chatwoot drops it on the events it
 * re-reads, #10876; here every one keeps it).
 */
export class PushPayloads {
  /** What the batch being handled read at once (states and copies), when it could. */
  cache: BatchCache | null = null;

  /** Until when the owners are not asked (after one failed to answer), by owner. */
  private readonly downUntil = new Map<'contacts' | 'identity', number>();

  constructor(
    private readonly projections: ProjectionKit,
    private readonly peers: Peers,
    private readonly log: Logger,
    private readonly backoffMs: number,
  ) {}

  /** The conversation's state, unless the caller has it already (a message's write answers it). */
  async state(db: Executor, conv: ConversationSnapshot): Promise<ConversationState> {
    return this.withSource(db, conv, this.cache?.state(conv) ?? (await readState(db, conv.account_id, conv.id, conv.contact_inbox_id)));
  }

  /**
   * The state with its contact inbox's `source_id`: a pair made before this service ran (no
   * `contact_inbox.created` reached it) is asked of the contacts service once and kept. An owner
   * that cannot answer leaves it null for this event (and is not asked again for a while).
   */
  async withSource(db: Executor, conv: ConversationSnapshot, state: ConversationState): Promise<ConversationState> {
    if (state.sourceId !== null || conv.contact_inbox_id === null) return state;
    const found = await this.ask('contacts', () => this.peers.contacts.contactInboxById(conv.account_id, conv.contact_inbox_id as number));
    if (!found) return state;
    await keepSourceId(db, conv.account_id, found.contact_inbox.id, found.contact_inbox.source_id);
    this.cache?.setSource(conv, found.contact_inbox.source_id);
    return { ...state, sourceId: found.contact_inbox.source_id };
  }

  /** A team's members (a team mention reaches them), from the gateway; none when it cannot answer. */
  async teamMembers(accountId: number, teamId: number, requestId?: string): Promise<number[]> {
    return (await this.ask('identity', () => this.peers.identity.teamMembers(accountId, teamId, { requestId })))?.user_ids ?? [];
  }

  /** An owner's answer; null for a 404, or when it fails (logged, then not asked for `backoffMs`). */
  private async ask<T>(owner: 'contacts' | 'identity', call: () => Promise<T>): Promise<T | null> {
    if ((this.downUntil.get(owner) ?? 0) > Date.now()) return null;
    try {
      return await call();
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return null;
      this.log.warn({ owner, err: (err as Error).message }, `${owner} lookup failed`);
      this.downUntil.set(owner, Date.now() + this.backoffMs);
      return null;
    }
  }

  /**
   * The copies a message's push data names whatever the conversation's last message is (its
   * inbox, contact, assignee and team, the message's sender and the performer): what the write of
   * its state reads with it (`recordMessageWithCopies`).
   */
  messageCopies(msg: MessageSnapshot, performer?: Performer): CopyRows['asked'] {
    const conv = msg.conversation;
    const { users, bots } = this.messagePeople(msg, performer);
    return { inbox: [conv.inbox_id], contact: [conv.contact_id], agent: [conv.assignee_id, ...users], agent_bot: bots, team: [conv.team_id] };
  }

  private messagePeople(msg: MessageSnapshot, performer: Performer): { users: number[]; bots: number[] } {
    const senderId = msg.sender_id;
    const id = performerId(performer);
    return { users: [...(msg.sender_type === 'User' && senderId ? [senderId] : []), ...(id === null ? [] : [id])], bots: msg.sender_type === 'AgentBot' && senderId ? [senderId] : [] };
  }

  private async context(db: Executor, conv: ConversationSnapshot, state: ConversationState, extra: { users?: number[]; bots?: number[] } = {}, requestId?: string, known?: CopyRows): Promise<PushContext> {
    const last = state.lastMessage;
    const lastSender = last?.['sender_type'] === 'User' && typeof last['sender_id'] === 'number' ? [last['sender_id']] : [];
    const wanted = { inbox: [conv.inbox_id], contact: [conv.contact_id], agent: [conv.assignee_id, ...lastSender, ...(extra.users ?? [])], agent_bot: extra.bots ?? [], team: [conv.team_id] };
    // Rows read already (with the message's write) when they cover every copy wanted: completed
    // as readThroughKinds would (misses read through to their owners); else the table is read.
    const copies =
      this.cache?.copiesFor(conv.account_id, wanted) ??
      (known && covers(known.asked, wanted)
        ? await this.projections.completeKinds(db, conv.account_id, wanted, known.rows, { requestId })
        : await this.projections.readThroughKinds(db, conv.account_id, wanted, { requestId }));
    return {
      inbox: copies.inbox.get(conv.inbox_id) ?? null,
      contact: conv.contact_id === null ? null : (copies.contact.get(conv.contact_id) ?? null),
      agents: copies.agent as Map<number, PushAgent>,
      bots: copies.agent_bot,
      team: conv.team_id === null ? null : (copies.team.get(conv.team_id) ?? null),
      lastMessage: last,
      unreadCount: unreadCount(state, conv.agent_last_seen_at),
    };
  }

  private performer(data: Json, performer: Performer, pc: PushContext): Json {
    const id = performerId(performer);
    return id === null ? data : Object.assign({}, data, { performer: userPushData(id, pc.agents.get(id)) });
  }

  private conversationJson(conv: ConversationSnapshot, state: ConversationState, pc: PushContext): Json {
    const data = conversationData(conv as unknown as Json, pc);
    return { ...data, contact_inbox: { ...(data['contact_inbox'] as Json), source_id: state.sourceId } };
  }

  /** `conversation.*`, `assignee.changed`, `team.changed`, `first.reply.created`: the conversation's push data and `account_id`. */
  async conversation(db: Executor, conv: ConversationSnapshot, performer?: Performer, requestId?: string, known?: ConversationState): Promise<Json> {
    const id = performerId(performer);
    const state = known ?? (await this.state(db, conv));
    const pc = await this.context(db, conv, state, { users: id === null ? [] : [id] }, requestId);
    return this.performer(this.conversationJson(conv, state, pc), performer, pc);
  }

  /** `message.*`: the message's push data (`conversation_id` the display id), with `previous_changes` on updates. */
  async message(db: Executor, msg: MessageSnapshot, state: ConversationState, changes: Record<string, unknown> | null | undefined, performer?: Performer, requestId?: string, known?: CopyRows): Promise<Json> {
    const pc = await this.context(db, msg.conversation, state, this.messagePeople(msg, performer), requestId, known);
    const { conversation, ...rest } = msg;
    const data = messagePushData(rest as unknown as Json, conversation as unknown as Json, pc);
    data['conversation'] = { ...(data['conversation'] as Json), contact_inbox: { source_id: state.sourceId } };
    if (changes) data['previous_changes'] = changes;
    return this.performer(data, performer, pc);
  }

  /** Typing: `{conversation, user, is_private}`, `user` the typist's push data (a user or the contact). */
  async typing(db: Executor, conv: ConversationSnapshot, isPrivate: boolean, typist: { type: string; id: number } | null, requestId?: string): Promise<Json> {
    const state = await this.state(db, conv);
    const pc = await this.context(db, conv, state, { users: typist?.type === 'user' ? [typist.id] : [] }, requestId);
    let user: Json | null = null;
    if (typist?.type === 'user') user = userPushData(typist.id, pc.agents.get(typist.id));
    else if (typist?.type === 'contact') user = contactPushData(pc.contact?.id === typist.id ? pc.contact : { id: typist.id });
    return { conversation: this.conversationJson(conv, state, pc), user, is_private: isPrivate, account_id: conv.account_id };
  }
}

/** Whether every valid id of `wanted` was asked for (`asked`, by kind). */
function covers(asked: CopyRows['asked'], wanted: Record<string, Array<number | null | undefined>>): boolean {
  for (const [kind, ids] of Object.entries(wanted)) {
    for (const id of ids) if (typeof id === 'number' && id > 0 && !(asked[kind] ?? []).includes(id)) return false;
  }
  return true;
}
