import type { ConsumerSpec, Executor } from '@parley/shared';
import { applyInboxEvent } from './inboxes';
import { forgetConversation } from './last-messages';
import { applyOwnerEvent, OWNER_EVENTS } from './owners';

/**
 * The `automation.projections` queue: copies of other services' records (contacts, agents,
 * teams, agent bots, inboxes) kept from their owners' events; `conversation.deleted`, which
 * drops the conversation's last message; and `account.deleted`, which takes the account's
 * rules, webhooks and everything hanging off them.
 */
export function projectionsConsumer(): ConsumerSpec {
  return {
    name: 'projections',
    bindings: ['account.deleted', 'conversation.deleted', 'inbox.created', 'inbox.updated', 'inbox.deleted', ...OWNER_EVENTS],
    handle: async (tx, event) => {
      if (event.type === 'account.deleted') {
        const id = typeof event.data['id'] === 'number' ? event.data['id'] : event.account_id;
        if (id !== null) await forgetAccount(tx, id);
        return;
      }
      const accountId = event.account_id ?? (typeof event.data['account_id'] === 'number' ? event.data['account_id'] : null);
      if (typeof event.data['id'] !== 'number') return;
      if (event.type === 'conversation.deleted') {
        if (accountId !== null) await forgetConversation(tx, accountId, event.data['id']);
      } else if (event.type.startsWith('inbox.')) {
        if (accountId !== null) await applyInboxEvent(tx, event.type, accountId, event.data as { id: number; account_id: number }, event.occurred_at);
      } else {
        await applyOwnerEvent(tx, event);
      }
    },
  };
}

/** No per-record events: the account is gone, and so is everyone who would read them. */
async function forgetAccount(db: Executor, accountId: number): Promise<void> {
  for (const table of ['rule_runs', 'automation_rules', 'rule_versions', 'webhook_deliveries', 'webhooks', 'inboxes', 'records', 'last_messages']) {
    await db.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
  }
}
