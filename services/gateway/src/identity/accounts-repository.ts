import type { Executor } from '@parley/shared';
import { setClause } from './sql';

export interface AccountRow {
  id: number;
  name: string;
  locale: string;
  domain: string | null;
  support_email: string | null;
  status: 'active' | 'suspended';
  features: Record<string, boolean>;
  limits: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface AccountFields {
  name: string;
  locale: string;
  domain: string | null;
  support_email: string | null;
  status: 'active' | 'suspended';
  features: Record<string, boolean>;
  limits: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
}

export const ACCOUNT_COLUMNS = ['name', 'locale', 'domain', 'support_email', 'status', 'features', 'limits', 'custom_attributes'] as const;
const JSON_COLUMNS = ['features', 'limits', 'custom_attributes'];

export async function insertAccount(db: Executor, a: AccountFields): Promise<AccountRow> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (name, locale, domain, support_email, status, features, limits, custom_attributes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [a.name, a.locale, a.domain, a.support_email, a.status, JSON.stringify(a.features), JSON.stringify(a.limits), JSON.stringify(a.custom_attributes)],
  );
  return rows[0] as AccountRow;
}

export async function findAccount(db: Executor, id: number, opts: { lock?: boolean } = {}): Promise<AccountRow | null> {
  const { rows } = await db.query<AccountRow>(`SELECT * FROM accounts WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function listAccounts(db: Executor): Promise<AccountRow[]> {
  const { rows } = await db.query<AccountRow>('SELECT * FROM accounts ORDER BY id');
  return rows;
}

export async function updateAccount(db: Executor, id: number, patch: Partial<AccountFields>): Promise<AccountRow> {
  const set = setClause(patch, ACCOUNT_COLUMNS, JSON_COLUMNS, 2);
  const { rows } = await db.query<AccountRow>(`UPDATE accounts SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
  return rows[0] as AccountRow;
}

export async function deleteAccount(db: Executor, id: number): Promise<void> {
  await db.query('DELETE FROM accounts WHERE id = $1', [id]);
}
