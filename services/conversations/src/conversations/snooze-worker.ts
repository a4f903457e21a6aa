import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { systemContext, withTransaction, type Logger, type Worker } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { changeConversation } from './changes';

const BATCH = 100;

/**
 * Reopens snoozed conversations whose `snoozed_until` has passed (Chatwoot's
 * ReopenSnoozedConversationsJob). Rows are claimed with SKIP LOCKED, so replicas share the
 * work and a conversation being changed by a request is simply taken on the next tick.
 */
export class SnoozeWorker implements Worker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then(() => undefined)
        .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'snooze worker tick failed'))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Reopens everything due; returns how many conversations were reopened. */
  async tick(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await withTransaction(this.pool, async (tx) => {
        const { rows } = await tx.query<ConversationRow>(
          `SELECT * FROM conversations WHERE status = 'snoozed' AND snoozed_until <= now() ORDER BY snoozed_until LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [BATCH],
        );
        for (const conv of rows) {
          const ctx = systemContext('conversations', conv.account_id, randomUUID(), { type: 'system', id: 'snooze', name: 'System' });
          await changeConversation(tx, { ctx }, conv, { status: 'open' }, { statusActivity: 'Conversation was reopened as its snooze time ended' });
        }
        return rows.length;
      });
      total += n;
      if (n < BATCH || this.stopped) return total;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
