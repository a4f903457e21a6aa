import { randomUUID } from 'node:crypto';
import { buildEnvelope, type Actor, type Changes, type ConversationSnapshot, type EventEnvelope, type EventType } from '@parley/shared';
import { conversationFixture, messageFixture } from '@parley/testkit';

/**
 * A scripted conversation history as the conversations service would publish it, at chosen
 * times: each call appends the events of one change, with the conversation's snapshot after it.
 */
export class History {
  readonly events: EventEnvelope[] = [];
  private convs = new Map<number, ConversationSnapshot>();
  private static messageId = 1_000_000;

  constructor(
    readonly accountId: number,
    readonly t0: number,
    /** The inbox conversations are created in unless told otherwise. */
    readonly inboxId = 1,
  ) {}

  private emit(type: EventType, at: number, data: Record<string, unknown>, opts: { changes?: Changes; actor?: Actor } = {}): void {
    const ev = buildEnvelope(
      { requestId: randomUUID(), accountId: this.accountId, actor: opts.actor ?? { type: 'user', id: 1, name: 'Someone' }, role: 'administrator', features: {}, ip: null, issuedAt: Date.now() },
      { type, accountId: this.accountId, data, changes: opts.changes ?? null },
    );
    ev.occurred_at = new Date((this.t0 + at) * 1000).toISOString();
    this.events.push(ev);
  }

  private conv(id: number): ConversationSnapshot {
    return this.convs.get(id) as ConversationSnapshot;
  }

  private change(id: number, at: number, patch: Partial<ConversationSnapshot>): ConversationSnapshot {
    const next = { ...this.conv(id), ...patch, last_activity_at: this.t0 + at };
    this.convs.set(id, next);
    return next;
  }

  create(id: number, at: number, fields: Partial<ConversationSnapshot> = {}): this {
    const snap = conversationFixture(this.accountId, id, { inbox_id: this.inboxId, created_at: this.t0 + at, last_activity_at: this.t0 + at, ...fields });
    this.convs.set(id, snap);
    this.emit('conversation.created', at, snap);
    return this;
  }

  private message(id: number, at: number, fields: Record<string, unknown>, patch: Partial<ConversationSnapshot> = {}, actor?: Actor): this {
    const snap = this.change(id, at, patch);
    History.messageId += 1;
    this.emit('message.created', at, messageFixture(snap, { id: History.messageId, created_at: this.t0 + at, ...fields }), actor ? { actor } : {});
    return this;
  }

  incoming(id: number, at: number): this {
    const c = this.conv(id);
    return this.message(id, at, { message_type: 0, sender_type: 'Contact', sender_id: c.contact_id }, { waiting_since: c.waiting_since ?? this.t0 + at }, { type: 'contact', id: c.contact_id });
  }

  reply(id: number, at: number, userId: number): this {
    const c = this.conv(id);
    return this.message(id, at, { message_type: 1, sender_type: 'User', sender_id: userId }, { waiting_since: null, first_reply_created_at: c.first_reply_created_at ?? this.t0 + at }, { type: 'user', id: userId });
  }

  note(id: number, at: number, userId: number): this {
    return this.message(id, at, { message_type: 1, private: true, sender_type: 'User', sender_id: userId }, {}, { type: 'user', id: userId });
  }

  activity(id: number, at: number): this {
    return this.message(id, at, { message_type: 2, sender_type: null, sender_id: null, content: 'Conversation was reopened' });
  }

  automationReply(id: number, at: number): this {
    return this.message(id, at, { message_type: 1, sender_type: null, sender_id: null, content_attributes: { automation_rule_id: 9 } }, {}, { type: 'automation_rule', id: 9 });
  }

  botReply(id: number, at: number, botId: number): this {
    return this.message(id, at, { message_type: 1, sender_type: 'AgentBot', sender_id: botId }, { waiting_since: null }, { type: 'agent_bot', id: botId });
  }

  status(id: number, at: number, status: ConversationSnapshot['status'], actor?: Actor): this {
    const before = this.conv(id).status;
    const snap = this.change(id, at, { status, ...(status === 'resolved' ? { waiting_since: null } : {}) });
    this.emit('conversation.status_changed', at, snap, { changes: { status: [before, status] }, ...(actor ? { actor } : {}) });
    this.emit(status === 'resolved' ? 'conversation.resolved' : 'conversation.opened', at, snap, { changes: { status: [before, status] } });
    this.emit('conversation.updated', at, snap, { changes: { status: [before, status] } });
    return this;
  }

  assign(id: number, at: number, assigneeId: number | null): this {
    const before = this.conv(id).assignee_id;
    const snap = this.change(id, at, { assignee_id: assigneeId });
    this.emit('assignee.changed', at, snap, { changes: { assignee_id: [before, assigneeId] } });
    this.emit('conversation.updated', at, snap, { changes: { assignee_id: [before, assigneeId] } });
    return this;
  }

  team(id: number, at: number, teamId: number | null): this {
    const before = this.conv(id).team_id;
    const snap = this.change(id, at, { team_id: teamId });
    this.emit('team.changed', at, snap, { changes: { team_id: [before, teamId] } });
    this.emit('conversation.updated', at, snap, { changes: { team_id: [before, teamId] } });
    return this;
  }

  labels(id: number, at: number, labels: string[]): this {
    const before = this.conv(id).labels;
    const snap = this.change(id, at, { labels });
    this.emit('conversation.labels_changed', at, snap, { changes: { labels: [before, labels] } });
    this.emit('conversation.updated', at, snap, { changes: { labels: [before, labels] } });
    return this;
  }

  label(labelId: number, at: number, title: string): this {
    this.emit('label.created', at, { id: labelId, title, description: null, color: '#1f93ff', show_on_sidebar: true });
    return this;
  }
}

/** A fixed shuffle (the consumer must not depend on arrival order). */
export function shuffled<T>(items: readonly T[], seed = 7): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
