import type { ConsumerSpec, Executor } from '@parley/shared';
import { applyContactEvent, type ContactSnapshot } from './contacts';
import { applyInboxEvent } from './inboxes';

/**
 * The `automation.projections` queue: contacts (rule conditions, payload senders) and inboxes
 * (the API inbox's webhook_url and its secret, payload inbox names), kept from their owners' events;
 * and `account.deleted`, which takes the account's rules, webhooks and everything hanging off them.
 */
export function projectionsConsumer(): ConsumerSpec {
  return {
    name: 'projections',
    bindings: ['account.deleted', 'contact.created', 'contact.updated', 'contact.merged', 'contact.deleted', 'inbox.created', 'inbox.updated', 'inbox.deleted'],
    handle: async (tx, event) => {
      if (event.type === 'account.deleted') {
        const id = typeof event.data['id'] === 'number' ? event.data['id'] : event.account_id;
        if (id !== null) await forgetAccount(tx, id);
        return;
      }
      const accountId = event.account_id ?? (typeof event.data['account_id'] === 'number' ? event.data['account_id'] : null);
      if (accountId === null || typeof event.data['id'] !== 'number') return;
      if (event.type.startsWith('contact.')) {
        await applyContactEvent(tx, event.type, accountId, event.data as unknown as ContactSnapshot, event.occurred_at);
      } else {
        await applyInboxEvent(tx, event.type, accountId, event.data as { id: number; account_id: number }, event.occurred_at);
      }
    },
  };
}

/** No per-record events: the account is gone, and so is everyone who would read them. */
async function forgetAccount(db: Executor, accountId: number): Promise<void> {
  for (const table of ['rule_runs', 'automation_rules', 'rule_versions', 'webhook_deliveries', 'webhooks', 'inboxes', 'contacts']) {
    await db.query(`DELETE FROM ${table} WHERE account_id = $1`, [accountId]);
  }
}
