import { randomBytes } from 'node:crypto';
import type { Executor } from '@parley/shared';

export type TokenOwner = 'User' | 'AgentBot';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A 24-character base58 token, like Rails' has_secure_token (rejection sampling: no modulo bias). */
export function generateToken(length = 24): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b >= 232) continue; // 232 = 4 * 58
      out += BASE58[b % 58];
      if (out.length === length) break;
    }
  }
  return out;
}

export async function insertToken(db: Executor, ownerType: TokenOwner, ownerId: number): Promise<string> {
  const { rows } = await db.query<{ token: string }>('INSERT INTO access_tokens (owner_type, owner_id, token) VALUES ($1, $2, $3) RETURNING token', [
    ownerType,
    ownerId,
    generateToken(),
  ]);
  return (rows[0] as { token: string }).token;
}

export async function findToken(db: Executor, ownerType: TokenOwner, ownerId: number): Promise<string | null> {
  const { rows } = await db.query<{ token: string }>('SELECT token FROM access_tokens WHERE owner_type = $1 AND owner_id = $2', [ownerType, ownerId]);
  return rows[0]?.token ?? null;
}

export async function findTokens(db: Executor, ownerType: TokenOwner, ownerIds: number[]): Promise<Map<number, string>> {
  if (ownerIds.length === 0) return new Map();
  const { rows } = await db.query<{ owner_id: number; token: string }>('SELECT owner_id, token FROM access_tokens WHERE owner_type = $1 AND owner_id = ANY($2::int[])', [
    ownerType,
    ownerIds,
  ]);
  return new Map(rows.map((r) => [r.owner_id, r.token]));
}

/** Replaces the owner's token; returns the old one (to drop from the cache) and the new one, or null if it had none. */
export async function rotateToken(db: Executor, ownerType: TokenOwner, ownerId: number): Promise<{ old: string; token: string } | null> {
  const { rows } = await db.query<{ old: string; token: string }>(
    `UPDATE access_tokens t SET token = $3, created_at = now()
       FROM (SELECT id, token AS old FROM access_tokens WHERE owner_type = $1 AND owner_id = $2 FOR UPDATE) o
      WHERE t.id = o.id
      RETURNING o.old, t.token`,
    [ownerType, ownerId, generateToken()],
  );
  return rows[0] ?? null;
}

export async function deleteTokens(db: Executor, ownerType: TokenOwner, ownerIds: number[]): Promise<string[]> {
  if (ownerIds.length === 0) return [];
  const { rows } = await db.query<{ token: string }>('DELETE FROM access_tokens WHERE owner_type = $1 AND owner_id = ANY($2::int[]) RETURNING token', [ownerType, ownerIds]);
  return rows.map((r) => r.token);
}
