import { accountOf, defineConsumer, type Executor, type ProjectionKit } from '@parley/shared';
import { forgetConversation } from './last-messages';

/**
 * The `automation.projections` queue: copies of other services' records (contacts, agents,
 * teams, agent bots, inboxes) kept through the projection kit from their owners' events, in the
 * owner's order; `conversation.deleted`, which drops the conversation's last message; and
 * `account.deleted`, which takes the account's rules, webhooks and everything hanging off them.
 * A removed agent is kept, as old messages still name them.
 */
export function projectionsConsumer(copies: ProjectionKit) {
  return defineConsumer('projections', (on) => {
    on('account.deleted', async (tx, account, event) => {
      const accountId = event.account_id ?? account.id;
      await copies.removeAccount(tx, accountId);
      await forgetAccount(tx, accountId);
    });
    on('conversation.deleted', async (tx, conversation, event) => {
      await forgetConversation(tx, accountOf(event), conversation.id);
    });

    on(['inbox.created', 'inbox.updated'], async (tx, _inbox, event) => {
      await copies.apply(tx, 'inbox', event);
    });
    on('inbox.deleted', async (tx, inbox, event) => {
      const accountId = accountOf(event);
      await copies.remove(tx, 'inbox', accountId, inbox.id, event.occurred_at);
      // Its secret is gone with it: what still waits for its webhook_url would go out unsigned.
      await tx.query(`DELETE FROM webhook_deliveries WHERE account_id = $1 AND kind = 'inbox' AND inbox_id = $2 AND status = 'pending'`, [accountId, inbox.id]);
    });

    on(['contact.created', 'contact.updated'], async (tx, _contact, event) => {
      await copies.apply(tx, 'contact', event);
    });
    on('contact.merged', async (tx, merged, event) => {
      const { merged_contact_id: gone, ...contact } = merged;
      const accountId = accountOf(event);
      await copies.upsert(tx, 'contact', accountId, contact.id, contact, event.occurred_at);
      // A merge names the contact that went into this one.
      await copies.remove(tx, 'contact', accountId, gone, event.occurred_at);
    });
    on('contact.deleted', async (tx, contact, event) => {
      await copies.remove(tx, 'contact', accountOf(event), contact.id, event.occurred_at);
    });

    on(['agent.added', 'agent.updated', 'agent.removed'], async (tx, _agent, event) => {
      await copies.apply(tx, 'agent', event);
    });
    on('user.updated', async (tx, user, event) => {
      await copies.patchUser(tx, user, event.occurred_at);
    });

    on(['team.created', 'team.updated'], async (tx, _team, event) => {
      await copies.apply(tx, 'team', event);
    });
    on('team.deleted', async (tx, team, event) => {
      await copies.remove(tx, 'team', accountOf(event), team.id, event.occurred_at);
    });

    on(['agent_bot.created', 'agent_bot.updated'], async (tx, bot, event) => {
      // A global bot (no account) is no account's copy.
      const accountId = event.account_id ?? bot.account_id;
      if (accountId !== null) await copies.upsert(tx, 'agent_bot', accountId, bot.id, bot, event.occurred_at);
    });
    on('agent_bot.deleted', async (tx, bot, event) => {
      const accountId = event.account_id ?? bot.account_id;
      if (accountId !== null) await copies.remove(tx, 'agent_bot', accountId, bot.id, event.occurred_at);
    });
  });
}

/** No per-record events: the account is gone, and so is everyone who would read them. */
async function forgetAccount(db: Executor, accountId: number): Promise<void> {
  for (const table of ['rule_runs', 'automation_rules', 'rule_versions', 'webhook_deliveries', 'webhooks', 'last_messages']) {
    await db.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
  }
}
