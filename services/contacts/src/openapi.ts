import { z } from 'zod';
import { defineOperations, type HttpMethod, type OperationSpec, type SecurityScheme } from '@parley/shared';
import { filterBodySchema } from './contacts/filter';
import {
  contactInboxBodySchema,
  contactInboxFilterSchema,
  createContactSchema,
  destroyCustomAttributesSchema,
  labelsBodySchema,
  listQuerySchema,
  pageQuerySchema,
  publicCreateSchema,
  publicShowQuerySchema,
  publicUpdateSchema,
  searchQuerySchema,
  updateContactSchema,
} from './contacts/schemas';
import {
  addedContactInboxSchema,
  contactableInboxesSchema,
  contactPageSchema,
  contactPayloadSchema,
  createdContactSchema,
  emptyObjectSchema,
  labelsPayloadSchema,
  publicContactSchema,
  publicFullContactSchema,
} from './contacts/serializers';

const ACCOUNT = '/api/v1/accounts/{account_id}';
const PUBLIC = '/public/api/v1/inboxes/{inbox_identifier}/contacts';
const user: SecurityScheme[] = ['userApiKey'];
const numeric = z.string().regex(/^\d+$/);
const idParams = z.object({ id: numeric.describe('Id of the contact') });
const inboxParams = z.object({ inbox_identifier: z.string().describe('Identifier of the API inbox (its channel identifier)') });
const publicContactParams = inboxParams.extend({ contact_identifier: z.string().describe('The source id answered when the contact was created') });

type Op = Omit<OperationSpec, 'method' | 'security' | 'tags' | 'responses'> & { response?: z.ZodType; security?: SecurityScheme[]; tag?: string };

function op(method: HttpMethod, o: Op): OperationSpec {
  const { response, security, tag, ...rest } = o;
  return { method, tags: [tag ?? 'Contacts'], security: security ?? user, ...rest, responses: { 200: { description: 'OK', ...(response ? { schema: response } : {}) } } };
}

/** PATCH and its PUT twin: Chatwoot routes both verbs to update. */
function twins(o: Op): OperationSpec[] {
  return [op('patch', o), op('put', { ...o, operationId: `${o.operationId}Put`, summary: `${o.summary} (PUT)` })];
}

