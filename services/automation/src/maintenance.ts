import type { Logger, Pool, Worker } from '@parley/shared';
import type { AutomationConfig } from './config';
import { pruneRuns } from './rules/repository';
import { pruneDeliveries } from './webhooks/deliveries-repository';

/**
 * Keeps the run history and the delivery log bounded: every hour, rule runs and finished
 * deliveries older than their retention are deleted in batches. Replicas may run it at the
 * same time; the deletes just share the work.
 */
export class Maintenance implements Worker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: { pool: Pool; config: AutomationConfig; log: Logger },
    private readonly everyMs = 3600_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.everyMs);
    this.timer.unref();
  }

  async runOnce(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      const { pool, config, log } = this.deps;
      try {
        let runs = 0;
        let deliveries = 0;
        for (let n = 1; n > 0; runs += n) n = await pruneRuns(pool, config.RULE_RUN_RETENTION_DAYS);
        for (let n = 1; n > 0; deliveries += n) n = await pruneDeliveries(pool, config.WEBHOOK_DELIVERY_RETENTION_DAYS);
        if (runs + deliveries > 2) log.info({ runs, deliveries }, 'pruned old rule runs and webhook deliveries');
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'maintenance failed');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
