import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { HelpcenterConfig } from './config';
import { createApp } from './app';
import { identityConsumer } from './events/identity-consumer';

export const helpcenterService: ServiceDefinition<HelpcenterConfig> = {
  name: 'helpcenter',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: () => [identityConsumer],
};
