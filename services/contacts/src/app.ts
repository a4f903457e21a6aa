import type { Express } from 'express';
import { createServiceApp, routesRouter, type ServiceDeps } from '@parley/shared';
import type { ContactsConfig } from './config';
import { appDeps } from './deps';
import { internalRouter } from './internal/routes';
import { routes } from './routes';

export function createApp(base: ServiceDeps<ContactsConfig>): Express {
  const deps = appDeps(base);
  return createServiceApp(deps, (app) => {
    app.use('/internal', internalRouter(deps));
    app.use(routesRouter(routes, deps));
  });
}
