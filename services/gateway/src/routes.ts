import { accountRoutes } from './identity/account-routes';
import { avatarRoutes } from './identity/avatar-routes';
import { profileRoutes } from './identity/profile-routes';
import { platformRoutes } from './platform/routes';

/** Every public route the gateway answers itself (the API document is built from this list); app.ts mounts each group behind its own checks. */
export const routes = [...platformRoutes, ...profileRoutes, ...accountRoutes, ...avatarRoutes];
