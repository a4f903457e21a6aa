import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { ContactsConfig } from './config';
import { createApp } from './app';
import { contactsConsumer } from './events/consumer';
import { inboxCopies } from './inboxes/repository';

export const contactsService: ServiceDefinition<ContactsConfig> = {
  name: 'contacts',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: (deps) => [contactsConsumer(deps.log, inboxCopies)],
};
