import path from 'node:path';
import { inBatches, type ServiceDefinition } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { createApp } from './app';
import { projectionsConsumer } from './projections/consumer';
import { SnoozeWorker } from './conversations/snooze-worker';
import { CountFoldWorker } from './conversations/counts';

export const conversationsService: ServiceDefinition<ConversationsConfig> = {
  name: 'conversations',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: (deps) => [inBatches(projectionsConsumer(), { size: deps.config.CONSUMER_BATCH_SIZE, maxWaitMs: deps.config.CONSUMER_BATCH_WAIT_MS })],
  workers: (deps) => [new SnoozeWorker(deps.pool, deps.log, deps.config.SNOOZE_POLL_MS), new CountFoldWorker(deps.pool, deps.log, deps.config.COUNT_FOLD_MS)],
  // An automation command's receipt makes a rule's action run once: kept as long as the rules
  // consumer's dedupe record of the event that caused it (a copy arriving later runs it again).
  timedTables: (config) => [{ table: 'command_receipts', column: 'created_at', hours: config.PROCESSED_EVENTS_RETENTION_HOURS }],
};
