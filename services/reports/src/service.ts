import path from 'node:path';
import { inBatches, peersAndProjections, type ServiceDefinition } from '@parley/shared';
import type { ReportsConfig } from './config';
import { createApp } from './app';
import { lockBatch, reportsConsumer, RETIRED_BINDINGS } from './events/consumer';

/**
 * Reports: a read model of the conversations service's events (durable queue `reports.events`):
 * each conversation's little state, the facts reports measure and Chatwoot's reporting events
 * derived from them; served under `/api/v2/accounts/{account_id}/`.
 */
export const reportsService: ServiceDefinition<ReportsConfig> = {
  name: 'reports',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  // The consumer's copies read inboxes through to the conversations service (their working hours).
  // In batches: what arrives together is handled in one transaction (its effects are all rows of
  // this schema; the read-through only reads).
  consumers: (deps) => [{ ...inBatches(reportsConsumer(peersAndProjections(deps).projections), { size: deps.config.CONSUMER_BATCH_SIZE, maxWaitMs: deps.config.CONSUMER_BATCH_WAIT_MS, before: lockBatch }), retiredBindings: RETIRED_BINDINGS }],
};
