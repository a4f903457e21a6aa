import { createHash } from 'node:crypto';
import type { Executor, Pool, Redis, Role } from '@parley/shared';

export type Principal =
  | { kind: 'user'; userId: number; name: string; email: string; memberships: Record<string, Role> }
  | { kind: 'bot'; botId: number; name: string; accountId: number | null };

export interface AccountInfo {
  id: number;
  name: string;
  status: 'active' | 'suspended';
  features: Record<string, boolean>;
}

function tokenKey(ns: string, token: string): string {
  return `${ns}gw:token:${createHash('sha256').update(token).digest('hex')}`;
}

/**
 * Token -> principal and account -> settings, cached in Redis. Every write to a token,
 * user, membership or account calls the matching invalidate after commit, so a removed
 * agent loses access at once; the TTL only bounds staleness if an invalidation is lost.
 */
export class PrincipalStore {
  constructor(
    private readonly pool: Pool,
    private readonly redis: Redis,
    private readonly ns: string,
    private readonly ttlSeconds: number,
  ) {}

  async resolve(token: string): Promise<Principal | null> {
    const key = tokenKey(this.ns, token);
    try {
      const cached = await this.redis.get(key);
      if (cached) return JSON.parse(cached) as Principal;
    } catch {
      // Redis away: answer from Postgres.
    }
    const principal = await loadPrincipal(this.pool, token);
    if (principal) {
      await this.redis.set(key, JSON.stringify(principal), 'EX', this.ttlSeconds).catch(() => undefined);
    }
    return principal;
  }

  async account(id: number): Promise<AccountInfo | null> {
    const key = `${this.ns}gw:account:${id}`;
    try {
      const cached = await this.redis.get(key);
      if (cached) return JSON.parse(cached) as AccountInfo;
    } catch {
      // fall through
    }
    const { rows } = await this.pool.query<AccountInfo>('SELECT id, name, status, features FROM accounts WHERE id = $1', [id]);
    const info = rows[0] ?? null;
    if (info) await this.redis.set(key, JSON.stringify(info), 'EX', this.ttlSeconds).catch(() => undefined);
    return info;
  }

  async invalidateToken(token: string): Promise<void> {
    await this.redis.del(tokenKey(this.ns, token)).catch(() => undefined);
  }

  /** Drops the cached principal of every token a user or bot owns. */
  async invalidateOwner(db: Executor, ownerType: 'User' | 'AgentBot', ownerId: number): Promise<void> {
    const { rows } = await db.query<{ token: string }>('SELECT token FROM access_tokens WHERE owner_type = $1 AND owner_id = $2', [ownerType, ownerId]);
    await Promise.all(rows.map((r) => this.invalidateToken(r.token)));
  }

  async invalidateUsers(db: Executor, userIds: number[]): Promise<void> {
    await Promise.all(userIds.map((id) => this.invalidateOwner(db, 'User', id)));
  }

  async invalidateAccount(id: number): Promise<void> {
    await this.redis.del(`${this.ns}gw:account:${id}`).catch(() => undefined);
  }
}

async function loadPrincipal(db: Executor, token: string): Promise<Principal | null> {
  const { rows } = await db.query<{ owner_type: 'User' | 'AgentBot'; owner_id: number }>('SELECT owner_type, owner_id FROM access_tokens WHERE token = $1', [token]);
  const row = rows[0];
  if (!row) return null;
  if (row.owner_type === 'AgentBot') {
    const bot = await db.query<{ id: number; name: string; account_id: number | null }>('SELECT id, name, account_id FROM agent_bots WHERE id = $1', [row.owner_id]);
    const b = bot.rows[0];
    return b ? { kind: 'bot', botId: b.id, name: b.name, accountId: b.account_id } : null;
  }
  const user = await db.query<{ id: number; name: string; email: string }>('SELECT id, name, email FROM users WHERE id = $1', [row.owner_id]);
  const u = user.rows[0];
  if (!u) return null;
  const m = await db.query<{ account_id: number; role: Role }>('SELECT account_id, role FROM account_users WHERE user_id = $1', [u.id]);
  const memberships: Record<string, Role> = {};
  for (const r of m.rows) memberships[String(r.account_id)] = r.role;
  return { kind: 'user', userId: u.id, name: u.name, email: u.email, memberships };
}
