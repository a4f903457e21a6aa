import { auditLogRoutes } from './audit-logs/routes';

/** Every public route of the audit service (the API document is built from this list). */
export const routes = [...auditLogRoutes];
