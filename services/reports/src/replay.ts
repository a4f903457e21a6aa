import type { Pool } from 'pg';
import { rebuildConversation } from './events/repository';

export interface ReplayResult {
  conversations: number;
  reportingEvents: number;
}

/**
 * Rebuilds the reporting events from the recorded facts: every conversation (of one account, or
 * all), each in its own transaction under the conversation's row lock, so it can run while the
 * consumer works. The result is what the consumer would have produced from the same events in any
 * order: the derivation is a pure function of the facts.
 */
export async function replayReports(pool: Pool, opts: { accountId?: number; batch?: number } = {}): Promise<ReplayResult> {
  const batch = opts.batch ?? 500;
  let conversations = 0;
  let after: [number, number] = [0, 0];
  for (;;) {
    const params: unknown[] = [after[0], after[1], batch];
    let where = '(account_id, id) > ($1, $2) AND NOT deleted';
    if (opts.accountId !== undefined) {
      params.push(opts.accountId);
      where += ` AND account_id = $${params.length}`;
    }
    const page = await pool.query<{ account_id: string; id: string }>(`SELECT account_id, id FROM conversations WHERE ${where} ORDER BY account_id, id LIMIT $3`, params);
    if (page.rows.length === 0) break;
    for (const row of page.rows) {
      const accountId = Number(row.account_id);
      const id = Number(row.id);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const r = await client.query<{ created_at: Date | null; deleted: boolean }>('SELECT created_at, deleted FROM conversations WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, id]);
        const state = r.rows[0];
        if (state && !state.deleted) await rebuildConversation(client, accountId, id, state.created_at);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      conversations += 1;
      after = [accountId, id];
    }
  }
  const params: unknown[] = [];
  let where = '';
  if (opts.accountId !== undefined) {
    params.push(opts.accountId);
    where = 'WHERE account_id = $1';
  }
  const n = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM reporting_events ${where}`, params);
  return { conversations, reportingEvents: Number(n.rows[0]?.n ?? 0) };
}
