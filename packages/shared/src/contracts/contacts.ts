import { z } from 'zod';
import { id, jsonObject, unixTime } from './common';

/**
 * What the contacts service publishes: `contact.*` and `contact_inbox.created` events and its
 * internal API. Producers: `services/contacts/src/contacts/serializers.ts`.
 */

/**
 * `ContactSnapshot`: `contact.*` data and `GET /internal/accounts/{a}/contacts/{id}`. Unset
 * email/phone/identifier are null; `thumbnail` is `''` and `avatar_url` null without a picture.
 */
export const contactContract = z.strictObject({
  id,
  account_id: id,
  name: z.string(),
  email: z.string().nullable(),
  phone_number: z.string().nullable(),
  identifier: z.string().nullable(),
  thumbnail: z.string(),
  avatar_url: z.string().nullable(),
  additional_attributes: jsonObject,
  custom_attributes: jsonObject,
  blocked: z.boolean(),
  /** No presence is tracked: always `offline`. */
  availability_status: z.string(),
  last_activity_at: unixTime.nullable(),
  created_at: unixTime,
  labels: z.array(z.string()),
  updated_at: unixTime,
});
export type ContactSnapshot = z.infer<typeof contactContract>;

/** `contact.merged` data: the surviving contact, naming the one merged into it (contacts' `POST /actions/contact_merge`). */
export const contactMergedContract = contactContract.extend({ merged_contact_id: id });
export type ContactMerged = z.infer<typeof contactMergedContract>;

/** A contact's `source_id` in an inbox. */
export const contactInboxContract = z.strictObject({
  id,
  contact_id: id,
  inbox_id: id,
  source_id: z.string(),
  hmac_verified: z.boolean(),
  pubsub_token: z.string(),
});
export type ContactInbox = z.infer<typeof contactInboxContract>;

/** `contact_inbox.created` data. */
export const contactInboxEventContract = contactInboxContract.extend({ account_id: id });
export type ContactInboxEvent = z.infer<typeof contactInboxEventContract>;

/** `POST /internal/accounts/{a}/contact_inboxes/resolve` body (docs/contracts.md). */
export const resolveContactInboxRequest = z.object({
  inbox_id: id,
  contact_id: id.optional(),
  source_id: z.string().optional(),
  hmac_verified: z.boolean().optional(),
});
export type ResolveContactInbox = z.infer<typeof resolveContactInboxRequest>;

/** The resolve answer and `GET /internal/inboxes/{inbox_id}/contact_inboxes/{source_id}`. */
export const resolvedContactInboxContract = z.strictObject({ contact_inbox: contactInboxContract, contact: contactContract });
export type ResolvedContactInbox = z.infer<typeof resolvedContactInboxContract>;

/**
 * `POST /internal/pubsub/contact_inboxes/resolve` body: a contact's `RoomChannel` token (the
 * `pubsub_token` of a contact inbox). The answer is `ResolvedContactInbox`; 404 unknown.
 */
export const pubsubContactRequest = z.strictObject({ pubsub_token: z.string().min(1).max(255) });
export type PubsubContactRequest = z.infer<typeof pubsubContactRequest>;
