import type { Express } from 'express';
import { createServiceApp, routesRouter, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from './config';
import { routes } from './routes';

export function createApp(deps: ServiceDeps<AutomationConfig>): Express {
  return createServiceApp(deps, (app) => {
    app.use(routesRouter(routes, deps));
  });
}
