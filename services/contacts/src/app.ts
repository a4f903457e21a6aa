import type { Express } from 'express';
import { createServiceApp, type ServiceDeps } from '@parley/shared';
import type { ContactsConfig } from './config';
import { appDeps } from './deps';
import { contactInboxesRouter, contactsRouter } from './contacts/routes';
import { internalRouter } from './internal/routes';
import { publicAvatarsRouter, publicContactsRouter } from './public/routes';

export function createApp(base: ServiceDeps<ContactsConfig>): Express {
  const deps = appDeps(base);
  return createServiceApp(deps, (app) => {
    app.use('/internal', internalRouter(deps));
    app.use('/api/v1/accounts/:account_id/contacts', contactsRouter(deps));
    app.use('/api/v1/accounts/:account_id/contact_inboxes', contactInboxesRouter(deps));
    app.use('/public/api/v1/inboxes/:inbox_identifier/contacts', publicContactsRouter(deps));
    app.use('/public/api/v1/contact_avatars', publicAvatarsRouter(deps));
  });
}
