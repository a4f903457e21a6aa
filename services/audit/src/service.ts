import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { AuditConfig } from './config';
import { createApp } from './app';
import { ingestEvents } from './audit-logs/ingest';
import { AUDITED_EVENT_TYPES } from './audit-logs/mapping';

/**
 * The audit log: fed by every auditable event through the durable queue `audit.events`, consumed
 * in batch mode (`AUDIT_BATCH_SIZE` events per transaction), read through `GET .../audit_logs`.
 */
export const auditService: ServiceDefinition<AuditConfig> = {
  name: 'audit',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: ({ config }) => [
    {
      name: 'events',
      bindings: [...AUDITED_EVENT_TYPES],
      batch: { handle: async (tx, events) => void (await ingestEvents(tx, events)), size: config.AUDIT_BATCH_SIZE, maxWaitMs: config.AUDIT_BATCH_WAIT_MS },
    },
  ],
};
