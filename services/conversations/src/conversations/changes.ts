import { NotFoundError, diff, writeEvent, type Changes, type EventType, type Executor, type RequestContext } from '@parley/shared';
import { addParticipants } from './participation';
import { priorityName, type ConversationRow, type MessageRow } from '../common/rows';
import { conversationSnapshot, messageSnapshot } from '../common/snapshots';
import { insertMessage } from '../messages/repository';
import { updateConversationAtCommit, updateConversationRow, updateConversationWithActivities, type ConversationPatch } from './repository';

/** Who made a change and why: the request context, plus the event that caused it (commands, cascades). */
export interface Cause {
  ctx: RequestContext;
  causationId?: string | null;
}

/**
 * Keys whose change is a `conversation.updated` (Chatwoot's `allowed_keys?` of
 * Conversation#notify_conversation_updation, plus our `muted` and `additional_attributes`).
 */
const WATCHED = [
  'status', 'priority', 'labels', 'assignee_id', 'team_id', 'snoozed_until', 'custom_attributes', 'additional_attributes', 'muted',
  'waiting_since', 'first_reply_created_at',
];

export async function emit(tx: Executor, cause: Cause, type: EventType, accountId: number, data: Record<string, unknown>, changes?: Changes | null): Promise<void> {
  await writeEvent(tx, cause.ctx, { type, accountId, data, changes: changes ?? null, causationId: cause.causationId ?? null });
}

/** The name activity messages give the actor (Chatwoot says "Automation System" for rules). */
export function actorName(ctx: RequestContext): string {
  if (ctx.actor.type === 'automation_rule') return 'Automation System';
  if (ctx.actor.name) return ctx.actor.name;
  return 'System';
}

/** An activity message ("Conversation was resolved by X"), with its message.created event. */
export async function addActivity(tx: Executor, cause: Cause, conv: ConversationRow, content: string): Promise<MessageRow> {
  const msg = await insertMessage(tx, {
    account_id: conv.account_id,
    inbox_id: conv.inbox_id,
    conversation_id: conv.id,
    message_type: 2,
    content,
    content_type: 'text',
    content_attributes: {},
    private: false,
    source_id: null,
    sender_type: null,
    sender_id: null,
  });
  await emit(tx, cause, 'message.created', conv.account_id, messageSnapshot(msg, conv));
  return msg;
}

export interface ChangeOptions {
  /** Skip activity messages. */
  activity?: boolean;
  /** Text of the status activity when it is not "... by <actor>" (reopen by an incoming message). */
  statusActivity?: string;
  /** Names for the activity messages, looked up by the caller when it has them. */
  names?: { assignee?: string | null; team?: string | null; previousTeam?: string | null };
  /**
   * The transaction changes the conversation no more after this: a change of its times only (a
   * message's) may be written with the COMMIT (updateConversationAtCommit), a round trip fewer.
   */
  last?: boolean;
}

const STATUS_ACTIVITY: Record<string, string> = {
  resolved: 'Conversation was marked resolved by %s',
  open: 'Conversation was reopened by %s',
  pending: 'Conversation was marked as pending by %s',
  snoozed: 'Conversation was snoozed by %s',
};

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    const ta = a instanceof Date ? a.getTime() : a;
    const tb = b instanceof Date ? b.getTime() : b;
    return ta === tb;
  }
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The one place a conversation changes: updates the row, then writes the events the change
 * means (`conversation.updated` with `changes`; status, priority, labels, assignee and team
 * events) and the activity messages, all in the caller's transaction. A patch that changes
 * nothing writes nothing.
 */
