import { diff, NotFoundError, ValidationError, withTransaction, writeEvent, type PoolClient, type ImageUpload, type RequestContext } from '@parley/shared';
import type { AppDeps } from '../deps';
import type { InboxRow } from '../inboxes/repository';
import type { ContactInboxRow } from '../contact-inboxes/repository';
import { ensureContactInbox } from '../contact-inboxes/service';
import { deleteAvatar, deleteContact, findContact, insertContact, updateContact, upsertAvatar, type ContactRow, type ContactWrite } from './repository';
import type { ContactFieldsInput, CreateContactInput } from './schemas';
import { contactSnapshot, SNAPSHOT_CHANGE_KEYS } from './serializers';

/** The columns of a create/update body; `undefined` leaves a column alone, null clears it. */
export function fieldsToWrite(input: ContactFieldsInput): ContactWrite {
  const w: ContactWrite = {};
  if (input.name !== undefined) w.name = input.name;
  if (input.email !== undefined) w.email = input.email;
  if (input.phone_number !== undefined) w.phone_number = input.phone_number;
  if (input.identifier !== undefined) w.identifier = input.identifier;
  if (input.avatar_url !== undefined) w.avatar_url = input.avatar_url;
  if (input.blocked !== undefined) w.blocked = input.blocked;
  if (input.additional_attributes !== undefined) w.additional_attributes = input.additional_attributes;
  if (input.custom_attributes !== undefined) w.custom_attributes = input.custom_attributes;
  return w;
}

/** Stores an upload for a contact in this transaction; the contact's `avatar` column is the caller's to set. */
export async function storeAvatar(tx: PoolClient, contact: { id: number; account_id: number }, avatar: ImageUpload): Promise<ContactWrite> {
  await upsertAvatar(tx, contact.account_id, contact.id, avatar);
  return { avatar: { token: avatar.token, content_type: avatar.content_type, byte_size: avatar.byte_size, sha256: avatar.sha256 } };
}

/** Inserts a contact (and its upload) and writes `contact.created`. Unique keys surface as 409 naming the field. */
export async function insertNewContact(tx: PoolClient, deps: AppDeps, ctx: RequestContext, accountId: number, write: ContactWrite, avatar?: ImageUpload): Promise<ContactRow> {
  let contact = await insertContact(tx, accountId, write);
  if (avatar) contact = (await updateContact(tx, accountId, contact.id, await storeAvatar(tx, contact, avatar))) ?? contact;
  await writeEvent(tx, ctx, { type: 'contact.created', accountId, data: contactSnapshot(contact, deps.config.PUBLIC_BASE_URL) });
  return contact;
}

/**
 * Writes a change to a locked contact and, when anything a reader sees changed,
 * `contact.updated` with `{field: [before, after]}`.
 */
export async function applyContactChange(tx: PoolClient, deps: AppDeps, ctx: RequestContext, before: ContactRow, write: ContactWrite): Promise<ContactRow> {
  const after = (await updateContact(tx, before.account_id, before.id, write)) ?? before;
  const base = deps.config.PUBLIC_BASE_URL;
  const changes = diff(contactSnapshot(before, base), contactSnapshot(after, base), SNAPSHOT_CHANGE_KEYS);
  if (Object.keys(changes).length > 0) {
    await writeEvent(tx, ctx, { type: 'contact.updated', accountId: before.account_id, data: contactSnapshot(after, base), changes });
  }
  return after;
}

async function lockContact(tx: PoolClient, accountId: number, id: number): Promise<ContactRow> {
  const contact = await findContact(tx, accountId, id, { forUpdate: true });
  if (!contact) throw new NotFoundError('Contact', 'id');
  return contact;
}

/** An inbox of this account, for a body field; unknown (or another account's) is 422 naming the field. */
export async function inboxForField(deps: AppDeps, ctx: RequestContext, accountId: number, inboxId: number, field = 'inbox_id'): Promise<InboxRow> {
  const inbox = await deps.inboxes.byId(accountId, inboxId, ctx);
  if (!inbox) throw ValidationError.field(field, 'does not name an inbox of this account', 'not_found');
  return inbox;
}

export interface CreatedContact {
  contact: ContactRow;
  contactInbox: ContactInboxRow | null;
  inbox: InboxRow | null;
}

