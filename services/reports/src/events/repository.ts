import type { Executor } from '@parley/shared';
import type { ConversationSnapshot } from '@parley/shared';
import { deriveReportingEvents, type Fact } from './timeline';

export interface ConversationState {
  account_id: number;
  id: number;
  created_at: Date | null;
  deleted: boolean;
}

/**
 * The conversation's row, created empty when first seen, locked for the rest of the transaction:
 * events of one conversation (handled concurrently from one batch, or by two replicas) are
 * applied one after the other, and each sees the facts the previous one committed.
 */
export async function lockConversation(tx: Executor, accountId: number, id: number): Promise<ConversationState> {
  await tx.query('INSERT INTO conversations (account_id, id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, id]);
  const r = await tx.query<ConversationState>('SELECT account_id, id, created_at, deleted FROM conversations WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, id]);
  const row = r.rows[0] as ConversationState;
  return { ...row, account_id: Number(row.account_id), id: Number(row.id) };
}

const fromUnix = (s: number | null) => (s === null ? null : new Date(s * 1000));

/** Keeps the newest snapshot (by the owner's event time): an older event never overwrites newer state. */
export async function applySnapshot(tx: Executor, snap: ConversationSnapshot, occurredAt: string): Promise<void> {
  await tx.query(
    `UPDATE conversations SET inbox_id = $3, status = $4, assignee_id = $5, team_id = $6, labels = $7, waiting_since = $8,
            first_reply_created_at = $9, created_at = $10, version_at = $11
      WHERE account_id = $1 AND id = $2 AND version_at <= $11 AND NOT deleted`,
    [snap.account_id, snap.id, snap.inbox_id, snap.status, snap.assignee_id, snap.team_id, snap.labels, fromUnix(snap.waiting_since), fromUnix(snap.first_reply_created_at), fromUnix(snap.created_at), occurredAt],
  );
}

export interface NewFact extends Fact {
  account_id: number;
  conversation_id: number;
  event_id: string;
  seq: number;
}

/** Records a fact once (a redelivered event adds nothing). */
export async function insertFact(tx: Executor, f: NewFact): Promise<void> {
  await tx.query(
    `INSERT INTO conversation_facts (account_id, conversation_id, event_id, kind, at, seq, inbox_id, assignee_id, team_id, message_type, private,
                                     sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (event_id) DO NOTHING`,
    [
      f.account_id, f.conversation_id, f.event_id, f.kind, f.at, f.seq, f.inbox_id, f.assignee_id, f.team_id, f.message_type, f.private, f.sender_type, f.sender_id,
      f.automated, f.status_from, f.status_to, f.actor_type, f.business_hours === null ? null : JSON.stringify(f.business_hours),
    ],
  );
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function factsOf(tx: Executor, accountId: number, conversationId: number): Promise<Fact[]> {
  const r = await tx.query(
    `SELECT kind, at, inbox_id, assignee_id, team_id, message_type, private, sender_type, sender_id, automated, status_from, status_to, actor_type, business_hours
       FROM conversation_facts WHERE account_id = $1 AND conversation_id = $2 ORDER BY at, seq, id`,
    [accountId, conversationId],
  );
  return r.rows.map((row) => ({
    ...row,
    inbox_id: num(row.inbox_id),
    assignee_id: num(row.assignee_id),
    team_id: num(row.team_id),
    sender_id: num(row.sender_id),
  })) as Fact[];
}

/**
 * Rewrites the conversation's reporting events from its facts. Runs after every fact, so the
 * events are always those of all the facts known, in their time order.
 */
export async function rebuildConversation(tx: Executor, accountId: number, conversationId: number, createdAt: Date | null): Promise<void> {
  await tx.query('DELETE FROM reporting_events WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
  const facts = await factsOf(tx, accountId, conversationId);
  // Until an event has told us when the conversation began, its first fact stands in.
  const start = createdAt ?? facts[0]?.at;
  if (!start) return;
  const events = deriveReportingEvents(start, facts);
  if (events.length === 0) return;
  await tx.query(
    `INSERT INTO reporting_events (account_id, conversation_id, name, value, value_in_business_hours, event_start_time, event_end_time, inbox_id, user_id, team_id, created_at)
     SELECT $1, $2, e.name, e.value, e.bh, e.s, e.e, e.inbox_id, e.user_id, e.team_id, e.e
       FROM unnest($3::text[], $4::float8[], $5::float8[], $6::timestamptz[], $7::timestamptz[], $8::bigint[], $9::bigint[], $10::bigint[])
            AS e(name, value, bh, s, e, inbox_id, user_id, team_id)`,
    [
      accountId,
      conversationId,
      events.map((e) => e.name),
      events.map((e) => e.value),
      events.map((e) => e.value_in_business_hours),
      events.map((e) => e.start),
      events.map((e) => e.end),
      events.map((e) => e.inbox_id),
      events.map((e) => e.user_id),
      events.map((e) => e.team_id),
    ],
  );
}

/** A deleted conversation leaves the reports (Chatwoot deletes its reporting events with it); the row stays as a tombstone. */
export async function deleteConversation(tx: Executor, accountId: number, conversationId: number): Promise<void> {
  await tx.query('UPDATE conversations SET deleted = true WHERE account_id = $1 AND id = $2', [accountId, conversationId]);
  await tx.query('DELETE FROM conversation_facts WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
  await tx.query('DELETE FROM reporting_events WHERE account_id = $1 AND conversation_id = $2', [accountId, conversationId]);
}

/** Everything of a deleted account. */
export async function deleteAccount(tx: Executor, accountId: number): Promise<void> {
  for (const t of ['reporting_events', 'conversation_facts', 'conversations']) await tx.query(`DELETE FROM ${t} WHERE account_id = $1`, [accountId]);
}
