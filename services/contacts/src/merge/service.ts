import { NotFoundError, ValidationError, withTransaction, writeEvent, type RequestContext } from '@parley/shared';
import type { AppDeps } from '../deps';
import { deleteContact, findContact, updateContact, type ContactRow, type ContactWrite } from '../contacts/repository';
import { contactSnapshot } from '../contacts/serializers';

function blank(v: unknown): boolean {
  return v === null || v === undefined || v === '';
}

/**
 * Chatwoot's ContactMergeAction: the mergee goes into the base contact. The base keeps its own
 * values and takes the mergee's where it has none (name, email, phone number, identifier, avatar
 * URL; attribute keys it lacks); labels are the union; the mergee's contact inboxes move to the
 * base; the mergee is deleted. One `contact.merged` (the base, naming `merged_contact_id`) tells
 * the other services, which move the mergee's conversations to the base (no `contact.deleted`:
 * that would delete the conversations).
 */
export async function mergeContacts(deps: AppDeps, ctx: RequestContext, accountId: number, baseId: number, mergeeId: number): Promise<ContactRow> {
  if (baseId === mergeeId) throw ValidationError.field('mergee_contact_id', 'must be another contact than base_contact_id', 'invalid');
  return withTransaction(deps.pool, async (tx) => {
    // Both rows locked in id order, so two merges of the same pair cannot deadlock.
    const [first, second] = baseId < mergeeId ? [baseId, mergeeId] : [mergeeId, baseId];
    const a = await findContact(tx, accountId, first, { forUpdate: true });
    const b = await findContact(tx, accountId, second, { forUpdate: true });
    const base = baseId === first ? a : b;
    const mergee = baseId === first ? b : a;
    if (!base) throw new NotFoundError('Contact', 'base_contact_id');
    if (!mergee) throw new NotFoundError('Contact', 'mergee_contact_id');

    await tx.query('UPDATE contact_inboxes SET contact_id = $3, updated_at = now() WHERE account_id = $1 AND contact_id = $2', [accountId, mergee.id, base.id]);
    // The mergee goes first: its email, phone number and identifier are unique per account.
    await deleteContact(tx, accountId, mergee.id);
    const write: ContactWrite = {
      additional_attributes: { ...mergee.additional_attributes, ...base.additional_attributes },
      custom_attributes: { ...mergee.custom_attributes, ...base.custom_attributes },
      labels: [...new Set([...base.labels, ...mergee.labels])],
    };
    if (blank(base.name) && !blank(mergee.name)) write.name = mergee.name;
    if (blank(base.email) && !blank(mergee.email)) write.email = mergee.email;
    if (blank(base.phone_number) && !blank(mergee.phone_number)) write.phone_number = mergee.phone_number;
    if (blank(base.identifier) && !blank(mergee.identifier)) write.identifier = mergee.identifier;
    if (blank(base.avatar_url) && !base.avatar && !blank(mergee.avatar_url)) write.avatar_url = mergee.avatar_url;
    const merged = (await updateContact(tx, accountId, base.id, write)) ?? base;
    if (merged.last_activity_at === null || (mergee.last_activity_at !== null && mergee.last_activity_at > merged.last_activity_at)) {
      if (mergee.last_activity_at !== null) await tx.query('UPDATE contacts SET last_activity_at = $3 WHERE account_id = $1 AND id = $2', [accountId, base.id, mergee.last_activity_at]);
      merged.last_activity_at = mergee.last_activity_at ?? merged.last_activity_at;
    }
    await writeEvent(tx, ctx, {
      type: 'contact.merged',
      accountId,
      data: { ...contactSnapshot(merged, deps.config.PUBLIC_BASE_URL), merged_contact_id: mergee.id },
    });
    return merged;
  });
}
