import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { AuditConfig } from './config';
import { createApp } from './app';

export const auditService: ServiceDefinition<AuditConfig> = {
  name: 'audit',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
};
