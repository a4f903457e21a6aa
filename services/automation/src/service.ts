import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { AutomationConfig } from './config';
import { createApp } from './app';

export const automationService: ServiceDefinition<AutomationConfig> = {
  name: 'automation',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
};
