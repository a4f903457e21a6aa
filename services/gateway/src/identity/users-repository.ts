import type { Executor } from '@parley/shared';
import { setClause } from './sql';

export interface UserRow {
  id: number;
  name: string;
  display_name: string | null;
  email: string;
  password_hash: string | null;
  provider: string;
  avatar_url: string | null;
  message_signature: string | null;
  ui_settings: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  pubsub_token: string;
  type: string | null;
  confirmed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface UserFields {
  name: string;
  display_name: string | null;
  email: string;
  password_hash: string | null;
  avatar_url: string | null;
  message_signature: string | null;
  ui_settings: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
}

export const USER_COLUMNS = ['name', 'display_name', 'email', 'password_hash', 'avatar_url', 'message_signature', 'ui_settings', 'custom_attributes'] as const;
const JSON_COLUMNS = ['ui_settings', 'custom_attributes'];

/** Inserts a user unless one with that email (any case) exists; null then. */
export async function insertUserIfNew(db: Executor, u: Pick<UserFields, 'name' | 'email'> & Partial<UserFields>): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (name, display_name, email, password_hash, custom_attributes)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING *`,
    [u.name, u.display_name ?? null, u.email, u.password_hash ?? null, JSON.stringify(u.custom_attributes ?? {})],
  );
  return rows[0] ?? null;
}

export async function findUser(db: Executor, id: number, opts: { lock?: boolean } = {}): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`SELECT * FROM users WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}

export async function updateUser(db: Executor, id: number, patch: Partial<UserFields>): Promise<UserRow> {
  const set = setClause(patch, USER_COLUMNS, JSON_COLUMNS, 2);
  const { rows } = await db.query<UserRow>(`UPDATE users SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
  return rows[0] as UserRow;
}

/** A new realtime `pubsub_token` (Chatwoot rotates it when the password changes). */
export async function rotatePubsubToken(db: Executor, id: number): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(`UPDATE users SET pubsub_token = encode(public.gen_random_bytes(18), 'hex') WHERE id = $1 RETURNING *`, [id]);
  return rows[0] as UserRow;
}

export async function deleteUser(db: Executor, id: number): Promise<void> {
  await db.query('DELETE FROM users WHERE id = $1', [id]);
}
