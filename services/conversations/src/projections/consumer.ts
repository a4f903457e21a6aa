import type { PoolClient } from 'pg';
import { z } from 'zod';
import { PoisonMessageError, systemContext, writeEvent, type ConsumerSpec, type EventEnvelope } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { changeConversation, type Cause } from '../conversations/changes';
import { deleteConversationsOf } from '../conversations/deletion';
import { deleteProjection, upsertProjection } from './store';

const record = z.looseObject({ id: z.number().int(), account_id: z.number().int().nullish() });
const teamMember = z.looseObject({ team_id: z.number().int(), user_id: z.number().int() });
const userData = z.looseObject({ id: z.number().int(), name: z.string().optional(), display_name: z.string().nullish(), email: z.string().optional() });

/** The account an event is about: the envelope's, else the record's own. */
function accountOf(event: EventEnvelope, data: { account_id?: number | null }): number {
  const id = event.account_id ?? data.account_id;
  if (typeof id !== 'number') throw new PoisonMessageError(`${event.type} without an account`);
  return id;
}

function parse<T extends z.ZodType>(schema: T, event: EventEnvelope): z.infer<T> {
  const r = schema.safeParse(event.data);
  if (!r.success) throw new PoisonMessageError(`${event.type}: unexpected data`);
  return r.data;
}

/** Changes a cascade makes are recorded with the actor of the event that caused them. */
function causeOf(event: EventEnvelope, accountId: number): Cause {
  const ctx = systemContext('conversations', accountId, event.request_id ?? event.id, event.actor);
  ctx.ip = event.meta?.ip ?? null;
  return { ctx, causationId: event.id };
}

async function lockConversations(tx: PoolClient, sql: string, values: unknown[]): Promise<ConversationRow[]> {
  const { rows } = await tx.query<ConversationRow>(`SELECT * FROM conversations WHERE ${sql} ORDER BY id FOR UPDATE`, values);
  return rows;
}


