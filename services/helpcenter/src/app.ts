import { Router, type Express } from 'express';
import { createServiceApp, requireAccount, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from './config';
import { portalsRouter } from './portals/routes';
import { publicRouter } from './public/routes';

export function createApp(deps: ServiceDeps<HelpcenterConfig>): Express {
  return createServiceApp(deps, (app) => {
    const account = Router({ mergeParams: true });
    account.use(requireAccount);
    account.use('/portals', portalsRouter(deps));
    app.use('/api/v1/accounts/:account_id', account);
    app.use('/public/api/v1/portals', publicRouter(deps));
  });
}
