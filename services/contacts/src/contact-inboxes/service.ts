import { randomUUID } from 'node:crypto';
import { ValidationError, writeEvent, type PoolClient, type RequestContext } from '@parley/shared';
import type { ContactRow } from '../contacts/repository';
import { contactInboxDto } from '../contacts/serializers';
import { findBySource, findLatestForContact, insertContactInboxIfAbsent, markVerified, type ContactInboxRow } from './repository';

export interface EnsureContactInbox {
  contact: ContactRow;
  inboxId: number;
  /** Given: that exact source id (422 if another contact holds it in the inbox). Absent: the newest pair, else a new UUID. */
  sourceId?: string | undefined;
  /** Marks the contact inbox verified (never un-verifies). */
  hmacVerified?: boolean | undefined;
}

export interface EnsuredContactInbox {
  contactInbox: ContactInboxRow;
  created: boolean;
}

function sourceTaken(): ValidationError {
  return ValidationError.field('source_id', 'belongs to another contact in this inbox', 'taken');
}

/** Whether an error is ensureContactInbox's "that source id is another contact's". */
export function isSourceTaken(err: unknown): boolean {
  return err instanceof ValidationError && err.items.some((i) => i.field === 'source_id' && i.code === 'taken');
}

/**
 * Finds or creates the contact_inbox of (contact, inbox) inside the caller's transaction.
 * The caller holds the contact row locked (FOR UPDATE), so two requests for the same pair
 * cannot both create one; the (inbox_id, source_id) key settles races on a given source id.
 * A new pair writes `contact_inbox.created`.
 */
export async function ensureContactInbox(tx: PoolClient, ctx: RequestContext, input: EnsureContactInbox): Promise<EnsuredContactInbox> {
  const { contact, inboxId } = input;
  let existing: ContactInboxRow | null;
  if (input.sourceId !== undefined) {
    existing = await findBySource(tx, contact.account_id, inboxId, input.sourceId);
    if (existing && existing.contact_id !== contact.id) throw sourceTaken();
  } else {
    existing = await findLatestForContact(tx, contact.account_id, contact.id, inboxId);
  }
  if (existing) {
    if (input.hmacVerified && !existing.hmac_verified) {
      existing = (await markVerified(tx, contact.account_id, existing.id)) ?? existing;
    }
    return { contactInbox: existing, created: false };
  }
  const sourceId = input.sourceId ?? randomUUID();
  const inserted = await insertContactInboxIfAbsent(tx, {
    accountId: contact.account_id,
    contactId: contact.id,
    inboxId,
    sourceId,
    hmacVerified: input.hmacVerified === true,
  });
  if (!inserted) {
    // A concurrent request took this source id in this inbox a moment ago: fine if it did so
    // for this same contact, a conflict otherwise.
    const winner = await findBySource(tx, contact.account_id, inboxId, sourceId);
    if (!winner || winner.contact_id !== contact.id) throw sourceTaken();
    return { contactInbox: winner, created: false };
  }
  await writeEvent(tx, ctx, {
    type: 'contact_inbox.created',
    accountId: contact.account_id,
    data: { ...contactInboxDto(inserted), account_id: contact.account_id },
  });
  return { contactInbox: inserted, created: true };
}
