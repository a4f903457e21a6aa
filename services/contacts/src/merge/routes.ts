import { z } from 'zod';
import { routeKit } from '@parley/shared';
import type { AppDeps } from '../deps';
import { renderContact } from '../contacts/queries';
import { contactViewSchema } from '../contacts/serializers';
import { mergeContacts } from './service';

const route = routeKit<AppDeps>();

/** A contact id in a body: a JSON number or its digits. */
const contactId = z.union([z.number().int().positive().max(2_147_483_647), z.string().regex(/^[1-9][0-9]{0,9}$/, 'must be a contact id').transform(Number)], {
  error: 'must be a contact id',
});

export const mergeRoutes = [
  route({
    method: 'post',
    path: '/api/v1/accounts/{account_id}/actions/contact_merge',
    operationId: 'mergeContacts',
    summary: 'Merge two contacts',
    description:
      "Chatwoot's contact merge: `mergee_contact_id` goes into `base_contact_id`. The base keeps its values and takes the mergee's where it has none (name, email, phone number, identifier; attribute keys it lacks); labels are joined; the mergee's contact inboxes and conversations (with their messages and notes) move to the base; the mergee is deleted. Publishes `contact.merged` (the base, with `merged_contact_id`). Answers the base contact as it is now. Either id unknown is 404; the same id twice is 422.",
    tags: ['Contacts'],
    security: ['userApiKey'],
    role: ['administrator', 'agent'],
    body: z.object({ base_contact_id: contactId, mergee_contact_id: contactId }),
    response: { description: 'The base contact after the merge', schema: contactViewSchema },
    errors: [422],
    requestExample: { base_contact_id: 1, mergee_contact_id: 2 },
    handler: async ({ body, ctx, accountId }, deps) => renderContact(deps, ctx, await mergeContacts(deps, ctx, accountId, body.base_contact_id, body.mergee_contact_id)),
  }),
];
