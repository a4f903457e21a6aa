import { Router, type Express } from 'express';
import { createServiceApp, requireAccount, routesRouter, type ServiceDeps } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { appDeps, type AppDeps } from './deps';
import { nulGuard } from './common/nul-guard';
import { conversationsRouter } from './conversations/routes';
import { messagesRouter } from './messages/routes';
import { internalRouter } from './internal/routes';
import { publicRouter } from './public/routes';
import { routes } from './routes';

export function createApp(deps: ServiceDeps<ConversationsConfig> | AppDeps): Express {
  const d = 'peers' in deps ? deps : appDeps(deps);
  return createServiceApp(d, (app) => {
    app.use(nulGuard);
    const account = Router({ mergeParams: true });
    account.use(requireAccount);
    // Route-kit routes first: literal paths such as /conversations/filter before /conversations/{id}.
    app.use(routesRouter(routes, d));
    account.use(conversationsRouter(d));
    account.use(messagesRouter(d));
    app.use('/api/v1/accounts/:account_id', account);
    app.use('/public/api/v1/inboxes', publicRouter(d));
    app.use('/internal', internalRouter(d));
  });
}