/** POST /contacts: the contact, and with `inbox_id` its contact_inbox (source id given or a new UUID). */
export async function createContact(deps: AppDeps, ctx: RequestContext, accountId: number, input: CreateContactInput, avatar?: ImageUpload): Promise<CreatedContact> {
  const inbox = input.inbox_id !== undefined ? await inboxForField(deps, ctx, accountId, input.inbox_id) : null;
  return withTransaction(deps.pool, async (tx) => {
    const write = fieldsToWrite(input);
    // A given URL is a picture too; an upload in the same request wins.
    const contact = await insertNewContact(tx, deps, ctx, accountId, write, avatar);
    if (!inbox) return { contact, contactInbox: null, inbox: null };
    const { contactInbox } = await ensureContactInbox(tx, ctx, { contact, inboxId: inbox.id, sourceId: input.source_id });
    return { contact, contactInbox, inbox };
  });
}

/** PATCH /contacts/{id}: attributes are merged into the stored ones (Chatwoot), other fields replaced. */
export async function updateContactFields(deps: AppDeps, ctx: RequestContext, accountId: number, id: number, input: ContactFieldsInput, avatar?: ImageUpload): Promise<ContactRow> {
  return withTransaction(deps.pool, async (tx) => {
    const before = await lockContact(tx, accountId, id);
    const write = fieldsToWrite(input);
    if (write.additional_attributes) write.additional_attributes = { ...before.additional_attributes, ...write.additional_attributes };
    if (write.custom_attributes) write.custom_attributes = { ...before.custom_attributes, ...write.custom_attributes };
    if (avatar) {
      Object.assign(write, await storeAvatar(tx, before, avatar));
    } else if (typeof write.avatar_url === 'string' && before.avatar) {
      // A new picture by URL replaces an uploaded one.
      await deleteAvatar(tx, accountId, id);
      write.avatar = null;
    }
    return applyContactChange(tx, deps, ctx, before, write);
  });
}

/** DELETE /contacts/{id}: its contact_inboxes go with it; `contact.deleted` removes its conversations elsewhere. */
export async function removeContact(deps: AppDeps, ctx: RequestContext, accountId: number, id: number): Promise<ContactRow> {
  return withTransaction(deps.pool, async (tx) => {
    const contact = await deleteContact(tx, accountId, id);
    if (!contact) throw new NotFoundError('Contact', 'id');
    await writeEvent(tx, ctx, { type: 'contact.deleted', accountId, data: contactSnapshot(contact, deps.config.PUBLIC_BASE_URL) });
    return contact;
  });
}

/** POST /contacts/{id}/labels: the given list replaces the contact's labels. */
export async function replaceLabels(deps: AppDeps, ctx: RequestContext, accountId: number, id: number, labels: string[]): Promise<ContactRow> {
  return withTransaction(deps.pool, async (tx) => {
    const before = await lockContact(tx, accountId, id);
    return applyContactChange(tx, deps, ctx, before, { labels });
  });
}

/** DELETE /contacts/{id}/avatar: both an uploaded picture and a given URL go. */
export async function removeAvatar(deps: AppDeps, ctx: RequestContext, accountId: number, id: number): Promise<ContactRow> {
  return withTransaction(deps.pool, async (tx) => {
    const before = await lockContact(tx, accountId, id);
    await deleteAvatar(tx, accountId, id);
    return applyContactChange(tx, deps, ctx, before, { avatar: null, avatar_url: null });
  });
}

/** POST /contacts/{id}/destroy_custom_attributes: drops the named keys. */
export async function destroyCustomAttributes(deps: AppDeps, ctx: RequestContext, accountId: number, id: number, keys: string[]): Promise<ContactRow> {
  return withTransaction(deps.pool, async (tx) => {
    const before = await lockContact(tx, accountId, id);
    const custom = { ...before.custom_attributes };
    for (const k of keys) delete custom[k];
    return applyContactChange(tx, deps, ctx, before, { custom_attributes: custom });
  });
}

/** POST /contacts/{id}/contact_inboxes: the contact's pair with an inbox (source id given or new). */
export async function addContactInbox(
  deps: AppDeps,
  ctx: RequestContext,
  accountId: number,
  id: number,
  input: { inbox_id: number; source_id?: string | undefined; hmac_verified?: boolean | undefined },
): Promise<{ contactInbox: ContactInboxRow; inbox: InboxRow }> {
  const inbox = await inboxForField(deps, ctx, accountId, input.inbox_id);
  return withTransaction(deps.pool, async (tx) => {
    const contact = await lockContact(tx, accountId, id);
    const { contactInbox } = await ensureContactInbox(tx, ctx, { contact, inboxId: inbox.id, sourceId: input.source_id, hmacVerified: input.hmac_verified });
    return { contactInbox, inbox };
  });
}
