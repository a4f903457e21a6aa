import { defineConsumer, gatherForCommit, PoisonMessageError, SENDER_TYPE_HEADER, type EventEnvelope, type Executor, type Logger, type ProjectionKit } from '@parley/shared';
import { deleteForInbox } from '../contact-inboxes/repository';
import { deleteAccountContacts, touchLastActivities, touchLastActivity } from '../contacts/repository';
import { addInboxMember, deleteInboxMembers, removeInboxMember } from '../inboxes/repository';

function accountOf(event: Pick<EventEnvelope, 'type' | 'account_id'>): number {
  if (event.account_id === null) throw new PoisonMessageError(`${event.type} without account_id`);
  return event.account_id;
}

/**
 * A contact's message is their activity: in a consumer transaction the touches of its events
 * are gathered (the latest per contact) and written in one statement at its commit.
 */
async function touch(tx: Executor, accountId: number, id: number, at: Date): Promise<void> {
  const touches = gatherForCommit(tx, 'contacts.last_activity', () => new Map<string, { accountId: number; id: number; at: Date }>(), (c, m) => touchLastActivities(c, [...m.values()]));
  if (!touches) return touchLastActivity(tx, accountId, id, at);
  const key = `${accountId}:${id}`;
  const had = touches.get(key);
  if (!had || had.at < at) touches.set(key, { accountId, id, at });
}

/**
 * The `contacts.events` queue: the inbox copies (projection kit, in the owner's order),
 * membership, contact activity, account removal. Each handler runs in the consumer's transaction.
 */
export function contactsConsumer(log: Logger, copies: ProjectionKit) {
  return defineConsumer('events', (on) => {
    on(['inbox.created', 'inbox.updated'], async (tx, _inbox, event) => {
      await copies.apply(tx, 'inbox', event);
    });
    on('inbox.deleted', async (tx, inbox, event) => {
      await copies.remove(tx, 'inbox', inbox.account_id, inbox.id, event.occurred_at);
      // Chatwoot destroys an inbox's contact_inboxes with it; the contacts stay.
      await deleteForInbox(tx, inbox.account_id, inbox.id);
      await deleteInboxMembers(tx, inbox.account_id, inbox.id);
    });
    on('inbox_member.added', async (tx, m, event) => {
      await addInboxMember(tx, accountOf(event), m.inbox_id, m.user_id);
    });
    on('inbox_member.removed', async (tx, m, event) => {
      await removeInboxMember(tx, accountOf(event), m.inbox_id, m.user_id);
    });
    // Chatwoot's Message#update_contact_activity: a contact's own message is their activity. Other
    // messages (agents' replies, notes, activity) are not even delivered.
    const contactsOwn = (m: { message_type: number; sender_type: string | null; sender_id: number | null }) => m.message_type === 0 && m.sender_type === 'Contact' && !!m.sender_id;
    on(
      'message.created',
      async (tx, m, event) => {
        if (!contactsOwn(m) || !m.sender_id) return;
        await touch(tx, accountOf(event), m.sender_id, m.created_at ? new Date(m.created_at * 1000) : new Date(event.occurred_at));
      },
      // Only a contact's messages reach the queue (the broker filters on the sender's type).
      { when: contactsOwn, headers: { [SENDER_TYPE_HEADER]: 'Contact' } },
    );
    on('account.deleted', async (tx, _account, event) => {
      const accountId = accountOf(event);
      const n = await deleteAccountContacts(tx, accountId);
      await copies.removeAccount(tx, accountId);
      await deleteInboxMembers(tx, accountId, null);
      log.info({ accountId, contacts: n }, 'account deleted; its contacts removed');
    });
  });
}
