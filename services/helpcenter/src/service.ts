import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { HelpcenterConfig } from './config';
import { createApp } from './app';

export const helpcenterService: ServiceDefinition<HelpcenterConfig> = {
  name: 'helpcenter',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
};
