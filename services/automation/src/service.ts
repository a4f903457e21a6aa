import path from 'node:path';
import { inBatches, type ServiceDefinition, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from './config';
import { createApp } from './app';
import { RuleCache } from './engine/cache';
import { rulesConsumer } from './engine/engine';
import { Maintenance } from './maintenance';
import { copiesOf } from './projections/copies';
import { projectionsConsumer } from './projections/consumer';
import { webhooksConsumer } from './webhooks/fanout';
import { PayloadSources } from './webhooks/payload-sources';
import { DeliverySender } from './webhooks/sender';

/** Each process's webhook sender, by its deps, for the fan-out to wake when it commits deliveries. */
const senders = new WeakMap<object, DeliverySender>();
const senderOf = (deps: ServiceDeps<AutomationConfig>): DeliverySender => {
  let s = senders.get(deps);
  if (!s) senders.set(deps, (s = new DeliverySender(deps)));
  return s;
};

/**
 * Three queues, so a backlog in one never delays the others: `automation.rules` (the engine),
 * `automation.webhooks` (events -> delivery rows) and `automation.projections` (contacts and
 * inboxes). Two workers: the webhook sender and the maintenance job.
 */
export const automationService: ServiceDefinition<AutomationConfig> = {
  name: 'automation',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: (deps: ServiceDeps<AutomationConfig>) => {
    const payloads = new PayloadSources(deps);
    return [
      rulesConsumer({ config: deps.config, log: deps.log, cache: new RuleCache(deps.config.RULE_CACHE_ACCOUNTS), payloads }),
      webhooksConsumer({ config: deps.config, log: deps.log, payloads, deliveriesCommitted: () => senderOf(deps).kick() }),
      inBatches(projectionsConsumer(copiesOf(deps).projections), { size: deps.config.CONSUMER_BATCH_SIZE, maxWaitMs: deps.config.CONSUMER_BATCH_WAIT_MS }),
    ];
  },
  workers: (deps) => [senderOf(deps), new Maintenance(deps)],
};