export async function changeConversation(tx: Executor, cause: Cause, before: ConversationRow, patch: ConversationPatch, opts: ChangeOptions = {}): Promise<ConversationRow> {
  // Object.assign, not `{ ...patch }`: a spread copy given a new property (updated_at, below) is
  // slow on Node 20's V8 (docs/architecture.md, "Runtime").
  const full: ConversationPatch = Object.assign({}, patch);
  // Chatwoot's model rules: snoozed_until only lives while snoozed; resolving ends the wait.
  const nextStatus = full.status ?? before.status;
  if (nextStatus !== 'snoozed' && before.snoozed_until !== null && !('snoozed_until' in full)) full.snoozed_until = null;
  if (full.status === 'resolved' && before.status !== 'resolved') full.waiting_since = null;
  for (const k of Object.keys(full) as Array<keyof ConversationPatch>) {
    if (sameValue(full[k], (before as unknown as Record<string, unknown>)[k])) delete full[k];
  }
  if (Object.keys(full).length === 0) return before;
  full.updated_at = new Date();
  const ctx = cause.ctx;
  const who = actorName(ctx);
  const beforeSnap = conversationSnapshot(before);
  // The activity messages, from the row the update leaves (the columns they read come back as
  // sent: no trigger changes a conversation row). When there are any, the row's last_activity_at
  // moves to theirs (the transaction's now(), their created_at) in this same update, not in a
  // second update of the row (a new version of it and an entry in each of its indexes):
  // `addActivities` then finds it set.
  const planned: ConversationRow = { ...before, ...full };
  const texts = opts.activity === false ? [] : activityTexts(before, planned, diff(beforeSnap, conversationSnapshot(planned), WATCHED), ctx, who, opts);
  // With activity, the update and the activity messages' insert are one statement (a round trip fewer).
  let after = opts.last ? updateConversationAtCommit(tx, before, full) : null;
  let activities: MessageRow[] | null = null;
  if (!after && texts.length > 0) {
    const both = await updateConversationWithActivities(tx, before.account_id, before.id, full, texts);
    // (The caller holds the row's lock: it cannot be gone.)
    if (!both) throw new NotFoundError('Conversation');
    ({ row: after, activities } = both);
  }
  after ??= await updateConversationRow(tx, before.account_id, before.id, full);

  const snap = conversationSnapshot(after);
  const changes = diff(beforeSnap, snap, WATCHED);
  // Never with activity (its texts come from keys this diff sees change); were it so, the rows written have their events.
  if (Object.keys(changes).length === 0) return addActivities(tx, cause, after, activities ?? [], opts.last === true);

  const acc = after.account_id;

  if (changes['status']) {
    await emit(tx, cause, 'conversation.status_changed', acc, snap, { status: changes['status'] });
    if (after.status === 'resolved') await emit(tx, cause, 'conversation.resolved', acc, snap, { status: changes['status'] });
    if (after.status === 'open') await emit(tx, cause, 'conversation.opened', acc, snap, { status: changes['status'] });
  }
  if (changes['priority']) await emit(tx, cause, 'conversation.priority_changed', acc, snap, { priority: changes['priority'] });
  if (changes['labels']) await emit(tx, cause, 'conversation.labels_changed', acc, snap, { labels: changes['labels'] });
  if (changes['assignee_id']) await emit(tx, cause, 'assignee.changed', acc, snap, { assignee_id: changes['assignee_id'] });
  // The assigned agent takes part in the conversation (conversation_type=participating).
  if (changes['assignee_id'] && after.assignee_id !== null) await addParticipants(tx, after, [after.assignee_id]);
  if (changes['team_id']) await emit(tx, cause, 'team.changed', acc, snap, { team_id: changes['team_id'] });
  await emit(tx, cause, 'conversation.updated', acc, snap, changes);

  return addActivities(tx, cause, after, activities ?? texts, opts.last === true);
}

/** The activity messages a change writes (Chatwoot's), in order: status, assignee, team, labels, priority, mute. */
function activityTexts(before: ConversationRow, after: ConversationRow, changes: Changes, ctx: RequestContext, who: string, opts: ChangeOptions): string[] {
  const texts: string[] = [];
  if (changes['status']) {
    const text = opts.statusActivity ?? STATUS_ACTIVITY[after.status]?.replace('%s', who);
    if (text) texts.push(text);
  }
  if (changes['assignee_id']) {
    const selfAssigned = ctx.actor.type === 'user' && ctx.actor.id === after.assignee_id;
    let text: string;
    if (after.assignee_id === null) text = `Conversation unassigned by ${who}`;
    else if (selfAssigned) text = `${who} self-assigned this conversation`;
    else text = `Assigned to ${opts.names?.assignee || `agent #${after.assignee_id}`} by ${who}`;
    texts.push(text);
  }
  if (changes['team_id']) {
    const text =
      after.team_id === null
        ? `Unassigned from ${opts.names?.previousTeam || `team #${before.team_id}`} by ${who}`
        : `Assigned to ${opts.names?.team || `team #${after.team_id}`} team by ${who}`;
    texts.push(text);
  }
  if (changes['labels']) {
    const added = after.labels.filter((l) => !before.labels.includes(l));
    const removed = before.labels.filter((l) => !after.labels.includes(l));
    if (added.length) texts.push(`${who} added ${added.join(', ')}`);
    if (removed.length) texts.push(`${who} removed ${removed.join(', ')}`);
  }
  if (changes['priority']) {
    const from = priorityName(before.priority);
    const to = priorityName(after.priority);
    const text = to === null ? `${who} removed the priority` : from === null ? `${who} set the priority to ${to}` : `${who} changed the priority from ${from} to ${to}`;
    texts.push(text);
  }
  if (changes['muted']) texts.push(after.muted ? `${who} has muted the conversation` : `${who} has unmuted the conversation`);
  return texts;
}

/**
 * Activity messages count as activity (Chatwoot's Message#set_conversation_activity runs for
 * every message), so the conversation's last_activity_at follows the newest one.
 */
export async function addActivities(tx: Executor, cause: Cause, conv: ConversationRow, activities: string[] | MessageRow[], ends = false): Promise<ConversationRow> {
  if (activities.length === 0) return conv;
  let last: MessageRow | null = null;
  for (const a of activities) {
    // A text is inserted here; a row was inserted with the change's update (its event is written here, in order).
    if (typeof a === 'string') last = await addActivity(tx, cause, conv, a);
    else await emit(tx, cause, 'message.created', conv.account_id, messageSnapshot((last = a), conv));
  }
  const at = (last as MessageRow).created_at;
  // Set already by the change's own update (`changeConversation`: the same now()).
  if (conv.last_activity_at instanceof Date && conv.last_activity_at.getTime() === at.getTime()) return conv;
  // `ends` (the transaction changes and reads the row no more): with the COMMIT where the transaction
  // writes at commit (prepared, no round trip of its own). The row was updated above, so this
  // transaction holds its lock; a later read in it would see the old time, hence only when it ends.
  if (!ends || !updateConversationAtCommit(tx, conv, { last_activity_at: at })) {
    await tx.query('UPDATE conversations SET last_activity_at = $3 WHERE account_id = $1 AND id = $2', [conv.account_id, conv.id, at]);
  }
  return { ...conv, last_activity_at: at };
}
