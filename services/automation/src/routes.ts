import { ruleRoutes } from './rules/routes';
import { webhookRoutes } from './webhooks/routes';

/** Every public route of the automation service (the API document is built from this list). */
export const routes = [...ruleRoutes, ...webhookRoutes];
