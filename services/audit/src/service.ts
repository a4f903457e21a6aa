import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { AuditConfig } from './config';
import { createApp } from './app';
import { BatchIngest } from './audit-logs/batch-consumer';
import { AUDITED_EVENT_TYPES } from './audit-logs/mapping';

/**
 * The audit log: fed by every auditable event through a batching consumer of the durable
 * queue `audit.events` (a worker rather than a kernel consumer: the kernel's consumer
 * writes one message per transaction), read through `GET .../audit_logs`.
 */
export const auditService: ServiceDefinition<AuditConfig> = {
  name: 'audit',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  workers: ({ pool, amqp, log, config, metrics }) => [
    new BatchIngest({
      bindings: [...AUDITED_EVENT_TYPES],
      pool,
      amqp,
      log,
      batchSize: config.AUDIT_BATCH_SIZE,
      maxWaitMs: config.AUDIT_BATCH_WAIT_MS,
      maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
      metrics,
    }),
  ],
};
