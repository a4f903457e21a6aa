import type { Express } from 'express';
import { createServiceApp, type ServiceDeps } from '@parley/shared';
import type { AuditConfig } from './config';
import { auditLogsRouter } from './audit-logs/routes';

export function createApp(deps: ServiceDeps<AuditConfig>): Express {
  return createServiceApp(deps, (app) => {
    app.use('/api/v1/accounts/:account_id/audit_logs', auditLogsRouter(deps.pool));
  });
}