/** Every public route of the contacts service, as integrators see it through the gateway. */
export const operations = defineOperations([
  op('get', {
    path: `${ACCOUNT}/contacts`,
    operationId: 'listContacts',
    summary: 'List contacts',
    description:
      'Resolved contacts only (identifier, email or phone number set), 15 a page. `sort`: name, email, phone_number, last_activity_at or created_at, `-` in front for descending; ties are broken by id. `labels[]` keeps contacts with any of the labels. `current_page` is a string.',
    query: listQuerySchema,
    response: contactPageSchema,
    errors: [400, 401, 403, 404],
  }),
  op('get', {
    path: `${ACCOUNT}/contacts/search`,
    operationId: 'searchContacts',
    summary: 'Search contacts',
    description: '`q` (required) anywhere in name, email, phone number or identifier, over every contact of the account; paged and sorted like the list.',
    query: searchQuerySchema,
    response: contactPageSchema,
    errors: [400, 401, 403, 404],
  }),
  op('post', {
    path: `${ACCOUNT}/contacts/filter`,
    operationId: 'filterContacts',
    summary: 'Filter contacts by attributes',
    description:
      'Conditions `{attribute_key, filter_operator, values, query_operator}` joined left to right by `query_operator` (and/or). Keys: name, email, phone_number, identifier, country_code, city, company, referer, created_at, last_activity_at, blocked, labels; any other key is a custom attribute.',
    query: pageQuerySchema,
    body: filterBodySchema,
    response: contactPageSchema,
    errors: [400, 401, 403, 404, 422],
    requestExample: { payload: [{ attribute_key: 'email', filter_operator: 'contains', values: ['acme.test'], query_operator: 'and' }, { attribute_key: 'labels', filter_operator: 'equal_to', values: ['vip'] }] },
  }),
  op('post', {
    path: `${ACCOUNT}/contacts`,
    operationId: 'createContact',
    summary: 'Create a contact',
    description:
      'With `inbox_id` the contact also gets a contact inbox there (`source_id` given or a new UUID). Email and phone number (E.164) are checked; email, phone number and identifier are unique in the account (409 naming the field). `avatar` may be uploaded as multipart/form-data (PNG, JPEG, GIF or WebP).',
    body: createContactSchema,
    multipart: true,
    response: createdContactSchema,
    errors: [400, 401, 403, 404, 409, 413, 422],
    requestExample: { name: 'Ann Lee', email: 'ann@acme.test', phone_number: '+14155550123', custom_attributes: { plan: 'pro' } },
  }),
  op('get', { path: `${ACCOUNT}/contacts/{id}`, operationId: 'getContact', summary: 'Show a contact', params: idParams, response: contactPayloadSchema, errors: [401, 403, 404] }),
  ...twins({
    path: `${ACCOUNT}/contacts/{id}`,
    operationId: 'updateContact',
    summary: 'Update a contact',
    description: 'additional_attributes and custom_attributes are merged into the stored ones; other fields are replaced (null or blank clears).',
    params: idParams,
    body: updateContactSchema,
    multipart: true,
    response: contactPayloadSchema,
    errors: [400, 401, 403, 404, 409, 413, 422],
  }),
  op('delete', {
    path: `${ACCOUNT}/contacts/{id}`,
    operationId: 'deleteContact',
    summary: 'Delete contact',
    description: "Administrators only. The contact's conversations are removed too (asynchronously, by the conversations service).",
    params: idParams,
    response: emptyObjectSchema,
    errors: [401, 403, 404],
  }),
  op('get', { path: `${ACCOUNT}/contacts/{id}/labels`, operationId: 'listContactLabels', summary: "A contact's labels", tag: 'Contact labels', params: idParams, response: labelsPayloadSchema, errors: [401, 403, 404] }),
  op('post', {
    path: `${ACCOUNT}/contacts/{id}/labels`,
    operationId: 'setContactLabels',
    summary: "Replace a contact's labels",
    tag: 'Contact labels',
    params: idParams,
    body: labelsBodySchema,
    response: labelsPayloadSchema,
    errors: [400, 401, 403, 404, 422],
    requestExample: { labels: ['vip', 'billing'] },
  }),
  op('get', {
    path: `${ACCOUNT}/contacts/{id}/contactable_inboxes`,
    operationId: 'listContactableInboxes',
    summary: 'Inboxes the contact can be reached in',
    description: 'API inboxes the caller may use (all for administrators, member inboxes for agents), each with the newest source id of the contact there or a fresh one.',
    params: idParams,
    response: contactableInboxesSchema,
    errors: [401, 403, 404],
  }),
  op('post', {
    path: `${ACCOUNT}/contacts/{id}/contact_inboxes`,
    operationId: 'createContactInbox',
    summary: 'Give a contact a source id in an inbox',
    params: idParams,
    body: contactInboxBodySchema,
    response: addedContactInboxSchema,
    errors: [400, 401, 403, 404, 422],
  }),
  op('delete', { path: `${ACCOUNT}/contacts/{id}/avatar`, operationId: 'deleteContactAvatar', summary: "Remove a contact's avatar", params: idParams, response: contactPayloadSchema, errors: [401, 403, 404] }),
  op('post', {
    path: `${ACCOUNT}/contacts/{id}/destroy_custom_attributes`,
    operationId: 'destroyContactCustomAttributes',
    summary: 'Remove custom attributes by key',
    params: idParams,
    body: destroyCustomAttributesSchema,
    response: contactPayloadSchema,
    errors: [400, 401, 403, 404, 422],
  }),
  op('post', {
    path: `${ACCOUNT}/contact_inboxes/filter`,
    operationId: 'filterContactInboxes',
    summary: 'The contact behind a source id in an inbox',
    body: contactInboxFilterSchema,
    response: contactPayloadSchema,
    errors: [400, 401, 403, 404, 422],
  }),

  // ---- Public client API (SPEC 5): no credential ----
  op('post', {
    path: PUBLIC,
    operationId: 'publicCreateContact',
    summary: 'Create contact (public)',
    description:
      'An existing `source_id` answers its contact unchanged; otherwise the contact is found by identifier, email or phone number, or created. `identifier_hash` = lowercase hex HMAC-SHA256 of `identifier` keyed by the inbox `hmac_token`: a correct one verifies the contact inbox, a wrong one (or none where the inbox makes it mandatory) is 401. `avatar` may be uploaded as multipart/form-data.',
    tag: 'Public contacts',
    security: [],
    params: inboxParams,
    body: publicCreateSchema,
    multipart: true,
    response: publicContactSchema,
    errors: [400, 401, 404, 409, 413, 422],
    requestExample: { identifier: 'user-42', identifier_hash: '<hex hmac-sha256 of identifier>', email: 'ann@acme.test', name: 'Ann Lee' },
  }),
  op('get', {
    path: `${PUBLIC}/{contact_identifier}`,
    operationId: 'publicGetContact',
    summary: 'Show contact (public)',
    description: 'With `identifier` and `identifier_hash` in the query, a correct hash for this contact verifies the contact inbox.',
    tag: 'Public contacts',
    security: [],
    params: publicContactParams,
    query: publicShowQuerySchema,
    response: publicContactSchema,
    errors: [400, 401, 404],
  }),
  ...twins({
    path: `${PUBLIC}/{contact_identifier}`,
    operationId: 'publicUpdateContact',
    summary: 'Update contact (public)',
    description: 'Blank values are ignored, custom attributes merged; identifier is never changed here. An email or phone number another contact holds is 409.',
    tag: 'Public contacts',
    security: [],
    params: publicContactParams,
    body: publicUpdateSchema,
    multipart: true,
    response: publicFullContactSchema,
    errors: [400, 401, 404, 409, 413, 422],
  }),
  op('get', {
    path: '/public/api/v1/contact_avatars/{token}',
    operationId: 'publicGetContactAvatar',
    summary: 'An uploaded contact avatar',
    description: 'The image bytes (image/png, image/jpeg, image/gif or image/webp), not JSON. This is the URL a contact\'s `thumbnail` names after an upload; the token changes with every upload.',
    tag: 'Public contacts',
    security: [],
    params: z.object({ token: z.string().describe('Unguessable name of one upload') }),
    errors: [404],
  }),
]);
