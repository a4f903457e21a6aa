import { z } from 'zod';
import { isoOrNull, unixSeconds, unixSecondsOrNull } from '@parley/shared';
import type { ContactRow } from './repository';
import type { ContactInboxRow } from '../contact-inboxes/repository';
import type { InboxRow } from '../inboxes/repository';

/** We track no presence (Chatwoot's OnlineStatusTracker), so every contact reads as offline. */
const AVAILABILITY = 'offline';

/** Where an uploaded avatar is served (no credential; the token is unguessable and new per upload). */
export const AVATAR_PATH = '/public/api/v1/contact_avatars';

/** The URL a contact's picture is shown from: the uploaded file wins over a given avatar_url. */
export function thumbnailOf(c: ContactRow, publicBaseUrl: string): string {
  if (c.avatar) return `${publicBaseUrl.replace(/\/+$/, '')}${AVATAR_PATH}/${c.avatar.token}`;
  return c.avatar_url ?? '';
}

// ---- response schemas (the OpenAPI document describes answers with these) ----

export const inboxSlimSchema = z.object({
  id: z.number(),
  avatar_url: z.string(),
  channel_id: z.number().nullable(),
  name: z.string(),
  channel_type: z.string(),
  provider: z.string(),
});

export const contactInboxEntrySchema = z.object({ source_id: z.string(), inbox: inboxSlimSchema });

export const contactViewSchema = z.object({
  additional_attributes: z.record(z.string(), z.unknown()),
  availability_status: z.string(),
  email: z.string(),
  id: z.number(),
  name: z.string(),
  phone_number: z.string(),
  blocked: z.boolean(),
  identifier: z.string(),
  thumbnail: z.string(),
  custom_attributes: z.record(z.string(), z.unknown()),
  last_activity_at: z.number(),
  created_at: z.number(),
  contact_inboxes: z.array(contactInboxEntrySchema).optional(),
});

export const inboxViewSchema = z.object({
  id: z.number(),
  account_id: z.number(),
  name: z.string(),
  channel_type: z.string(),
  channel_id: z.number().nullable(),
  identifier: z.string().nullable(),
  hmac_mandatory: z.boolean(),
  webhook_url: z.string().nullable(),
  avatar_url: z.string(),
  provider: z.string(),
});

export const publicContactSchema = z.object({
  id: z.number(),
  source_id: z.string(),
  name: z.string(),
  email: z.string(),
  phone_number: z.string(),
  pubsub_token: z.string(),
});

export const publicFullContactSchema = z.object({
  id: z.number(),
  account_id: z.number(),
  company_id: z.number().nullable(),
  name: z.string(),
  email: z.string(),
  phone_number: z.string(),
  identifier: z.string(),
  contact_type: z.string(),
  country_code: z.string(),
  last_name: z.string(),
  middle_name: z.string(),
  location: z.string(),
  last_activity_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  blocked: z.boolean(),
  thumbnail: z.string(),
  additional_attributes: z.record(z.string(), z.unknown()),
  custom_attributes: z.record(z.string(), z.unknown()),
  label_list: z.array(z.string()),
});

export type ContactView = z.infer<typeof contactViewSchema>;
export type ContactInboxEntry = z.infer<typeof contactInboxEntrySchema>;

// ---- internal shapes (docs/contracts.md) ----

/** `ContactSnapshot` of docs/contracts.md: the internal API answer and the `data` of contact.* events. */
export function contactSnapshot(c: ContactRow, publicBaseUrl: string): Record<string, unknown> & { id: number } {
  const thumbnail = thumbnailOf(c, publicBaseUrl);
  return {
    id: c.id,
    account_id: c.account_id,
    name: c.name,
    email: c.email,
    phone_number: c.phone_number,
    identifier: c.identifier,
    thumbnail,
    avatar_url: thumbnail === '' ? null : thumbnail,
    additional_attributes: c.additional_attributes,
    custom_attributes: c.custom_attributes,
    blocked: c.blocked,
    availability_status: AVAILABILITY,
    last_activity_at: unixSecondsOrNull(c.last_activity_at),
    created_at: unixSeconds(c.created_at),
    // Beyond the contract, for consumers that render a full contact (label_list, updated_at).
    labels: c.labels,
    updated_at: unixSeconds(c.updated_at),
  };
}

/** Fields compared for `changes` on contact.updated. */
export const SNAPSHOT_CHANGE_KEYS = ['name', 'email', 'phone_number', 'identifier', 'thumbnail', 'additional_attributes', 'custom_attributes', 'blocked', 'labels'];

export interface ContactInboxDto {
  id: number;
  contact_id: number;
  inbox_id: number;
  source_id: string;
  hmac_verified: boolean;
  pubsub_token: string;
}

/** `ContactInbox` of docs/contracts.md. */
export function contactInboxDto(ci: ContactInboxRow): ContactInboxDto {
  return {
    id: ci.id,
    contact_id: ci.contact_id,
    inbox_id: ci.inbox_id,
    source_id: ci.source_id,
    hmac_verified: ci.hmac_verified,
    pubsub_token: ci.pubsub_token,
  };
}

// ---- account API views ----

