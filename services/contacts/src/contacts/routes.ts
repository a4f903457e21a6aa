import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { imageFromRequest, multipartImage, NotFoundError, pathId, routeKit, type Role, type SecurityScheme } from '@parley/shared';
import type { AppDeps } from '../deps';
import { findBySource, listForContacts } from '../contact-inboxes/repository';
import { listAccountInboxes, listMemberInboxes } from '../inboxes/repository';
import { filterBodySchema } from './filter';
import { filterContacts, listContacts, renderContact, searchContacts } from './queries';
import { findContact } from './repository';
import {
  contactInboxBodySchema,
  contactInboxFilterSchema,
  createContactSchema,
  destroyCustomAttributesSchema,
  labelsBodySchema,
  listQuerySchema,
  pageQuerySchema,
  parseSort,
  searchQuerySchema,
  updateContactSchema,
} from './schemas';
import {
  addedContactInboxSchema,
  contactableInboxesSchema,
  contactPageSchema,
  contactSearchPageSchema,
  contactPayloadSchema,
  createdContactSchema,
  emptyObjectSchema,
  inboxSlim,
  inboxView,
  labelsPayloadSchema,
} from './serializers';
import { addContactInbox, createContact, destroyCustomAttributes, removeAvatar, removeContact, replaceLabels, updateContactFields } from './service';

export const route = routeKit<AppDeps>();
const ACCOUNT = '/api/v1/accounts/{account_id}';
const CONTACTS = `${ACCOUNT}/contacts`;
const user: SecurityScheme[] = ['userApiKey'];
/** Any member of the account; DELETE is for administrators. */
const members: Role[] = ['administrator', 'agent'];
const contacts = { tags: ['Contacts'], security: user, role: members };
const labels = { tags: ['Contact labels'], security: user, role: members };
const contactId = { id: pathId('Contact', 'Id of the contact') };
const avatarUpload = (deps: AppDeps) => multipartImage({ maxBytes: deps.config.AVATAR_MAX_BYTES, fileFields: ['avatar'] });

async function loadContact(deps: AppDeps, accountId: number, id: number) {
  const contact = await findContact(deps.pool, accountId, id);
  if (!contact) throw new NotFoundError('Contact', 'id');
  return contact;
}

