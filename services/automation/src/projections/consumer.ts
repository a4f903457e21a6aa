import type { ConsumerSpec } from '@parley/shared';
import { applyContactEvent, type ContactSnapshot } from './contacts';
import { applyInboxEvent } from './inboxes';

/**
 * The `automation.projections` queue: contacts (rule conditions, payload senders) and inboxes
 * (the API inbox's webhook_url and its secret, payload inbox names), kept from their owners' events.
 */
export function projectionsConsumer(): ConsumerSpec {
  return {
    name: 'projections',
    bindings: ['contact.created', 'contact.updated', 'contact.merged', 'contact.deleted', 'inbox.created', 'inbox.updated', 'inbox.deleted'],
    handle: async (tx, event) => {
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
