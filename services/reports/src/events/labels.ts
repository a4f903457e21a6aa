import type { Executor } from '@parley/shared';

/** Newest wins by the owner's event time; a deleted label stays a tombstone (ids are never reused). */
export async function upsertLabel(tx: Executor, accountId: number, id: number, title: string | null, occurredAt: string): Promise<void> {
  await tx.query(
    `INSERT INTO labels (account_id, id, title, version_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, id) DO UPDATE SET title = EXCLUDED.title, version_at = EXCLUDED.version_at
       WHERE labels.version_at <= EXCLUDED.version_at AND NOT labels.deleted`,
    [accountId, id, title, occurredAt],
  );
}

export async function deleteLabel(tx: Executor, accountId: number, id: number, occurredAt: string): Promise<void> {
  await tx.query(
    `INSERT INTO labels (account_id, id, title, version_at, deleted) VALUES ($1, $2, NULL, $3, true)
     ON CONFLICT (account_id, id) DO UPDATE SET deleted = true, version_at = GREATEST(labels.version_at, EXCLUDED.version_at)`,
    [accountId, id, occurredAt],
  );
}

export async function renameLabel(tx: Executor, accountId: number, from: string, to: string): Promise<void> {
  await tx.query('UPDATE conversations SET labels = array_replace(labels, $2, $3) WHERE account_id = $1 AND labels @> ARRAY[$2]::text[]', [accountId, from, to]);
}
