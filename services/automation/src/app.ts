import type { Express } from 'express';
import { createServiceApp, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from './config';
import { rulesRouter } from './rules/routes';
import { webhooksRouter } from './webhooks/routes';

export function createApp(deps: ServiceDeps<AutomationConfig>): Express {
  return createServiceApp(deps, (app) => {
    app.use('/api/v1/accounts/:account_id/automation_rules', rulesRouter(deps));
    app.use('/api/v1/accounts/:account_id/webhooks', webhooksRouter(deps));
  });
}
