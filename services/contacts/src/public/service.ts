import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, withTransaction, writeEvent, type PoolClient, type ImageUpload, type RequestContext } from '@parley/shared';
import type { AppDeps } from '../deps';
import type { InboxRow } from '../inboxes/repository';
import { findBySource, markVerified, type ContactInboxRow } from '../contact-inboxes/repository';
import { ensureContactInbox, isSourceTaken } from '../contact-inboxes/service';
import {
  deleteAvatar,
  findContact,
  findContactByEmail,
  findContactByIdentifier,
  findContactByPhone,
  insertContactIfAbsent,
  updateContact,
  type ContactRow,
  type ContactWrite,
} from '../contacts/repository';
import type { PublicCreateInput, PublicUpdateInput } from '../contacts/schemas';
import { contactSnapshot } from '../contacts/serializers';
import { applyContactChange, storeAvatar } from '../contacts/service';
import { checkIdentity, identityRefused } from './hmac';
import { visitorName } from './names';

export interface PublicContact {
  contact: ContactRow;
  contactInbox: ContactInboxRow;
}

/** The API inbox behind a public identifier; unknown is 404. */
export async function publicInbox(deps: AppDeps, ctx: RequestContext, identifier: string): Promise<InboxRow> {
  const inbox = await deps.inboxes.byIdentifier(identifier, ctx);
  if (!inbox || inbox.channel_type !== 'Channel::Api') throw new NotFoundError('Inbox', 'inbox_identifier');
  return inbox;
}

/** Events of the public API name the contact as their actor once it is known. */
function contactCtx(ctx: RequestContext, contact: ContactRow): RequestContext {
  return { ...ctx, accountId: contact.account_id, actor: { type: 'contact', id: contact.id, name: contact.name } };
}

/** Chatwoot's ContactInboxWithContactBuilder order: identifier, then email, then phone number. */
async function findExisting(tx: PoolClient, accountId: number, input: PublicCreateInput): Promise<ContactRow | null> {
  const found =
    (input.identifier ? await findContactByIdentifier(tx, accountId, input.identifier) : null) ??
    (input.email ? await findContactByEmail(tx, accountId, input.email) : null) ??
    (input.phone_number ? await findContactByPhone(tx, accountId, input.phone_number) : null);
  return found ? findContact(tx, accountId, found.id, { forUpdate: true }) : null;
}

/** A proven identity counts for a contact only when it is that contact's identifier. */
function provesContact(hashOk: boolean, identifier: string | null | undefined, contact: ContactRow): boolean {
  return hashOk && !!identifier && contact.identifier === identifier;
}

/**
 * SPEC 5. An existing source id in the inbox answers its pair unchanged; otherwise the
 * contact is found (identifier, email, phone) or created, and gets a new contact_inbox
 * (the given source id or a UUID). A correct identifier_hash for the contact's identifier
 * marks the pair verified (Chatwoot checks the hash on create but never sets the flag).
 */
export async function publicCreateContact(deps: AppDeps, ctx: RequestContext, inboxIdentifier: string, input: PublicCreateInput, avatar?: ImageUpload): Promise<PublicContact> {
  const inbox = await publicInbox(deps, ctx, inboxIdentifier);
  const hashOk = checkIdentity(inbox, input.identifier, input.identifier_hash);
  const accountId = inbox.account_id;
  const attempt = () => withTransaction(deps.pool, async (tx) => {
    if (input.source_id !== undefined) {
      const ci = await findBySource(tx, accountId, inbox.id, input.source_id);
      const contact = ci ? await findContact(tx, accountId, ci.contact_id, { forUpdate: true }) : null;
      if (ci && contact) {
        const verified = provesContact(hashOk, input.identifier, contact) && !ci.hmac_verified ? await markVerified(tx, accountId, ci.id) : null;
        return { contact, contactInbox: verified ?? ci };
      }
    }
    let contact = await findExisting(tx, accountId, input);
    if (!contact) {
      const write: ContactWrite = { name: input.name || visitorName() };
      if (input.email) write.email = input.email;
      if (input.phone_number) write.phone_number = input.phone_number;
      if (input.identifier) write.identifier = input.identifier;
      if (input.avatar_url) write.avatar_url = input.avatar_url;
      if (input.custom_attributes) write.custom_attributes = input.custom_attributes;
      const inserted = await insertContactIfAbsent(tx, accountId, write);
      if (inserted) {
        contact = avatar ? ((await updateContact(tx, accountId, inserted.id, await storeAvatar(tx, inserted, avatar))) ?? inserted) : inserted;
        await writeEvent(tx, contactCtx(ctx, contact), { type: 'contact.created', accountId, data: contactSnapshot(contact, deps.config.PUBLIC_BASE_URL) });
      } else {
        // A concurrent request created this person a moment ago: use theirs.
        contact = await findExisting(tx, accountId, input);
        if (!contact) throw new ConflictError(input.identifier ? 'identifier' : input.email ? 'email' : 'phone_number');
      }
    }
    const { contactInbox } = await ensureContactInbox(tx, contactCtx(ctx, contact), {
      contact,
      inboxId: inbox.id,
      sourceId: input.source_id ?? randomUUID(),
      hmacVerified: provesContact(hashOk, input.identifier, contact),
    });
    return { contact, contactInbox };
  });
  try {
    return await attempt();
  } catch (err) {
    // A given source id that exists is answered above, so "taken" means another request (a
    // client retrying) created it a moment ago: this attempt's contact is rolled back and the
    // next one answers that pair, as for any known source id.
    if (input.source_id !== undefined && isSourceTaken(err)) return attempt();
    throw err;
  }
}

