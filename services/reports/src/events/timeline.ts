/**
 * Chatwoot's reporting events of one conversation, derived from what happened to it (its facts, in
 * order). A pure function of the facts: the same facts give the same events whatever order the
 * events arrived in, however often they were delivered, and when they are replayed.
 */

import { businessSeconds, type BusinessHours } from './business-hours';

export type ReportingEventName = 'conversation_resolved' | 'first_response' | 'reply_time' | 'conversation_opened' | 'conversation_bot_handoff' | 'conversation_bot_resolved';

export interface Fact {
  kind: 'message' | 'status';
  at: Date;
  inbox_id: number | null;
  assignee_id: number | null;
  team_id: number | null;
  message_type: number | null;
  private: boolean | null;
  sender_type: string | null;
  sender_id: number | null;
  automated: boolean;
  status_from: string | null;
  status_to: string | null;
  actor_type: string | null;
  /** The inbox's working hours when the fact was recorded (null: off). */
  business_hours: BusinessHours | null;
}

export interface DerivedEvent {
  name: ReportingEventName;
  /** Seconds. */
  value: number;
  /** The seconds of the interval inside the inbox's working hours (those of the fact that ends it). */
  value_in_business_hours: number;
  start: Date;
  end: Date;
  inbox_id: number | null;
  user_id: number | null;
  team_id: number | null;
}

const seconds = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / 1000);

/**
 * A person took part: any outgoing message with a user as sender, a private note or one an
 * automation sent on their behalf included (Chatwoot's `messages.exists?(message_type: :outgoing,
 * sender_type: 'User')`, which keeps a resolution from being the bot's).
 */
export function isUserInteraction(f: Fact): boolean {
  return f.kind === 'message' && f.message_type === 1 && f.sender_type === 'User';
}

/** A reply the customer sees from a person: outgoing, public, sent by a user, not by a rule or campaign. */
export function isHumanReply(f: Fact): boolean {
  return f.kind === 'message' && f.message_type === 1 && f.private === false && f.sender_type === 'User' && !f.automated;
}

/**
 * - `first_response`: the first human reply, measured from the latest bot hand-off or reopening
 *   before it, else from creation; credited to the agent who replied. Once per conversation.
 * - `reply_time`: every human reply while the customer waits (an incoming message starts the wait
 *   when none runs; a human or bot reply, or resolving, ends it), measured from the wait's start,
 *   credited to the agent who replied.
 * - `conversation_resolved`: every resolution, measured from creation; credited to the assignee.
 *   `conversation_bot_resolved` beside it when a bot replied (or resolved) and no person wrote
 *   anything outgoing, a private note included.
 * - `conversation_opened`: every change to open, valued the time since the last resolution (0 when
 *   it was not resolved). `conversation_bot_handoff`: the first change from pending (the bot's) to
 *   open, valued the time since creation.
 */
export function deriveReportingEvents(createdAt: Date, facts: readonly Fact[]): DerivedEvent[] {
  const state = startTimeline(createdAt);
  const out: DerivedEvent[] = [];
  for (const f of facts) out.push(...stepTimeline(state, f));
  return out;
}

/**
 * What deriveReportingEvents knows between two facts (times in ms): stored with the conversation
 * after its last fact, so a fact that comes after all the others is derived alone
 * (`stepTimeline`) with the same result as deriving them all again.
 */
export interface Timeline {
  createdAt: number;
  waitingSince: number | null;
  firstResponded: boolean;
  clockFrom: number;
  lastResolvedAt: number | null;
  handedOff: boolean;
  userInteracted: boolean;
  botReplied: boolean;
}

export function startTimeline(createdAt: Date): Timeline {
  const t = createdAt.getTime();
  return { createdAt: t, waitingSince: null, firstResponded: false, clockFrom: t, lastResolvedAt: null, handedOff: false, userInteracted: false, botReplied: false };
}

/** The events one more fact makes (it comes after every fact `s` has seen); updates `s`. */
export function stepTimeline(s: Timeline, f: Fact): DerivedEvent[] {
  const out: DerivedEvent[] = [];
  const createdAt = new Date(s.createdAt);
  const at = (name: ReportingEventName, start: Date, user: number | null) =>
    out.push({ name, value: seconds(start, f.at), value_in_business_hours: businessSeconds(start, f.at, f.business_hours), start, end: f.at, inbox_id: f.inbox_id, user_id: user, team_id: f.team_id });

  if (f.kind === 'message') {
    if (isUserInteraction(f)) s.userInteracted = true;
    if (f.message_type === 0) {
      s.waitingSince ??= f.at.getTime();
    } else if (isHumanReply(f)) {
      if (!s.firstResponded) {
        at('first_response', new Date(s.clockFrom), f.sender_id);
        s.firstResponded = true;
      }
      if (s.waitingSince !== null) at('reply_time', new Date(s.waitingSince), f.sender_id);
      s.waitingSince = null;
    } else if (f.message_type === 1 && f.private === false && f.sender_type === 'AgentBot') {
      s.waitingSince = null;
      s.botReplied = true;
    }
    return out;
  }
  if (f.status_to === f.status_from) return out;
  if (f.status_to === 'resolved') {
    at('conversation_resolved', createdAt, f.assignee_id);
    // Chatwoot: the inbox has an active bot and no user's outgoing message exists. Inboxes carry no
    // bot here; a bot that replied, or resolved, stands for it.
    if (!s.userInteracted && (s.botReplied || f.actor_type === 'agent_bot')) at('conversation_bot_resolved', createdAt, f.assignee_id);
    s.lastResolvedAt = f.at.getTime();
    s.waitingSince = null;
  } else if (f.status_to === 'open') {
    at('conversation_opened', f.status_from === 'resolved' && s.lastResolvedAt !== null ? new Date(s.lastResolvedAt) : f.at, f.assignee_id);
    if (f.status_from === 'pending' && !s.handedOff) {
      at('conversation_bot_handoff', createdAt, f.assignee_id);
      s.handedOff = true;
    }
    if (f.status_from === 'resolved' || f.status_from === 'pending') s.clockFrom = f.at.getTime();
  }
  return out;
}
