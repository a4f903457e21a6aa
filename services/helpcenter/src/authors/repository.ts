import type { Executor } from '@parley/shared';

/** Chatwoot's agent partial, as the gateway's internal API answers it. */
export type AgentData = Record<string, unknown> & { id: number };

export async function upsertAuthor(db: Executor, accountId: number, userId: number, data: AgentData): Promise<void> {
  await db.query(
    `INSERT INTO authors (account_id, user_id, data) VALUES ($1, $2, $3)
     ON CONFLICT (account_id, user_id) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`,
    [accountId, userId, JSON.stringify(data)],
  );
}

export async function authorsByIds(db: Executor, accountId: number, userIds: number[]): Promise<Map<number, AgentData>> {
  const out = new Map<number, AgentData>();
  if (userIds.length === 0) return out;
  const { rows } = await db.query<{ user_id: number; data: AgentData }>('SELECT user_id, data FROM authors WHERE account_id = $1 AND user_id = ANY($2::int[])', [
    accountId,
    [...new Set(userIds)],
  ]);
  for (const r of rows) out.set(r.user_id, r.data);
  return out;
}

/** A user's profile changed: refresh the names and email in every account's copy. */
export async function refreshUser(db: Executor, userId: number, patch: Record<string, unknown>): Promise<number> {
  const r = await db.query('UPDATE authors SET data = data || $2::jsonb, updated_at = now() WHERE user_id = $1', [userId, JSON.stringify(patch)]);
  return r.rowCount ?? 0;
}

export async function deleteAuthorsOfAccount(db: Executor, accountId: number): Promise<void> {
  await db.query('DELETE FROM authors WHERE account_id = $1', [accountId]);
}
