import type { Express } from 'express';
import { createServiceApp, routesRouter, type ServiceDeps } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { appDeps, type AppDeps } from './deps';
import { nulGuard } from './common/nul-guard';
import { internalRouter } from './internal/routes';
import { routes } from './routes';

export function createApp(deps: ServiceDeps<ConversationsConfig> | AppDeps): Express {
  const d = 'peers' in deps ? deps : appDeps(deps);
  return createServiceApp(d, (app) => {
    app.use(nulGuard);
    app.use(routesRouter(routes, d));
    app.use('/internal', internalRouter(d));
  });
}
