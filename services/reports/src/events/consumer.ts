import type { PoolClient } from 'pg';
import { accountOf, defineConsumer, NOT_ACTIVITY_MESSAGES, type ConversationSnapshot, type EventEnvelope, type ProjectionKit, type TypedEnvelope } from '@parley/shared';
import { businessHoursOf, type BusinessHours } from './business-hours';
import { deleteLabel, renameLabel, upsertLabel } from './labels';
import { deleteAccount, keepSnapshot, lockConversations, deleteConversation, lockConversation, rebuildConversation, writeConversation, type ConversationState, type NewFact } from './repository';

/** What every fact copies from the conversation as it was after the change. */
function context(snap: ConversationSnapshot) {
  return { inbox_id: snap.inbox_id, assignee_id: snap.assignee_id, team_id: snap.team_id };
}

const noMessage = { message_type: null, private: null, sender_type: null, sender_id: null, automated: false };
const noStatus = { status_from: null, status_to: null, actor_type: null };

/**
 * Applies one event to a conversation: keeps its newest snapshot, records the fact (if the event
 * is one) and brings its reporting events up to date. A fact that comes after all the others
 * (the usual case) is derived from the timeline stored after the last one; any other (late, or
 * before the conversation's creation time is known) rebuilds the conversation's events from all
 * its facts. The conversation's row lock serialises events of one conversation; the kernel's
 * `processed_events` and the facts' unique event id make a redelivery change nothing.
 */
async function applyToConversation(
  projections: ProjectionKit,
  tx: PoolClient,
  event: TypedEnvelope,
  snap: ConversationSnapshot,
  fact: Omit<NewFact, 'account_id' | 'conversation_id' | 'event_id' | 'business_hours'> | null,
): Promise<void> {
  const accountId = accountOf(event);
  const snapshot = { ...snap, account_id: accountId };
  // Only a snapshot, of a conversation this batch writes already: it goes with that write.
  if (!fact && keepSnapshot(tx, snapshot, event.occurred_at)) return;
  const state = await lockConversation(tx, accountId, snap.id, fact?.inbox_id ?? null);
  if (state.deleted) return;
  const createdAt = new Date(snap.created_at * 1000);
  if (!fact && state.created_at === null) {
    // The first time the conversation's creation is known: its events rebuilt from its facts (the snapshot written first).
    await writeConversation(tx, state, snapshot, event.occurred_at, null, createdAt, { now: true });
    await rebuildConversation(tx, accountId, snap.id, createdAt);
    return;
  }
  if (!fact) return writeConversation(tx, state, snapshot, event.occurred_at, null, createdAt);
  const hours = await inboxHours(projections, tx, accountId, fact.inbox_id, state.inbox_copy, event.id);
  // Object.assign, not `{ ...fact, ... }`: an object spread given new properties is slow on
  // Node 20's V8 (docs/architecture.md, "Runtime"), and this runs for every fact.
  const full: NewFact = Object.assign({}, fact, { business_hours: hours, account_id: accountId, conversation_id: snap.id, event_id: event.id });
  // The snapshot kept, the fact recorded and, if it comes after the others, its events: one
  // statement, shared with the batch's other conversations when the batch's lock read this one.
  await writeConversation(tx, state, snapshot, event.occurred_at, full, createdAt);
}

/**
 * The working hours a fact records: its inbox's copy as it stands (`row`, read with the
 * conversation's lock; read through to the conversations service when no event has brought it
 * yet; an owner that does not answer leaves them off). Recorded with the fact, so rebuilding
 * gives the same values whatever the inbox's hours became later (Chatwoot computes them once,
 * when the reporting event is written).
 */
async function inboxHours(projections: ProjectionKit, tx: PoolClient, accountId: number, inboxId: number | null, row: ConversationState['inbox_copy'], requestId: string): Promise<BusinessHours | null> {
  if (inboxId === null) return null;
  const copies = await projections.completeKinds(tx, accountId, { inbox: [inboxId] }, row ? [row] : [], { requestId });
  return businessHoursOf(copies.inbox.get(inboxId) ?? null);
}

/**
 * The conversation events that only bring a newer snapshot (no fact). Not the labels, assignee
 * and team events: the conversations service writes each of them only beside a
 * `conversation.updated` or `conversation.created` of the same snapshot, in the same transaction
 * (conversations/changes.ts, the create), so consuming them read the same snapshot twice.
 */
const SNAPSHOT_EVENTS = ['conversation.created', 'conversation.updated'] as const;

/** What this queue was bound to before (EventConsumer unbinds them at start). */
export const RETIRED_BINDINGS = ['conversation.labels_changed', 'assignee.changed', 'team.changed'];

/** The events whose handler begins by locking their conversation (`applyToConversation`) and writes nothing else. */
const CONVERSATION_EVENTS = new Set<string>([...SNAPSHOT_EVENTS, 'conversation.status_changed', 'message.created']);

/**
 * A batch's `before`: when every event of it is a conversation's or a message's, their
 * conversations are locked and read at once (`lockConversations`), with the inbox whose copy a
 * fact records, instead of a round trip per event. A batch with any other event (a label renamed
 * on every conversation, an account deleted) reads one event at a time, after what the events
 * before it wrote.
 */
