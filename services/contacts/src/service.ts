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
  // Batch mode: one transaction for the events that arrive together (message.created comes with
  // every message of a contact). The activity waits longer for company (it is on no request's path);
  // anything else in the batch takes it along at the short wait.
  consumers: (deps) => [
    inBatches(contactsConsumer(deps.log, inboxCopies), {
      size: deps.config.CONSUMER_BATCH_SIZE,
      maxWaitMs: (event) => (event.type === 'message.created' ? deps.config.CONTACTS_ACTIVITY_BATCH_WAIT_MS : deps.config.CONSUMER_BATCH_WAIT_MS),
    }),
  ],
};
