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

function accountKey(ns: string, id: number): string {
  return `${ns}gw:account:${id}`;
}

/** Each cached entry has a version key; an invalidation bumps it. */
const versionKey = (key: string) => `${key}:v`;

/**
 * Every cached entry is stored under the epoch current when it was written; bumping the epoch
 * drops them all at once. A replica that could not invalidate (Redis away during a change)
 * bumps it when Redis is back, so an entry cached before the outage cannot outlive a change
 * made during it (a removed agent does not regain access for the TTL).
 */
const epochKey = (ns: string) => `${ns}gw:epoch`;

/**
 * Stores a value only if the entry's version is still the one read before the database was:
 * a reader that loaded the old rows just before a change committed cannot put them back
 * after that change's invalidation (which bumped the version).
 */
const SET_IF_VERSION = `
local v = redis.call('GET', KEYS[2])
if (v == false and ARGV[1] == '') or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0`;

/**
 * Token -> principal and account -> settings, cached in Redis. Every write to a token,
 * user, membership or account calls the matching invalidate after commit, so a removed
 * agent loses access at once; the TTL only bounds staleness if an invalidation is lost.
 * Reads that race an invalidation never re-cache what they loaded before it (versions).
 * Redis is only a cache here: while it is away every read goes to Postgres (the client fails
 * fast, see createRedis), and invalidations lost meanwhile are made good by an epoch bump.
 */
export class PrincipalStore {
  /** An invalidation failed (Redis away): bump the epoch once Redis answers again. */
  private lostInvalidation = false;

  constructor(
    private readonly pool: Pool,
    private readonly redis: Redis,
    private readonly ns: string,
    private readonly ttlSeconds: number,
    /** Loads from Postgres; tests may wrap it to hold a load while a change commits. */
    private readonly db: Executor = pool,
  ) {
    redis.on('ready', () => void this.recover());
  }

  private async recover(): Promise<void> {
    if (!this.lostInvalidation) return;
    try {
      await this.redis.incr(epochKey(this.ns));
      this.lostInvalidation = false;
    } catch {
      // Still away: the next 'ready' tries again.
    }
  }

  async resolve(token: string): Promise<Principal | null> {
    return this.cached(tokenKey(this.ns, token), () => loadPrincipal(this.db, token));
  }

  async account(id: number): Promise<AccountInfo | null> {
    return this.cached(accountKey(this.ns, id), async () => {
      const { rows } = await this.db.query<AccountInfo>('SELECT id, name, status, features FROM accounts WHERE id = $1', [id]);
      return rows[0] ?? null;
    });
  }

  /** Read-through; a missing record is not cached (it may be created any moment). */
  private async cached<T>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    let version: string | null | undefined;
    let epoch = '0';
    try {
      const [cached, v, e] = await this.redis.mget(key, versionKey(key), epochKey(this.ns));
      epoch = e ?? '0';
      const sep = cached ? cached.indexOf('|') : -1;
      if (cached && cached.slice(0, sep) === epoch) return JSON.parse(cached.slice(sep + 1)) as T;
      version = v ?? null;
    } catch {
      version = undefined; // Redis away: answer from Postgres, cache nothing.
    }
    const value = await load();
    if (value !== null && version !== undefined) {
      await this.redis.eval(SET_IF_VERSION, 2, key, versionKey(key), version ?? '', `${epoch}|${JSON.stringify(value)}`, this.ttlSeconds).catch(() => undefined);
    }
    return value;
  }

  private async invalidate(key: string): Promise<void> {
    // The version outlives any cached entry and any load still in flight.
    await this.redis
      .multi()
      .incr(versionKey(key))
      .expire(versionKey(key), this.ttlSeconds * 2 + 60)
      .del(key)
      .exec()
      .then((results) => {
        if (!results || results.some(([err]) => err)) throw new Error('invalidation failed');
      })
      .catch(() => {
        this.lostInvalidation = true;
      });
  }

  async invalidateToken(token: string): Promise<void> {
    await this.invalidate(tokenKey(this.ns, token));
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
    await this.invalidate(accountKey(this.ns, id));
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
