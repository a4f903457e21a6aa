import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { AuditConfig } from './config';
import { createApp } from './app';
import { auditConsumer } from './audit-logs/ingest';

export const auditService: ServiceDefinition<AuditConfig> = {
  name: 'audit',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: (deps) => [auditConsumer(deps.log)],
};
