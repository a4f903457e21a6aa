import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { PeriodicWorker, systemContext, withTransaction, type Logger } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { changeConversation } from './changes';

const BATCH = 100;

/**
 * Reopens snoozed conversations whose `snoozed_until` has passed (Chatwoot's
 * ReopenSnoozedConversationsJob). Rows are claimed with SKIP LOCKED, so replicas share the
 * work and a conversation being changed by a request is simply taken on the next tick.
 */
export class SnoozeWorker extends PeriodicWorker {
  constructor(
    private readonly pool: Pool,
    log: Logger,
    intervalMs: number,
  ) {
    super(log, intervalMs, 'snooze worker tick');
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

}