/** Chatwoot's `_inbox_slim` (SPEC: the inbox summary inside a contact). */
export function inboxSlim(i: InboxRow): z.infer<typeof inboxSlimSchema> {
  return {
    id: i.id,
    avatar_url: i.avatar_url ?? '',
    channel_id: i.channel_id,
    name: i.name,
    channel_type: i.channel_type,
    provider: i.provider ?? '',
  };
}

/** An inbox as agents see it here: the contract's Inbox without its HMAC secret. */
export function inboxView(i: InboxRow): z.infer<typeof inboxViewSchema> {
  return {
    id: i.id,
    account_id: i.account_id,
    name: i.name,
    channel_type: i.channel_type,
    channel_id: i.channel_id,
    identifier: i.identifier,
    hmac_mandatory: i.hmac_mandatory,
    webhook_url: i.webhook_url,
    avatar_url: i.avatar_url ?? '',
    provider: i.provider ?? '',
  };
}

export function contactInboxEntries(cis: ContactInboxRow[], inboxes: Map<number, InboxRow>): ContactInboxEntry[] {
  const out: ContactInboxEntry[] = [];
  for (const ci of cis) {
    const inbox = inboxes.get(ci.inbox_id);
    if (inbox) out.push({ source_id: ci.source_id, inbox: inboxSlim(inbox) });
  }
  return out;
}

/**
 * The account API contact (Chatwoot's `_contact` partial). SPEC types name, email,
 * phone_number, identifier and thumbnail as strings and the timestamps as numbers, so
 * missing values are '' and 0 (Chatwoot sends null and omits last_activity_at).
 */
export function contactView(c: ContactRow, publicBaseUrl: string, contactInboxes?: ContactInboxEntry[]): ContactView {
  const view: ContactView = {
    additional_attributes: c.additional_attributes,
    availability_status: AVAILABILITY,
    email: c.email ?? '',
    id: c.id,
    name: c.name,
    phone_number: c.phone_number ?? '',
    blocked: c.blocked,
    identifier: c.identifier ?? '',
    thumbnail: thumbnailOf(c, publicBaseUrl),
    custom_attributes: c.custom_attributes,
    last_activity_at: unixSeconds(c.last_activity_at),
    created_at: unixSeconds(c.created_at),
  };
  if (contactInboxes) view.contact_inboxes = contactInboxes;
  return view;
}

// ---- public API views ----

/** SPEC's public contact create response (also public show). */
export function publicContactView(c: ContactRow, ci: ContactInboxRow): z.infer<typeof publicContactSchema> {
  return {
    id: c.id,
    source_id: ci.source_id,
    name: c.name,
    email: c.email ?? '',
    phone_number: c.phone_number ?? '',
    pubsub_token: ci.pubsub_token,
  };
}

function attr(c: ContactRow, key: string): string {
  const v = c.additional_attributes[key];
  return typeof v === 'string' ? v : '';
}

/** SPEC's "public full contact" (Chatwoot renders the raw Contact record): public PATCH answer. */
export function publicFullContact(c: ContactRow, publicBaseUrl: string): z.infer<typeof publicFullContactSchema> {
  const resolved = c.email !== null || c.phone_number !== null || c.identifier !== null;
  return {
    id: c.id,
    account_id: c.account_id,
    company_id: null,
    name: c.name,
    email: c.email ?? '',
    phone_number: c.phone_number ?? '',
    identifier: c.identifier ?? '',
    contact_type: resolved ? 'lead' : 'visitor',
    country_code: attr(c, 'country_code'),
    last_name: '',
    middle_name: '',
    location: attr(c, 'city'),
    last_activity_at: isoOrNull(c.last_activity_at),
    created_at: isoOrNull(c.created_at) as string,
    updated_at: isoOrNull(c.updated_at) as string,
    blocked: c.blocked,
    thumbnail: thumbnailOf(c, publicBaseUrl),
    additional_attributes: c.additional_attributes,
    custom_attributes: c.custom_attributes,
    label_list: c.labels,
  };
}

// ---- answer envelopes ----

export const contactPageSchema = z.object({
  meta: z.object({ count: z.number(), current_page: z.string() }),
  payload: z.array(contactViewSchema),
});
/** Search's page: Chatwoot's search meta adds `has_more` (another page follows). */
export const contactSearchPageSchema = z.object({
  meta: z.object({ count: z.number(), current_page: z.string(), has_more: z.boolean() }),
  payload: z.array(contactViewSchema),
});
export const contactPayloadSchema = z.object({ payload: contactViewSchema });
export const createdContactSchema = z.object({
  payload: z.object({
    contact: contactViewSchema,
    contact_inbox: z.object({ inbox: inboxViewSchema.nullable(), source_id: z.string().nullable() }),
  }),
});
export const labelsPayloadSchema = z.object({ payload: z.array(z.string()) });
export const contactableInboxesSchema = z.object({ payload: z.array(z.object({ source_id: z.string(), inbox: inboxViewSchema })) });
export const addedContactInboxSchema = z.object({ source_id: z.string(), hmac_verified: z.boolean(), inbox: inboxSlimSchema });
export const emptyObjectSchema = z.object({}).strict();
