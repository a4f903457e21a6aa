import { z } from 'zod';
import { queryInt, routeKit } from '@parley/shared';
import type { AppDeps } from '../deps';
import { contactPageSchema } from './serializers';

const route = routeKit<AppDeps>();

export const activeContactRoutes = [
  route({
    method: 'get',
    path: '/api/v1/accounts/{account_id}/contacts/active',
    operationId: 'listActiveContacts',
    summary: 'Contacts online now',
    description:
      "Chatwoot's online contacts (its presence tracker, fed by the web widget's socket). No client here reports contact presence (there is no web widget or contact socket), so the answer is always an empty page `{meta: {count: 0, current_page}, payload: []}`; the route exists so clients that poll it keep working.",
    tags: ['Contacts'],
    security: ['userApiKey'],
    role: ['administrator', 'agent'],
    query: z.object({ page: queryInt.optional() }),
    response: { description: 'The contacts online (none)', schema: contactPageSchema },
    errors: [400],
    handler: ({ query }) => ({ meta: { count: 0, current_page: String(query.page ?? 1) }, payload: [] }),
  }),
];
