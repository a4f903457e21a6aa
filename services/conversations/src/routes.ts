import { cannedResponseRoutes } from './canned-responses/routes';
import { customAttributeRoutes } from './custom-attributes/routes';
import { customFilterRoutes } from './custom-filters/routes';
import { labelRoutes } from './labels/routes';
import { filterRoutes } from './filters/routes';
import { inboxRoutes } from './inboxes/routes';
import { searchRoutes } from './conversations/search-routes';

/**
 * The conversations service's routes declared with the route kit (the API document takes them
 * from here; the older routers' operations are still listed in openapi.ts).
 */
export const routes = [...inboxRoutes, ...filterRoutes, ...searchRoutes, ...customFilterRoutes, ...labelRoutes, ...cannedResponseRoutes, ...customAttributeRoutes];