/** `agent.removed`: unassigned everywhere in the account, and out of every inbox (Chatwoot's AccountUser#remove_user_from_account). */
async function removeAgent(tx: PoolClient, event: EventEnvelope, accountId: number, userId: number, data: Record<string, unknown>): Promise<void> {
  const cause = causeOf(event, accountId);
  for (const c of await lockConversations(tx, 'account_id = $1 AND assignee_id = $2', [accountId, userId])) {
    await changeConversation(tx, cause, c, { assignee_id: null });
  }
  const { rows } = await tx.query<{ id: number; inbox_id: number; user_id: number }>(
    'DELETE FROM inbox_members WHERE account_id = $1 AND user_id = $2 RETURNING id, inbox_id, user_id',
    [accountId, userId],
  );
  for (const m of rows) await writeEvent(tx, cause.ctx, { type: 'inbox_member.removed', accountId, data: m, causationId: event.id });
  await tx.query('DELETE FROM team_member_projections WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
  // Kept, marked removed: their old messages still show who wrote them.
  await upsertProjection(tx, 'agent_projections', accountId, userId, { ...data, removed: true }, event.occurred_at);
}

/** `team.deleted`: Chatwoot nullifies the team of its conversations. */
async function removeTeam(tx: PoolClient, event: EventEnvelope, accountId: number, teamId: number): Promise<void> {
  const cause = causeOf(event, accountId);
  for (const c of await lockConversations(tx, 'account_id = $1 AND team_id = $2', [accountId, teamId])) {
    await changeConversation(tx, cause, c, { team_id: null }, { names: { previousTeam: typeof event.data['name'] === 'string' ? (event.data['name'] as string) : null } });
  }
  await tx.query('DELETE FROM team_member_projections WHERE account_id = $1 AND team_id = $2', [accountId, teamId]);
  await deleteProjection(tx, 'team_projections', accountId, teamId);
}

/** `account.deleted`: everything this service keeps for the account. */
async function removeAccount(tx: PoolClient, accountId: number): Promise<void> {
  for (const table of [
    'conversations', 'inboxes', 'labels', 'canned_responses', 'custom_attribute_definitions', 'account_counters', 'contact_projections', 'agent_projections',
    'team_projections', 'team_member_projections', 'agent_bot_projections', 'command_receipts',
  ]) {
    await tx.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
  }
}

/**
 * Keeps the read models of contacts, agents, teams and bots fresh from their owners' events,
 * and runs the cascades those owners' deletions imply.
 */
export async function handleProjectionEvent(tx: PoolClient, event: EventEnvelope): Promise<void> {
  const at = event.occurred_at;
  switch (event.type) {
    case 'contact.created':
    case 'contact.updated':
    case 'contact.merged': {
      const d = parse(record, event);
      const accountId = accountOf(event, d);
      await upsertProjection(tx, 'contact_projections', accountId, d.id, d, at);
      // A merge names the contact that went into this one; its conversations follow it.
      const mergedId = d['merged_contact_id'];
      if (event.type === 'contact.merged' && typeof mergedId === 'number') {
        await tx.query('UPDATE conversations SET contact_id = $3, updated_at = now() WHERE account_id = $1 AND contact_id = $2', [accountId, mergedId, d.id]);
        await deleteProjection(tx, 'contact_projections', accountId, mergedId);
      }
      return;
    }
    case 'contact.deleted': {
      const d = parse(record, event);
      const accountId = accountOf(event, d);
      // The contact's conversations (and their messages) go, each with `conversation.deleted`.
      await deleteConversationsOf(tx, causeOf(event, accountId), accountId, { contactId: d.id });
      await deleteProjection(tx, 'contact_projections', accountId, d.id);
      return;
    }
    case 'agent.added':
    case 'agent.updated': {
      const d = parse(record, event);
      await upsertProjection(tx, 'agent_projections', accountOf(event, d), d.id, d, at);
      return;
    }
    case 'agent.removed': {
      const d = parse(record, event);
      await removeAgent(tx, event, accountOf(event, d), d.id, d);
      return;
    }
    case 'user.updated': {
      // A user's name and email show in every account they belong to.
      const d = parse(userData, event);
      const patch: Record<string, unknown> = {};
      if (d.name !== undefined) patch['name'] = d.name;
      if (d.email !== undefined) patch['email'] = d.email;
      if (d.display_name !== undefined) patch['display_name'] = d.display_name ?? null;
      if (d.name !== undefined || d.display_name !== undefined) patch['available_name'] = d.display_name || d.name;
      if (Object.keys(patch).length > 0) {
        await tx.query('UPDATE agent_projections SET data = data || $2::jsonb WHERE id = $1 AND version_at <= $3', [d.id, JSON.stringify(patch), at]);
      }
      return;
    }
    case 'team.created':
    case 'team.updated': {
      const d = parse(record, event);
      await upsertProjection(tx, 'team_projections', accountOf(event, d), d.id, d, at);
      return;
    }
    case 'team.deleted': {
      const d = parse(record, event);
      await removeTeam(tx, event, accountOf(event, d), d.id);
      return;
    }
    case 'team_member.added':
    case 'team_member.removed': {
      const d = parse(teamMember, event);
      const accountId = accountOf(event, {});
      if (event.type === 'team_member.added') {
        await tx.query('INSERT INTO team_member_projections (account_id, team_id, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [accountId, d.team_id, d.user_id]);
      } else {
        await tx.query('DELETE FROM team_member_projections WHERE account_id = $1 AND team_id = $2 AND user_id = $3', [accountId, d.team_id, d.user_id]);
      }
      return;
    }
    case 'agent_bot.created':
    case 'agent_bot.updated': {
      const d = parse(record, event);
      await upsertProjection(tx, 'agent_bot_projections', accountOf(event, d), d.id, d, at);
      return;
    }
    case 'agent_bot.deleted': {
      const d = parse(record, event);
      await deleteProjection(tx, 'agent_bot_projections', accountOf(event, d), d.id);
      return;
    }
    case 'account.deleted': {
      const d = parse(record, event);
      await removeAccount(tx, event.account_id ?? d.id);
      return;
    }
    default:
      return;
  }
}

export const projectionsConsumer: ConsumerSpec = {
  name: 'projections',
  bindings: [
    'contact.created', 'contact.updated', 'contact.merged', 'contact.deleted',
    'agent.added', 'agent.updated', 'agent.removed', 'user.updated',
    'team.created', 'team.updated', 'team.deleted', 'team_member.added', 'team_member.removed',
    'agent_bot.created', 'agent_bot.updated', 'agent_bot.deleted',
    'account.deleted',
  ],
  handle: handleProjectionEvent,
};
