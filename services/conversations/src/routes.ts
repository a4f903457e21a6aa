import { cannedResponseRoutes } from './canned-responses/routes';
import { customAttributeRoutes } from './custom-attributes/routes';
import { customFilterRoutes } from './custom-filters/routes';
import { labelRoutes } from './labels/routes';
import { filterRoutes } from './filters/routes';
import { inboxRoutes } from './inboxes/routes';
import { searchRoutes } from './conversations/search-routes';
import { conversationRoutes } from './conversations/routes';
import { messageRoutes } from './messages/routes';
import { publicRoutes } from './public/routes';

/**
 * Every public route of the conversations service, declared with the route kit (the API document
 * takes them from here). Literal paths (`/conversations/filter`, `/search`, `/meta`) come before
 * `/conversations/{conversation_id}`.
 */
export const routes = [
  ...inboxRoutes, ...filterRoutes, ...searchRoutes, ...customFilterRoutes, ...labelRoutes, ...cannedResponseRoutes, ...customAttributeRoutes,
  ...conversationRoutes, ...messageRoutes, ...publicRoutes,
];
