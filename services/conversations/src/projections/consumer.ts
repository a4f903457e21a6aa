import type { PoolClient } from 'pg';
import { accountOf, createLogger, defineConsumer, ProjectionKit, systemContext, writeEvent, type Agent, type EventEnvelope } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { changeConversation, type Cause } from '../conversations/changes';
import { deleteConversationsOf } from '../conversations/deletion';

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
async function removeAgent(copies: ProjectionKit, tx: PoolClient, event: EventEnvelope, accountId: number, agent: Agent): Promise<void> {
  const userId = agent.id;
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
  // Their saved filters of this account: private to them, of use to nobody else.
  await tx.query('DELETE FROM custom_filters WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
  // Kept, marked removed: their old messages still show who wrote them.
  await copies.upsert(tx, 'agent', accountId, userId, { ...agent, removed: true }, event.occurred_at);
}

/** `team.deleted`: Chatwoot nullifies the team of its conversations. */
async function removeTeam(copies: ProjectionKit, tx: PoolClient, event: EventEnvelope, accountId: number, teamId: number): Promise<void> {
  const cause = causeOf(event, accountId);
  for (const c of await lockConversations(tx, 'account_id = $1 AND team_id = $2', [accountId, teamId])) {
    await changeConversation(tx, cause, c, { team_id: null }, { names: { previousTeam: typeof event.data['name'] === 'string' ? (event.data['name'] as string) : null } });
  }
  await tx.query('DELETE FROM team_member_projections WHERE account_id = $1 AND team_id = $2', [accountId, teamId]);
  await copies.remove(tx, 'team', accountId, teamId, event.occurred_at);
}

/** `account.deleted`: everything this service keeps for the account. */
async function removeAccount(tx: PoolClient, accountId: number): Promise<void> {
  for (const table of [
    'conversations', 'inboxes', 'labels', 'canned_responses', 'custom_attribute_definitions', 'account_counters', 'team_member_projections', 'command_receipts', 'custom_filters',
  ]) {
    await tx.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
  }
}

/**
 * The `conversations.projections` queue: keeps the copies of contacts, agents, teams and bots
 * (the projection kit, in the owners' order) and team membership from their owners' events, and
 * runs the cascades those owners' deletions imply. Reads need no peers: read-throughs go
 * through the app's kit.
 */
export function projectionsConsumer(copies: ProjectionKit = new ProjectionKit({ log: createLogger('conversations') })) {
  return defineConsumer('projections', (on) => {
    on(['contact.created', 'contact.updated'], async (tx, _contact, event) => {
      await copies.apply(tx, 'contact', event);
    });
    on('contact.merged', async (tx, merged, event) => {
      const { merged_contact_id: mergedId, ...contact } = merged;
      const accountId = accountOf(event);
      await copies.upsert(tx, 'contact', accountId, contact.id, contact, event.occurred_at);
      // A merge names the contact that went into this one; its conversations follow it.
      await tx.query('UPDATE conversations SET contact_id = $3, updated_at = now() WHERE account_id = $1 AND contact_id = $2', [accountId, mergedId, contact.id]);
      await copies.remove(tx, 'contact', accountId, mergedId, event.occurred_at);
    });
    on('contact.deleted', async (tx, contact, event) => {
      const accountId = accountOf(event);
      // The contact's conversations (and their messages) go, each with `conversation.deleted`.
      await deleteConversationsOf(tx, causeOf(event, accountId), accountId, { contactId: contact.id });
      await copies.remove(tx, 'contact', accountId, contact.id, event.occurred_at);
    });
    on(['agent.added', 'agent.updated'], async (tx, _agent, event) => {
      await copies.apply(tx, 'agent', event);
    });
    on('agent.removed', async (tx, agent, event) => {
      await removeAgent(copies, tx, event, accountOf(event), agent);
    });
    // A user's names and e-mail show in every account they belong to.
    on('user.updated', async (tx, user, event) => {
      await copies.patchUser(tx, user, event.occurred_at);
    });
    on(['team.created', 'team.updated'], async (tx, _team, event) => {
      await copies.apply(tx, 'team', event);
    });
    on('team.deleted', async (tx, team, event) => {
      await removeTeam(copies, tx, event, accountOf(event), team.id);
    });
    on('team_member.added', async (tx, m, event) => {
      await tx.query('INSERT INTO team_member_projections (account_id, team_id, user_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [accountOf(event), m.team_id, m.user_id]);
    });
    on('team_member.removed', async (tx, m, event) => {
      await tx.query('DELETE FROM team_member_projections WHERE account_id = $1 AND team_id = $2 AND user_id = $3', [accountOf(event), m.team_id, m.user_id]);
    });
    on(['agent_bot.created', 'agent_bot.updated'], async (tx, bot, event) => {
      await copies.upsert(tx, 'agent_bot', accountOf(event), bot.id, bot, event.occurred_at);
    });
    on('agent_bot.deleted', async (tx, bot, event) => {
      await copies.remove(tx, 'agent_bot', accountOf(event), bot.id, event.occurred_at);
    });
    on('account.deleted', async (tx, account, event) => {
      const accountId = event.account_id ?? account.id;
      await removeAccount(tx, accountId);
      await copies.removeAccount(tx, accountId);
    });
  });
}
