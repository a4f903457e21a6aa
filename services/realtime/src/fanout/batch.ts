import type { ConversationSnapshot, EventEnvelope, Executor, ProjectedKinds, ProjectionKit } from '@parley/shared';
import { recordStates, type ConversationState, type RecordedMessage, type StateWrite } from './state';

type Json = Record<string, unknown>;
type Copies = { [K in 'inbox' | 'contact' | 'agent' | 'agent_bot' | 'team']: Map<number, ProjectedKinds[K]> };

/** The events whose handlers only read copies and the conversation state (and write the state through this cache). */
const READ_ONLY = new Set([
  'message.created', 'message.updated', 'conversation.created', 'conversation.updated', 'conversation.status_changed',
  'conversation.read', 'assignee.changed', 'team.changed', 'conversation.typing_on', 'conversation.typing_off',
]);

const key = (accountId: number, conversationId: number) => `${accountId}:${conversationId}`;
const userId = (actor: EventEnvelope['actor']): number | null => (actor.type === 'user' && typeof actor.id === 'number' ? actor.id : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/**
 * What a batch of the fan-out needs, read at once: the state of every conversation its events
 * name (one query) and every copy their payloads name (one `readThroughKinds` per account), so a
 * batch of N message events costs a few queries instead of two per event. Message events update
 * the states in memory, in order (each payload sees the state after its event, as one at a time
 * would), and the changed states are written once per conversation at the end of the batch, with
 * the same merge as one at a time (a later version wins, incoming messages are a set), so a
 * replica writing the same conversation meanwhile loses nothing.
 *
 * Only for batches made of conversation and message events: an event that changes copies or
 * source ids (contact, agent, team, inbox, contact inbox events...) makes the batch go one event
 * at a time, reading what the events before it wrote.
 */
export class BatchCache {
  private readonly states = new Map<string, ConversationState>();
  private readonly copies = new Map<number, Copies>();
  /** `kind:id` per account: what was asked for (absent from `copies` = unknown or removed). */
  private readonly asked = new Map<number, Set<string>>();
  private readonly writes = new Map<string, StateWrite>();

  static async prefetch(db: Executor, projections: ProjectionKit, events: EventEnvelope[], readStates: (db: Executor, convs: ConversationSnapshot[]) => Promise<Map<string, ConversationState>>): Promise<BatchCache | null> {
    if (events.length < 2 || !events.every((e) => READ_ONLY.has(e.type))) return null;
    const cache = new BatchCache();
    const convs = new Map<string, ConversationSnapshot>();
    const senders: Array<{ accountId: number; kind: 'agent' | 'agent_bot'; id: number }> = [];
    const users: Array<{ accountId: number; id: number }> = [];
    for (const e of events) {
      const data = e.data as Json;
      const message = e.type.startsWith('message.');
      const conv = (message ? data['conversation'] : data) as ConversationSnapshot;
      convs.set(key(conv.account_id, conv.id), conv);
      const u = userId(e.actor);
      if (u !== null) users.push({ accountId: conv.account_id, id: u });
      const sender = num(data['sender_id']);
      if (message && sender !== null && data['sender_type'] === 'User') senders.push({ accountId: conv.account_id, kind: 'agent', id: sender });
      if (message && sender !== null && data['sender_type'] === 'AgentBot') senders.push({ accountId: conv.account_id, kind: 'agent_bot', id: sender });
    }
    for (const [k, state] of await readStates(db, [...convs.values()])) cache.states.set(k, state);
    const wanted = new Map<number, { [K in keyof Copies]: Set<number> }>();
    const of = (a: number) => {
      let w = wanted.get(a);
      if (!w) wanted.set(a, (w = { inbox: new Set(), contact: new Set(), agent: new Set(), agent_bot: new Set(), team: new Set() }));
      return w;
    };
    for (const [k, conv] of convs) {
      const w = of(conv.account_id);
      w.inbox.add(conv.inbox_id);
      if (conv.contact_id !== null) w.contact.add(conv.contact_id);
      if (conv.assignee_id !== null) w.agent.add(conv.assignee_id);
      if (conv.team_id !== null) w.team.add(conv.team_id);
      const last = cache.states.get(k)?.lastMessage;
      const lastSender = num(last?.['sender_id']);
      if (last?.['sender_type'] === 'User' && lastSender !== null) w.agent.add(lastSender);
    }
    for (const u of users) of(u.accountId).agent.add(u.id);
    for (const s of senders) of(s.accountId)[s.kind].add(s.id);
    for (const [accountId, w] of wanted) {
      const found = await projections.readThroughKinds(db, accountId, w);
      cache.copies.set(accountId, found as Copies);
      cache.asked.set(accountId, new Set(Object.entries(w).flatMap(([kind, ids]) => [...(ids as Set<number>)].map((id) => `${kind}:${id}`))));
    }
    return cache;
  }

  /** The conversation's state as the batch has it so far, if it was read. */
  state(conv: ConversationSnapshot): ConversationState | undefined {
    return this.states.get(key(conv.account_id, conv.id));
  }

  /** The source id learnt for a conversation (a read-through): kept with its state. */
  setSource(conv: ConversationSnapshot, sourceId: string): void {
    const k = key(conv.account_id, conv.id);
    const s = this.states.get(k);
    if (s) this.states.set(k, { ...s, sourceId });
  }

  /** The copies of `wanted`, when the batch read them all; undefined sends the caller to the table. */
  copiesFor(accountId: number, wanted: { [K in keyof Copies]: Array<number | null | undefined> }): Copies | undefined {
    const asked = this.asked.get(accountId);
    const copies = this.copies.get(accountId);
    if (!asked || !copies) return undefined;
    for (const [kind, ids] of Object.entries(wanted)) for (const id of ids) if (typeof id === 'number' && !asked.has(`${kind}:${id}`)) return undefined;
    return copies;
  }

  /** `recordMessage` in memory: the state after the message, its write queued for `flush`. */
  recordMessage(conv: ConversationSnapshot, message: RecordedMessage, o: { last: Json | null; incoming: [number, number] | null }): ConversationState | undefined {
    const k = key(conv.account_id, conv.id);
    const state = this.states.get(k);
    if (!state) return undefined;
    const write = this.writes.get(k) ?? { accountId: conv.account_id, conversationId: conv.id, last: null, incoming: [] };
    this.writes.set(k, write);
    let next = state;
    if (o.last) {
      const cur = state.lastMessage;
      const curId = num(cur?.['id']);
      const curVersion = typeof cur?.['updated_at'] === 'string' ? Date.parse(cur['updated_at']) : null;
      const version = message.updated_at ? Date.parse(message.updated_at) : null;
      if (curId === null || curId < message.id || (curId === message.id && (curVersion === null || version === null || curVersion <= version))) {
        next = { ...next, lastMessage: o.last };
        write.last = { json: o.last, id: message.id, version: message.updated_at ?? null };
      }
    }
    if (o.incoming) {
      const merged = new Map(next.incoming.map((e) => [e[0], e] as const));
      merged.set(o.incoming[0], o.incoming);
      next = { ...next, incoming: [...merged.values()].sort((a, b) => b[0] - a[0]).slice(0, 10) };
      write.incoming.push(o.incoming);
    }
    this.states.set(k, next);
    return next;
  }

  /** Writes the batch's changed states, one statement for all its conversations, with the merge one at a time uses. */
  async flush(db: Executor): Promise<void> {
    await recordStates(db, [...this.writes.values()]);
    this.writes.clear();
  }
}
