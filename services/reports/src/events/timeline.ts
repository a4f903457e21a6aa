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
  const out: DerivedEvent[] = [];
  let waitingSince: Date | null = null;
  let firstResponded = false;
  let clockFrom = createdAt;
  let lastResolvedAt: Date | null = null;
  let handedOff = false;
  let userInteracted = false;
  let botReplied = false;
  const at = (f: Fact, name: ReportingEventName, start: Date, user: number | null) =>
    out.push({ name, value: seconds(start, f.at), value_in_business_hours: businessSeconds(start, f.at, f.business_hours), start, end: f.at, inbox_id: f.inbox_id, user_id: user, team_id: f.team_id });

  for (const f of facts) {
    if (f.kind === 'message') {
      if (isUserInteraction(f)) userInteracted = true;
      if (f.message_type === 0) {
        waitingSince ??= f.at;
      } else if (isHumanReply(f)) {
        if (!firstResponded) {
          at(f, 'first_response', clockFrom, f.sender_id);
          firstResponded = true;
        }
        if (waitingSince) at(f, 'reply_time', waitingSince, f.sender_id);
        waitingSince = null;
      } else if (f.message_type === 1 && f.private === false && f.sender_type === 'AgentBot') {
        waitingSince = null;
        botReplied = true;
      }
      continue;
    }
    if (f.status_to === f.status_from) continue;
    if (f.status_to === 'resolved') {
      at(f, 'conversation_resolved', createdAt, f.assignee_id);
      // Chatwoot: the inbox has an active bot and no user's outgoing message exists. Inboxes carry no
      // bot here; a bot that replied, or resolved, stands for it.
      if (!userInteracted && (botReplied || f.actor_type === 'agent_bot')) at(f, 'conversation_bot_resolved', createdAt, f.assignee_id);
      lastResolvedAt = f.at;
      waitingSince = null;
    } else if (f.status_to === 'open') {
      at(f, 'conversation_opened', f.status_from === 'resolved' && lastResolvedAt ? lastResolvedAt : f.at, f.assignee_id);
      if (f.status_from === 'pending' && !handedOff) {
        at(f, 'conversation_bot_handoff', createdAt, f.assignee_id);
        handedOff = true;
      }
      if (f.status_from === 'resolved' || f.status_from === 'pending') clockFrom = f.at;
    }
  }
  return out;
}
