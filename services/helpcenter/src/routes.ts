import { articleRoutes } from './articles/routes';
import { categoryRoutes } from './categories/routes';
import { portalRoutes } from './portals/routes';
import { publicRoutes } from './public/routes';

/** Every public route of the help center (the API document is built from this list). */
export const routes = [...portalRoutes, ...categoryRoutes, ...articleRoutes, ...publicRoutes];