/** `/api/v1/accounts/{account_id}/contacts` and `/contact_inboxes`. */
export const contactRoutes = [
  route({
    method: 'get', path: CONTACTS, operationId: 'listContacts', summary: 'List contacts', ...contacts,
    description:
      'Resolved contacts only (identifier, email or phone number set), 15 a page. `sort`: name, email, phone_number, last_activity_at or created_at, `-` in front for descending; ties are broken by id. `labels[]` keeps contacts with any of the labels. `current_page` is a string.',
    query: listQuerySchema, response: contactPageSchema, errors: [400, 401, 403, 404],
    handler: async ({ query: q, ctx, accountId }, deps) =>
      listContacts(deps, ctx, accountId, { sort: parseSort(q.sort), page: q.page ?? 1, labels: q.labels ?? [], withInboxes: q.include_contact_inboxes !== 'false' }),
  }),
  route({
    method: 'get', path: `${CONTACTS}/search`, operationId: 'searchContacts', summary: 'Search contacts', ...contacts,
    description: '`q` (required) anywhere in name, email, phone number or identifier, over every contact of the account; paged and sorted like the list; `meta.has_more` says whether a further page exists.',
    query: searchQuerySchema, response: contactSearchPageSchema, errors: [400, 401, 403, 404],
    handler: async ({ query: q, ctx, accountId }, deps) =>
      searchContacts(deps, ctx, accountId, { q: q.q, sort: parseSort(q.sort), page: q.page ?? 1, labels: q.labels ?? [], withInboxes: q.include_contact_inboxes !== 'false' }),
  }),
  route({
    method: 'post', path: `${CONTACTS}/filter`, operationId: 'filterContacts', summary: 'Filter contacts by attributes', ...contacts,
    description:
      "Chatwoot's contact filter over every contact of the account. Conditions `{attribute_key, filter_operator, values, query_operator}`; `query_operator` (AND/OR, any case) joins a condition to the next, without grouping, so AND binds before OR; the last condition's may be null, empty, omitted or a trailing AND/OR. Keys: name, email, company, city, country_code, referer, identifier (equal_to, not_equal_to, contains, does_not_contain, is_present, is_not_present; case-insensitive), phone_number (those and starts_with, compared as +digits), created_at, last_activity_at (is_greater_than, is_less_than, days_before, is_present, is_not_present), blocked (equal_to, not_equal_to), labels (equal_to, not_equal_to, is_present, is_not_present); any other key is a custom attribute (text operators, and is_greater_than/is_less_than on numbers). `not_equal_to` also matches contacts without the value. 15 a page (`page` in the query or the body). A bad condition is 422 naming it (`payload.1.filter_operator`).",
    query: pageQuerySchema, body: filterBodySchema, response: contactPageSchema, errors: [400, 401, 403, 404, 422],
    requestExample: { payload: [{ attribute_key: 'email', filter_operator: 'contains', values: ['acme.test'], query_operator: 'and' }, { attribute_key: 'labels', filter_operator: 'equal_to', values: ['vip'] }] },
    handler: async ({ query: q, body, ctx, accountId }, deps) => filterContacts(deps, ctx, accountId, body.payload, { sort: parseSort(q.sort), page: q.page ?? body.page ?? 1, withInboxes: true }),
  }),
  route({
    method: 'post', path: CONTACTS, operationId: 'createContact', summary: 'Create a contact', ...contacts,
    description:
      'With `inbox_id` the contact also gets a contact inbox there (`source_id` given or a new UUID). Email and phone number (E.164) are checked; email, phone number and identifier are unique in the account (409 naming the field). `avatar` may be uploaded as multipart/form-data (PNG, JPEG, GIF or WebP).',
    multipart: avatarUpload, body: createContactSchema, wrap: { key: 'contact', siblings: true },
    response: createdContactSchema, errors: [400, 401, 403, 404, 409, 413, 422],
    requestExample: { name: 'Ann Lee', email: 'ann@acme.test', phone_number: '+14155550123', custom_attributes: { plan: 'pro' } },
    handler: async ({ body, ctx, accountId, req }, deps) => {
      const created = await createContact(deps, ctx, accountId, body, imageFromRequest(req, 'avatar'));
      return {
        payload: {
          contact: await renderContact(deps, ctx, created.contact),
          contact_inbox: { inbox: created.inbox ? inboxView(created.inbox) : null, source_id: created.contactInbox?.source_id ?? null },
        },
      };
    },
  }),
  route({
    method: 'get', path: `${CONTACTS}/{id}`, operationId: 'getContact', summary: 'Show a contact', ...contacts,
    params: contactId, response: contactPayloadSchema, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, deps) => ({ payload: await renderContact(deps, ctx, await loadContact(deps, accountId, params.id)) }),
  }),
  route({
    method: ['patch', 'put'], path: `${CONTACTS}/{id}`, operationId: 'updateContact', summary: 'Update a contact', ...contacts,
    description: 'additional_attributes and custom_attributes are merged into the stored ones; other fields are replaced (null or blank clears).',
    multipart: avatarUpload, params: contactId, body: updateContactSchema, wrap: { key: 'contact', siblings: true },
    response: contactPayloadSchema, errors: [400, 401, 403, 404, 409, 413, 422],
    handler: async ({ params, body, ctx, accountId, req }, deps) => {
      const contact = await updateContactFields(deps, ctx, accountId, params.id, body, imageFromRequest(req, 'avatar'));
      return { payload: await renderContact(deps, ctx, contact) };
    },
  }),
  // SPEC 13. The role is checked before the contact is looked up (as Chatwoot), so an agent
  // learns nothing about which ids exist.
  route({
    method: 'delete', path: `${CONTACTS}/{id}`, operationId: 'deleteContact', summary: 'Delete contact', ...contacts,
    description: "Administrators only. The contact's conversations are removed too (asynchronously, by the conversations service).",
    role: 'administrator', params: contactId, response: emptyObjectSchema, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, deps) => {
      await removeContact(deps, ctx, accountId, params.id);
      return {};
    },
  }),
  route({
    method: 'get', path: `${CONTACTS}/{id}/labels`, operationId: 'listContactLabels', summary: "A contact's labels", ...labels,
    params: contactId, response: labelsPayloadSchema, errors: [401, 403, 404],
    handler: async ({ params, accountId }, deps) => ({ payload: (await loadContact(deps, accountId, params.id)).labels }),
  }),
  route({
    method: 'post', path: `${CONTACTS}/{id}/labels`, operationId: 'setContactLabels', summary: "Replace a contact's labels", ...labels,
    params: contactId, body: labelsBodySchema, response: labelsPayloadSchema, errors: [400, 401, 403, 404, 422], requestExample: { labels: ['vip', 'billing'] },
    handler: async ({ params, body, ctx, accountId }, deps) => ({ payload: (await replaceLabels(deps, ctx, accountId, params.id, body.labels)).labels }),
  }),
  route({
    method: 'get', path: `${CONTACTS}/{id}/contactable_inboxes`, operationId: 'listContactableInboxes', summary: 'Inboxes the contact can be reached in', ...contacts,
    description: 'API inboxes the caller may use (all for administrators, member inboxes for agents), each with the newest source id of the contact there or a fresh one.',
    params: contactId, response: contactableInboxesSchema, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, deps) => {
      const contact = await loadContact(deps, accountId, params.id);
      // Chatwoot's `assigned_inboxes`: every inbox for administrators, member inboxes for agents.
      const inboxes = ctx.role === 'administrator' ? await listAccountInboxes(deps.pool, accountId) : await listMemberInboxes(deps.pool, accountId, Number(ctx.actor.id));
      const latest = new Map<number, string>();
      for (const ci of await listForContacts(deps.pool, accountId, [contact.id])) latest.set(ci.inbox_id, ci.source_id);
      // API inboxes reach any contact: the newest source id there, or a fresh one to start with.
      return { payload: inboxes.filter((i) => i.channel_type === 'Channel::Api').map((i) => ({ source_id: latest.get(i.id) ?? randomUUID(), inbox: inboxView(i) })) };
    },
  }),
  route({
    method: 'post', path: `${CONTACTS}/{id}/contact_inboxes`, operationId: 'createContactInbox', summary: 'Give a contact a source id in an inbox', ...contacts,
    params: contactId, body: contactInboxBodySchema, response: addedContactInboxSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ params, body, ctx, accountId }, deps) => {
      const { contactInbox, inbox } = await addContactInbox(deps, ctx, accountId, params.id, body);
      return { source_id: contactInbox.source_id, hmac_verified: contactInbox.hmac_verified, inbox: inboxSlim(inbox) };
    },
  }),
  route({
    method: 'delete', path: `${CONTACTS}/{id}/avatar`, operationId: 'deleteContactAvatar', summary: "Remove a contact's avatar", ...contacts,
    params: contactId, response: contactPayloadSchema, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, deps) => ({ payload: await renderContact(deps, ctx, await removeAvatar(deps, ctx, accountId, params.id)) }),
  }),
  route({
    method: 'post', path: `${CONTACTS}/{id}/destroy_custom_attributes`, operationId: 'destroyContactCustomAttributes', summary: 'Remove custom attributes by key', ...contacts,
    params: contactId, body: destroyCustomAttributesSchema, response: contactPayloadSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ params, body, ctx, accountId }, deps) => ({ payload: await renderContact(deps, ctx, await destroyCustomAttributes(deps, ctx, accountId, params.id, body.custom_attributes)) }),
  }),
  // Chatwoot's ContactInboxesController#filter: the contact behind a source id in an inbox.
  route({
    method: 'post', path: `${ACCOUNT}/contact_inboxes/filter`, operationId: 'filterContactInboxes', summary: 'The contact behind a source id in an inbox', ...contacts,
    body: contactInboxFilterSchema, response: contactPayloadSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ body, ctx, accountId }, deps) => {
      const ci = await findBySource(deps.pool, accountId, body.inbox_id, body.source_id);
      const contact = ci ? await findContact(deps.pool, accountId, ci.contact_id) : null;
      if (!contact) throw new NotFoundError('Contact inbox', 'source_id');
      return { payload: await renderContact(deps, ctx, contact) };
    },
  }),
];
