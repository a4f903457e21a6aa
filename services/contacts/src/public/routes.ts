import { z } from 'zod';
import { IMAGE_TOKEN_RE, imageFromRequest, multipartImage, NotFoundError, pathParam, sendStoredImage, type SecurityScheme } from '@parley/shared';
import type { AppDeps } from '../deps';
import { route } from '../contacts/routes';
import { findAvatarByToken } from '../contacts/repository';
import { publicCreateSchema, publicShowQuerySchema, publicUpdateSchema } from '../contacts/schemas';
import { AVATAR_PATH, publicContactSchema, publicContactView, publicFullContact, publicFullContactSchema } from '../contacts/serializers';
import { publicCreateContact, publicShowContact, publicUpdateContact } from './service';

const PUBLIC = '/public/api/v1/inboxes/{inbox_identifier}/contacts';
const anonymous: { tags: string[]; security: SecurityScheme[] } = { tags: ['Public contacts'], security: [] };
const inbox = { inbox_identifier: pathParam('Inbox', z.string().describe('Identifier of the API inbox (its channel identifier)')) };
const contact = { ...inbox, contact_identifier: pathParam('Contact', z.string().describe('The source id answered when the contact was created')) };
const avatarUpload = (deps: AppDeps) => multipartImage({ maxBytes: deps.config.AVATAR_MAX_BYTES, fileFields: ['avatar'] });

/** The public client API (SPEC 5): no credential. */
export const publicRoutes = [
  route({
    method: 'post', path: PUBLIC, operationId: 'publicCreateContact', summary: 'Create contact (public)', ...anonymous,
    description:
      'An existing `source_id` answers its contact unchanged; otherwise the contact is found by identifier, email or phone number, or created. `identifier_hash` = lowercase hex HMAC-SHA256 of `identifier` keyed by the inbox `hmac_token`: a correct one verifies the contact inbox, a wrong one (or none where the inbox makes it mandatory) is 401. `avatar` may be uploaded as multipart/form-data.',
    multipart: avatarUpload, params: inbox, body: publicCreateSchema, wrap: { key: 'contact', siblings: true },
    response: publicContactSchema, errors: [400, 401, 404, 409, 413, 422],
    requestExample: { identifier: 'user-42', identifier_hash: '<hex hmac-sha256 of identifier>', email: 'ann@acme.test', name: 'Ann Lee' },
    handler: async ({ params, body, ctx, req }, deps) => {
      const { contact: c, contactInbox } = await publicCreateContact(deps, ctx, params.inbox_identifier, body, imageFromRequest(req, 'avatar'));
      return publicContactView(c, contactInbox);
    },
  }),
  route({
    method: 'get', path: `${PUBLIC}/{contact_identifier}`, operationId: 'publicGetContact', summary: 'Show contact (public)', ...anonymous,
    description: 'With `identifier` and `identifier_hash` in the query, a correct hash for this contact verifies the contact inbox.',
    params: contact, query: publicShowQuerySchema, response: publicContactSchema, errors: [400, 401, 404],
    handler: async ({ params, query, ctx }, deps) => {
      const { contact: c, contactInbox } = await publicShowContact(deps, ctx, params.inbox_identifier, params.contact_identifier, query);
      return publicContactView(c, contactInbox);
    },
  }),
  route({
    method: ['patch', 'put'], path: `${PUBLIC}/{contact_identifier}`, operationId: 'publicUpdateContact', summary: 'Update contact (public)', ...anonymous,
    description: 'Blank values are ignored, custom attributes merged; identifier is never changed here. An email or phone number another contact holds is 409.',
    multipart: avatarUpload, params: contact, body: publicUpdateSchema, wrap: { key: 'contact', siblings: true },
    response: publicFullContactSchema, errors: [400, 401, 404, 409, 413, 422],
    handler: async ({ params, body, ctx, req }, deps) => {
      const { contact: c } = await publicUpdateContact(deps, ctx, params.inbox_identifier, params.contact_identifier, body, imageFromRequest(req, 'avatar'));
      return publicFullContact(c, deps.config.PUBLIC_BASE_URL);
    },
  }),
  route({
    method: 'get', path: `${AVATAR_PATH}/{token}`, operationId: 'publicGetContactAvatar', summary: 'An uploaded contact avatar', ...anonymous,
    description: "The image bytes (image/png, image/jpeg, image/gif or image/webp), not JSON. This is the URL a contact's `thumbnail` names after an upload; the token changes with every upload.",
    params: { token: pathParam('Avatar', z.string().describe('Unguessable name of one upload')) }, errors: [404],
    handler: async ({ params, res }, deps) => {
      const avatar = IMAGE_TOKEN_RE.test(params.token) ? await findAvatarByToken(deps.pool, params.token) : null;
      if (!avatar) throw new NotFoundError('Avatar', 'token');
      sendStoredImage(res, avatar);
    },
  }),
];
