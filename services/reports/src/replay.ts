import type { Pool } from 'pg';
import { rebuildConversations } from './events/repository';
import { rebuildRollups } from './events/rollups';

export interface ReplayResult {
  conversations: number;
  reportingEvents: number;
}

/**
 * Rebuilds the reporting events from the recorded facts, then the rollups from the rows: every conversation (of one account, or
 * all), a page of them at a time in a transaction holding their row locks, so it can run while
 * the consumer works. The result is what the consumer would have produced from the same events in any
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
    // One transaction per page and account: the page's rows locked (in key order, as the consumer
    // takes one at a time), their events rebuilt in one read of the facts and one insert.
    const byAccount = new Map<number, number[]>();
    for (const row of page.rows) {
      const accountId = Number(row.account_id);
      const list = byAccount.get(accountId) ?? [];
      list.push(Number(row.id));
      byAccount.set(accountId, list);
    }
    for (const [accountId, ids] of byAccount) {
      await rebuildPage(pool, accountId, ids);
      conversations += ids.length;
    }
    const last = page.rows[page.rows.length - 1]!;
    after = [Number(last.account_id), Number(last.id)];
  }
  // The rebuilt events moved the rollups as they changed; recomputed whole, they cannot drift.
  await rebuildRollups(pool, opts.accountId ?? null);
  const params: unknown[] = [];
  let where = '';
  if (opts.accountId !== undefined) {
    params.push(opts.accountId);
    where = 'WHERE account_id = $1';
  }
  const n = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM reporting_events ${where}`, params);
  return { conversations, reportingEvents: Number(n.rows[0]?.n ?? 0) };
}

/** One page: its rows locked in key order, their events rebuilt; again after a deadlock with the consumer (which locks in arrival order). */
async function rebuildPage(pool: Pool, accountId: number, ids: number[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const r = await client.query<{ id: string; created_at: Date | null }>(
        'SELECT id, created_at FROM conversations WHERE account_id = $1 AND id = ANY($2::bigint[]) AND NOT deleted ORDER BY id FOR UPDATE',
        [accountId, ids],
      );
      await rebuildConversations(client, accountId, r.rows.map((row) => ({ id: Number(row.id), created_at: row.created_at })));
      await client.query('COMMIT');
      return;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
    } finally {
      client.release();
    }
  }
}
