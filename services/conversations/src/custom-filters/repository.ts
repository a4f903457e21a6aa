import type { Executor } from '@parley/shared';
import type { FilterType } from './schemas';

export interface CustomFilterRow {
  id: number;
  account_id: number;
  user_id: number;
  name: string;
  filter_type: FilterType;
  query: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface Owner {
  accountId: number;
  userId: number;
}

export async function listCustomFilters(db: Executor, o: Owner, type: FilterType): Promise<CustomFilterRow[]> {
  const { rows } = await db.query<CustomFilterRow>('SELECT * FROM custom_filters WHERE account_id = $1 AND user_id = $2 AND filter_type = $3 ORDER BY id', [o.accountId, o.userId, type]);
  return rows;
}

export async function findCustomFilter(db: Executor, o: Owner, id: number, opts: { forUpdate?: boolean } = {}): Promise<CustomFilterRow | null> {
  const { rows } = await db.query<CustomFilterRow>(
    `SELECT * FROM custom_filters WHERE account_id = $1 AND user_id = $2 AND id = $3${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [o.accountId, o.userId, id],
  );
  return rows[0] ?? null;
}

export async function countCustomFilters(db: Executor, o: Owner): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM custom_filters WHERE account_id = $1 AND user_id = $2', [o.accountId, o.userId]);
  return rows[0]?.n ?? 0;
}

export async function insertCustomFilter(db: Executor, o: Owner, f: { name: string; filter_type: FilterType; query: Record<string, unknown> }): Promise<CustomFilterRow> {
  const { rows } = await db.query<CustomFilterRow>(
    'INSERT INTO custom_filters (account_id, user_id, name, filter_type, query) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [o.accountId, o.userId, f.name, f.filter_type, JSON.stringify(f.query)],
  );
  return rows[0] as CustomFilterRow;
}

export async function updateCustomFilterRow(db: Executor, o: Owner, id: number, f: { name: string; filter_type: FilterType; query: Record<string, unknown> }): Promise<CustomFilterRow> {
  const { rows } = await db.query<CustomFilterRow>(
    'UPDATE custom_filters SET name = $4, filter_type = $5, query = $6, updated_at = now() WHERE account_id = $1 AND user_id = $2 AND id = $3 RETURNING *',
    [o.accountId, o.userId, id, f.name, f.filter_type, JSON.stringify(f.query)],
  );
  return rows[0] as CustomFilterRow;
}

export async function deleteCustomFilter(db: Executor, o: Owner, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM custom_filters WHERE account_id = $1 AND user_id = $2 AND id = $3', [o.accountId, o.userId, id]);
  return (rowCount ?? 0) > 0;
}
