import { activeContactRoutes } from './contacts/active-routes';
import { contactRoutes } from './contacts/routes';
import { mergeRoutes } from './merge/routes';
import { publicRoutes } from './public/routes';

/**
 * Every public route of the contacts service (the API document is built from this list). Literal
 * paths first: /contacts/active before /contacts/{id}.
 */
export const routes = [...activeContactRoutes, ...mergeRoutes, ...contactRoutes, ...publicRoutes];