/**
 * Show and update check the hash against the contact itself: a valid hash for some other
 * identifier proves nothing about this contact (Chatwoot would verify the pair anyway).
 */
async function verifyFor(tx: PoolClient, inbox: InboxRow, ci: ContactInboxRow, contact: ContactRow, identifier: string | null | undefined, hash: string | undefined): Promise<ContactInboxRow> {
  if (!checkIdentity(inbox, identifier, hash)) return ci;
  if ((contact.identifier ?? '') !== (identifier ?? '')) throw identityRefused('is not for this contact');
  if (!identifier || ci.hmac_verified) return ci;
  return (await markVerified(tx, inbox.account_id, ci.id)) ?? ci;
}

async function loadPair(tx: PoolClient, inbox: InboxRow, sourceId: string): Promise<PublicContact> {
  const ci = await findBySource(tx, inbox.account_id, inbox.id, sourceId);
  const contact = ci ? await findContact(tx, inbox.account_id, ci.contact_id, { forUpdate: true }) : null;
  if (!ci || !contact) throw new NotFoundError('Contact', 'contact_identifier');
  return { contact, contactInbox: ci };
}

export async function publicShowContact(
  deps: AppDeps,
  ctx: RequestContext,
  inboxIdentifier: string,
  sourceId: string,
  q: { identifier?: string | undefined; identifier_hash?: string | undefined },
): Promise<PublicContact> {
  const inbox = await publicInbox(deps, ctx, inboxIdentifier);
  return withTransaction(deps.pool, async (tx) => {
    const { contact, contactInbox } = await loadPair(tx, inbox, sourceId);
    return { contact, contactInbox: await verifyFor(tx, inbox, contactInbox, contact, q.identifier, q.identifier_hash) };
  });
}

/**
 * Public PATCH: blank values are ignored and custom attributes merged (Chatwoot's
 * ContactIdentifyAction). An email or phone number another contact holds is a 409 here
 * rather than Chatwoot's silent merge of the two contacts.
 */
export async function publicUpdateContact(
  deps: AppDeps,
  ctx: RequestContext,
  inboxIdentifier: string,
  sourceId: string,
  input: PublicUpdateInput,
  avatar?: ImageUpload,
): Promise<PublicContact> {
  const inbox = await publicInbox(deps, ctx, inboxIdentifier);
  return withTransaction(deps.pool, async (tx) => {
    const pair = await loadPair(tx, inbox, sourceId);
    const contactInbox = await verifyFor(tx, inbox, pair.contactInbox, pair.contact, input.identifier, input.identifier_hash);
    const before = pair.contact;
    const write: ContactWrite = {};
    if (input.name) write.name = input.name;
    if (input.email) write.email = input.email;
    if (input.phone_number) write.phone_number = input.phone_number;
    if (input.avatar_url) write.avatar_url = input.avatar_url;
    if (input.custom_attributes) write.custom_attributes = { ...before.custom_attributes, ...input.custom_attributes };
    if (avatar) {
      Object.assign(write, await storeAvatar(tx, before, avatar));
    } else if (input.avatar_url && before.avatar) {
      // A new picture by URL replaces an uploaded one.
      await deleteAvatar(tx, before.account_id, before.id);
      write.avatar = null;
    }
    const contact = await applyContactChange(tx, deps, contactCtx(ctx, before), before, write);
    return { contact, contactInbox };
  });
}
