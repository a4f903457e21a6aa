import { PoisonMessageError, type ConsumerSpec, type EventEnvelope, type Logger, type PoolClient } from '@parley/shared';
import { z } from 'zod';
import { deleteForInbox } from '../contact-inboxes/repository';
import { deleteAccountContacts, touchLastActivity } from '../contacts/repository';
import { inboxDataSchema, toInboxData } from '../inboxes/directory';
import { addInboxMember, applyInboxEvent, deleteAccountInboxes, deleteInboxMembers, removeInboxMember, tombstoneInbox } from '../inboxes/repository';

const memberSchema = z.looseObject({ inbox_id: z.number().int().positive(), user_id: z.number().int().positive() });
const messageSchema = z.looseObject({
  message_type: z.number(),
  sender_type: z.string().nullish(),
  sender_id: z.number().nullish(),
  created_at: z.number().nullish(),
});

function parse<S extends z.ZodType>(schema: S, event: EventEnvelope): z.infer<S> {
  const r = schema.safeParse(event.data);
  if (!r.success) throw new PoisonMessageError(`${event.type} data: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

function accountOf(event: EventEnvelope): number {
  if (event.account_id === null) throw new PoisonMessageError(`${event.type} without account_id`);
  return event.account_id;
}

/** One event's effect, inside the consumer's transaction (which also records the event id). */
export async function handleEvent(tx: PoolClient, event: EventEnvelope, log: Logger): Promise<void> {
  const at = new Date(event.occurred_at);
  switch (event.type) {
    case 'inbox.created':
    case 'inbox.updated':
      await applyInboxEvent(tx, toInboxData(parse(inboxDataSchema, event)), at);
      return;
    case 'inbox.deleted': {
      const inbox = toInboxData(parse(inboxDataSchema, event));
      await tombstoneInbox(tx, inbox, at);
      // Chatwoot destroys an inbox's contact_inboxes with it; the contacts stay.
      await deleteForInbox(tx, inbox.account_id, inbox.id);
      await deleteInboxMembers(tx, inbox.account_id, inbox.id);
      return;
    }
    case 'inbox_member.added': {
      const m = parse(memberSchema, event);
      await addInboxMember(tx, accountOf(event), m.inbox_id, m.user_id);
      return;
    }
    case 'inbox_member.removed': {
      const m = parse(memberSchema, event);
      await removeInboxMember(tx, accountOf(event), m.inbox_id, m.user_id);
      return;
    }
    case 'message.created': {
      // Chatwoot's Message#update_contact_activity: a contact's own message is their activity.
      const m = parse(messageSchema, event);
      if (m.message_type !== 0 || m.sender_type !== 'Contact' || !m.sender_id) return;
      await touchLastActivity(tx, accountOf(event), m.sender_id, m.created_at ? new Date(m.created_at * 1000) : at);
      return;
    }
    case 'account.deleted': {
      const accountId = accountOf(event);
      const n = await deleteAccountContacts(tx, accountId);
      await deleteAccountInboxes(tx, accountId);
      await deleteInboxMembers(tx, accountId, null);
      log.info({ accountId, contacts: n }, 'account deleted; its contacts removed');
      return;
    }
    default:
      log.debug({ type: event.type }, 'event not handled here');
  }
}

/** The `contacts.events` queue: the inbox projection, membership, contact activity, account removal. */
export function contactsConsumer(log: Logger): ConsumerSpec {
  return {
    name: 'events',
    bindings: ['inbox.created', 'inbox.updated', 'inbox.deleted', 'inbox_member.added', 'inbox_member.removed', 'message.created', 'account.deleted'],
    handle: (tx, event) => handleEvent(tx, event, log),
  };
}