export async function lockBatch(tx: PoolClient, events: EventEnvelope[]): Promise<void> {
  if (events.length < 2 || !events.every((e) => CONVERSATION_EVENTS.has(e.type))) return;
  await lockConversations(
    tx,
    events.map((e) => {
      const snap = (e.type === 'message.created' ? e.data['conversation'] : e.data) as ConversationSnapshot;
      return { accountId: accountOf(e), id: snap.id, inboxId: snap.inbox_id };
    }),
  );
}

/**
 * The queue `reports.events`: the conversation events and messages reports are computed from,
 * labels, and the agents, teams and inboxes reports are scoped to and the tables list (copies
 * through the projection kit).
 */
export const reportsConsumer = (projections: ProjectionKit) =>
  defineConsumer('events', (on) => {
  on(['team.created', 'team.updated'], async (tx, team, event) => {
    await projections.apply(tx, 'team', event);
  });
  on('team.deleted', async (tx, team, event) => {
    await projections.remove(tx, 'team', accountOf(event), team.id, event.occurred_at);
  });
  // Agents: a report scoped to an agent checks the id is a member of the account.
  on(['agent.added', 'agent.updated'], async (tx, _agent, event) => {
    await projections.apply(tx, 'agent', event);
  });
  on('agent.removed', async (tx, agent, event) => {
    await projections.remove(tx, 'agent', accountOf(event), agent.id, event.occurred_at);
  });
  on('user.updated', async (tx, user, event) => {
    await projections.patchUser(tx, user, event.occurred_at);
  });
  on(['inbox.created', 'inbox.updated'], async (tx, inbox, event) => {
    await projections.apply(tx, 'inbox', event);
  });
  on('inbox.deleted', async (tx, inbox, event) => {
    await projections.remove(tx, 'inbox', accountOf(event), inbox.id, event.occurred_at);
  });

  on(SNAPSHOT_EVENTS, async (tx, snap, event) => {
    await applyToConversation(projections, tx, event, snap, null);
  });

  on('conversation.status_changed', async (tx, snap, event) => {
    const change = event.changes?.['status'];
    const from = typeof change?.[0] === 'string' ? change[0] : null;
    await applyToConversation(projections, tx, event, snap, {
      kind: 'status',
      at: new Date(event.occurred_at),
      seq: 0,
      ...context(snap),
      ...noMessage,
      status_from: from,
      status_to: snap.status,
      actor_type: event.actor.type,
    });
  });

  on(
    'message.created',
    async (tx, msg, event) => {
      // Only what reports count or measure: incoming messages and public outgoing replies (not
      // activity messages or templates), and a person's private notes (never counted as messages,
      // but a person working the conversation means a resolution is not the bot's, as in Chatwoot).
      const counted = (msg.message_type === 0 || msg.message_type === 1) && (!msg.private || msg.sender_type === 'User');
      const attrs = msg.content_attributes;
      await applyToConversation(
        projections,
        tx,
        event,
        msg.conversation,
        counted
          ? {
              kind: 'message',
              at: new Date(event.occurred_at),
              seq: msg.id,
              ...context(msg.conversation),
              message_type: msg.message_type,
              private: msg.private,
              sender_type: msg.sender_type,
              sender_id: msg.sender_id,
              automated: attrs['automation_rule_id'] != null || attrs['campaign_id'] != null || event.actor.type === 'automation_rule',
              ...noStatus,
            }
          : null,
      );
    },
    // Not activity messages: no fact, and the change each notes comes with its conversation.updated
    // (or status_changed) of the same snapshot (conversations/changes.ts). The broker does not
    // deliver them (their message type header); one from an older relay is acked without a transaction.
    { when: (msg) => msg.message_type !== 2, headers: NOT_ACTIVITY_MESSAGES },
  );

  on('conversation.deleted', async (tx, snap, event) => {
    const accountId = accountOf(event);
    await lockConversation(tx, accountId, snap.id);
    await deleteConversation(tx, accountId, snap.id);
  });

  on(['label.created', 'label.updated'], async (tx, label, event) => {
    const accountId = accountOf(event);
    const title = typeof label['title'] === 'string' ? label['title'] : null;
    await upsertLabel(tx, accountId, Number(label.id), title, event.occurred_at);
    // The owner renames the tag on its conversations without an event per conversation.
    const rename = event.changes?.['title'];
    if (rename && typeof rename[0] === 'string' && typeof rename[1] === 'string') await renameLabel(tx, accountId, rename[0], rename[1]);
  });

  on('label.deleted', async (tx, label, event) => {
    await deleteLabel(tx, accountOf(event), Number(label.id), event.occurred_at);
  });

  on('account.deleted', async (tx, account, event) => {
    const accountId = event.account_id ?? account.id;
    await deleteAccount(tx, accountId);
    await projections.removeAccount(tx, accountId);
    await tx.query('DELETE FROM agent_lists WHERE account_id = $1', [accountId]);
  });
});
