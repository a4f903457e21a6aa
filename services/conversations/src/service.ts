import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { createApp } from './app';
import { projectionsConsumer } from './projections/consumer';

export const conversationsService: ServiceDefinition<ConversationsConfig> = {
  name: 'conversations',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: () => [projectionsConsumer],
};
