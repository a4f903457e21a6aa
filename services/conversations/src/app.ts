import { Router, type Express } from 'express';
import { createServiceApp, requireAccount, type ServiceDeps } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { appDeps, type AppDeps } from './deps';
import { nulGuard } from './common/nul-guard';
import { cannedResponsesRouter } from './canned-responses/routes';
import { conversationsRouter } from './conversations/routes';
import { customAttributesRouter } from './custom-attributes/routes';
import { labelsRouter } from './labels/routes';
import { inboxesRouter } from './inboxes/routes';
import { messagesRouter } from './messages/routes';
import { internalRouter } from './internal/routes';
import { publicRouter } from './public/routes';

export function createApp(deps: ServiceDeps<ConversationsConfig> | AppDeps): Express {
  const d = 'peers' in deps ? deps : appDeps(deps);
  return createServiceApp(d, (app) => {
    app.use(nulGuard);
    const account = Router({ mergeParams: true });
    account.use(requireAccount);
    account.use(inboxesRouter(d));
    account.use(conversationsRouter(d));
    account.use(messagesRouter(d));
    account.use(labelsRouter(d));
    account.use(cannedResponsesRouter(d));
    account.use(customAttributesRouter(d));
    app.use('/api/v1/accounts/:account_id', account);
    app.use('/public/api/v1/inboxes', publicRouter(d));
    app.use('/internal', internalRouter(d));
  });
}
