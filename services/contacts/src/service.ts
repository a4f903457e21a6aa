import path from 'node:path';
import { inBatches, type ServiceDefinition } from '@parley/shared';
import type { ContactsConfig } from './config';
import { createApp } from './app';
import { contactsConsumer } from './events/consumer';
import { inboxCopies } from './inboxes/repository';

export const contactsService: ServiceDefinition<ContactsConfig> = {
  name: 'contacts',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  // Batch mode: one transaction for the events that arrive together (message.created comes with every message).
  consumers: (deps) => [inBatches(contactsConsumer(deps.log, inboxCopies), { size: deps.config.CONSUMER_BATCH_SIZE, maxWaitMs: deps.config.CONSUMER_BATCH_WAIT_MS })],
};
