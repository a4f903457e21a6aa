import { createHash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Gauge } from 'prom-client';
import type { Executor, Logger, Pool, Redis, Role, ServiceMetrics } from '@parley/shared';

export type Principal =
  | { kind: 'user'; userId: number; name: string; email: string; memberships: Record<string, Role> }
  | { kind: 'bot'; botId: number; name: string; accountId: number | null };

export interface AccountInfo {
  id: number;
  name: string;
  status: 'active' | 'suspended';
  features: Record<string, boolean>;
}

/** A change waiting for the replicas' confirmations of its barrier. */
interface AckWait {
  /** The replicas that confirmed (each once, whatever a reconnect resends). */
  from: Set<string>;
  /** How many subscribers PUBLISH reached (until it answers: not yet known). */
  needed: number;
  done: (outcome: AckOutcome) => void;
}

/** How a wait for confirmations ended: all came, the timeout, or the subscription went down. */
type AckOutcome = 'confirmed' | 'timeout' | 'ended';

/** A cached token: its principal and, once asked for, the profile answer built from the same rows. */
interface TokenEntry {
  principal: Principal;
  profile?: unknown;
}

/** How often the invalidation subscriber proves its connection alive (a hung Redis does not close it). */
export const PRINCIPAL_HEARTBEAT_MS = 1000;

/**
 * Longest a change waits, once its barrier is published, for every subscribed replica to confirm
 * it (a replica that is hung, or of a version that does not confirm, costs a change this).
 */
export const PRINCIPAL_ACK_TIMEOUT_MS = 1000;

/** The prefix of a barrier: `n:<replica id>:<sequence>` (a version before barriers only bumps its generation on it). */
const BARRIER = 'n:';

export interface PrincipalStoreOptions {
  /** Most tokens (and most accounts) held in process; the least recently used go first. */
  maxEntries?: number;
  /** PRINCIPAL_ACK_TIMEOUT_MS unless set (tests). */
  ackTimeoutMs?: number;
  /** Says once when invalidations stop arriving (the cache is bypassed) and when they are back. */
  log?: Logger;
  /** Registers `parley_gateway_principal_cache_live` (1 while invalidations arrive). */
  metrics?: ServiceMetrics;
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Resolves once the I/O the event loop has already taken in has been handled. A change made
 * through another replica is answered only after this one confirmed its invalidation
 * (`invalidate`), but an invalidation published without waiting (a replica that could not wait, a
 * flush after an outage) can be in this process's socket with a request sent after it, and both
 * can be read in one turn of the event loop, the request's first. A cached answer waits for
 * this, then looks again.
 */
let pendingIo: Promise<void> | null = null;
/** One `setImmediate` a turn of the event loop, shared by every cache hit of that turn (alone: ~6 µs a request). */
const afterPendingIo = (): Promise<void> =>
  (pendingIo ??= new Promise((resolve) =>
    setImmediate(() => {
      pendingIo = null;
      resolve();
    }),
  ));

/**
 * Token -> principal, account -> settings, and the profile answer, cached in this process and
 * invalidated through Redis pub/sub. Every write to a token, user, membership or account calls
 * the matching invalidate after commit: it drops the entry here at once and publishes the
 * invalidation on `<ns>gw:principals`, which every gateway replica (this one included) is
 * subscribed to, then a barrier of its own (`n:<replica id>:<sequence>`) on the same channel. A
 * replica reads a channel's messages in order, so when it reads the barrier it has dropped the
 * entry; it confirms on the publisher's own channel (`<ns>gw:principals:acks:<replica id>`), and the
 * change waits for as many replicas as the barrier's PUBLISH counted (at most
 * PRINCIPAL_ACK_TIMEOUT_MS after it) before it is answered: a removed agent has lost access on every
 * replica before the removal's answer leaves. Only a confirmation proves it: Redis writing every
 * copy before a later answer does not, since the kernel can deliver the copy on loopback after an
 * answer written later, to another socket, on a loaded host (a CI run saw it). A barrier is this
 * change's alone, so a confirmation of another change (of the same token, at once, or one that
 * timed out) never counts for it. The TTL only bounds staleness if an invalidation is ever lost.
 *
 * The cache is used only while the subscription is known to be alive: its connection is up,
 * subscribed, and answers a PING every PRINCIPAL_HEARTBEAT_MS (within the Redis command
 * timeout, 1 s). Otherwise (Redis stopped, unreachable or hung) every request reads Postgres, as
 * it would without a cache, so a revocation made on any replica during an outage holds at once,
 * and the whole cache is dropped when the subscription is back (what was cached before may have
 * changed meanwhile). The one window: between Redis hanging silently and the heartbeat noticing
 * (at most about 2 s), an invalidation published by another replica may be lost. A replica whose
 * publish failed broadcasts a full flush once Redis is back.
 *
 * A load that raced an invalidation never caches what it read before it: loads note the
 * store's generation, which every invalidation (local or received) and every flush bumps.
 */
export class PrincipalStore {
  private readonly tokens: LRUCache<string, TokenEntry>;
  private readonly accounts: LRUCache<number, AccountInfo>;
  private readonly channel: string;
  private readonly ackChannel: string;
  private readonly ackTimeoutMs: number;
  /** This replica's name in barriers and confirmations. */
  private readonly replicaId = randomUUID();
  private barriers = 0;
  /** Changes waiting for confirmations, by their barrier's sequence. */
  private readonly waiting = new Map<number, AckWait>();
  private lastUnconfirmedWarning = 0;
  private readonly sub: Redis;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly log: Logger | undefined;
  /** Bumped by every invalidation and flush: a load that saw another value does not cache. */
  private generation = 0;
  /** The subscription is up (and the last heartbeat answered): the cache may be used. */
  private live = false;
  /** A publish failed (Redis away): broadcast a full flush once Redis answers again. */
  private lostInvalidation = false;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly redis: Redis,
    ns: string,
    ttlSeconds: number,
    /** Loads from Postgres; tests may wrap it to hold a load while a change commits. */
    private readonly db: Executor = pool,
    opts: PrincipalStoreOptions = {},
  ) {
    const max = opts.maxEntries ?? 20_000;
    this.tokens = new LRUCache({ max, ttl: ttlSeconds * 1000 });
    this.accounts = new LRUCache({ max, ttl: ttlSeconds * 1000 });
    this.channel = `${ns}gw:principals`;
    this.ackChannel = this.ackChannelOf(this.replicaId);
    this.ackTimeoutMs = opts.ackTimeoutMs ?? PRINCIPAL_ACK_TIMEOUT_MS;
    this.log = opts.log;
    // A subscriber needs a connection of its own; same settings (fail fast, reconnect for ever).
    this.sub = redis.duplicate({ autoResubscribe: false, lazyConnect: true, enableAutoPipelining: false });
    this.sub.on('error', () => undefined); // the main client's listeners say when Redis is away
    this.sub.on('message', (channel: string, message: string) => (channel === this.ackChannel ? this.acked(message) : this.receivedFromReplica(message)));
    this.sub.on('ready', () => void this.subscribe());
    this.sub.on('close', () => this.dark());
    this.sub.connect().catch(() => undefined); // retried by its strategy
    this.heartbeat = setInterval(() => void this.beat(), PRINCIPAL_HEARTBEAT_MS);
    this.heartbeat.unref();
    redis.on('ready', () => void this.recover());
    // The service's shutdown disconnects its client: the subscriber goes with it.
    redis.once('end', () => this.close());
    if (opts.metrics) {
      const store = this;
      const name = 'parley_gateway_principal_cache_live';
      opts.metrics.registry.removeSingleMetric(name); // an app made again on the same deps (tests): the newest store reports
      new Gauge({
        name,
        help: 'Principal cache in use: 1 while the invalidation subscription is up, 0 while every request reads Postgres',
        registers: [opts.metrics.registry],
        collect() {
          this.set(store.live ? 1 : 0);
        },
      });
    }
  }

  /** True while cached principals are served (the invalidation subscription is alive). */
  get isLive(): boolean {
    return this.live;
  }

  /** How many invalidations and flushes this store has taken (a test waits for one to arrive). */
  get invalidations(): number {
    return this.generation;
  }

  private subscribing = false;

  private async subscribe(): Promise<void> {
    if (this.subscribing) return;
    this.subscribing = true;
    try {
      await this.sub.subscribe(this.channel, this.ackChannel);
    } catch {
      return; // the next 'ready' or heartbeat retries
    } finally {
      this.subscribing = false;
    }
    if (this.closed || this.sub.status !== 'ready') return;
    this.flush(); // invalidations may have been missed while unsubscribed
    if (!this.live) this.log?.info('principal cache in use again (invalidations arrive)');
    this.live = true;
  }

  private dark(): void {
    if (!this.live) return;
    this.live = false;
    this.flush();
    this.endWaits();
    if (!this.closed) this.log?.warn('principal cache bypassed: invalidations cannot arrive while Redis is away; principals come from Postgres');
  }

  private async beat(): Promise<void> {
    if (this.lostInvalidation) void this.recover(); // a hung connection never says 'ready' again
    if (!this.live) {
      // Connected but not subscribed (the subscribe itself failed): try again.
      if (this.sub.status === 'ready' && !this.closed) void this.subscribe();
      return;
    }
    try {
      await this.sub.ping();
    } catch {
      // Connected but not answering (a hung server or a silent partition): stop trusting the
      // cache and start over on a new connection.
      this.dark();
      this.sub.disconnect(true);
    }
  }

  private async recover(): Promise<void> {
    if (!this.lostInvalidation) return;
    try {
      await this.redis.publish(this.channel, '*');
      this.lostInvalidation = false;
    } catch {
      // Still away: the next 'ready' tries again.
    }
  }

  private flush(): void {
    this.generation++;
    this.tokens.clear();
    this.accounts.clear();
  }

  /**
   * A message from the channel (any replica's, this one's too): an invalidation is applied; a
   * barrier, read after the invalidations its publisher sent before it, is confirmed to its publisher.
   */
  private receivedFromReplica(message: string): void {
    if (!message.startsWith(BARRIER)) return this.received(message);
    const m = /^n:([0-9a-f-]{36}):(\d{1,15})$/.exec(message);
    if (!m) return;
    // Unconfirmed (Redis away): the publisher's wait ends at its timeout.
    this.redis.publish(this.ackChannelOf(m[1] as string), `${m[2]}:${this.replicaId}`).catch(() => undefined);
  }

  /** Where a replica hears the confirmations of its barriers. */
  private ackChannelOf(replicaId: string): string {
    return `${this.channel}:acks:${replicaId}`;
  }

  /** A replica confirmed one of this replica's barriers: `<sequence>:<replica id>`. */
  private acked(message: string): void {
    const colon = message.indexOf(':');
    const w = this.waiting.get(Number(message.slice(0, colon)));
    if (!w) return; // a barrier whose change timed out or ended
    w.from.add(message.slice(colon + 1));
    if (w.from.size >= w.needed) w.done('confirmed');
  }

  private received(message: string): void {
    if (message === '*') return this.flush();
    this.generation++;
    if (message.startsWith('t:')) this.tokens.delete(message.slice(2));
    else if (message.startsWith('a:')) this.dropAccount(Number(message.slice(2)));
  }

  /** The account's settings, and every cached profile that lists it (its name and status show there). */
  private dropAccount(id: number): void {
    this.accounts.delete(id);
    const key = String(id);
    const listing: string[] = [];
    for (const [hash, entry] of this.tokens.entries()) {
      if (entry.principal.kind === 'user' && key in entry.principal.memberships) listing.push(hash);
    }
    for (const hash of listing) this.tokens.delete(hash); // not while iterating
  }

  /** `hash` is `hashToken(token)` when the caller has it already (`tokenHashOf`). */
  async resolve(token: string, hash = hashToken(token)): Promise<Principal | null> {
    if (this.live && this.tokens.has(hash)) {
      await afterPendingIo();
      const hit = this.live ? this.tokens.get(hash) : undefined;
      if (hit) return hit.principal;
    }
    const seen = this.generation;
    const wasLive = this.live;
    const principal = await loadPrincipal(this.db, token);
    if (principal && wasLive && this.live && seen === this.generation) this.tokens.set(hash, { principal });
    return principal;
  }

  /**
   * The profile answer of a resolved token, built by `load` on a miss and kept with the
   * token's principal (dropped with it: every change a profile shows invalidates its owner).
   */
  async profile<T>(token: string, load: () => Promise<T>): Promise<T> {
    const hash = hashToken(token);
    const entry = this.live ? this.tokens.get(hash) : undefined;
    if (entry?.profile !== undefined) return entry.profile as T;
    const seen = this.generation;
    const value = await load();
    if (entry && this.live && seen === this.generation && this.tokens.get(hash) === entry) entry.profile = value;
    return value;
  }

  async account(id: number): Promise<AccountInfo | null> {
    // No wait here (as resolve() has): its callers authenticated the request first, and that
    // waited for the pending I/O (a cache hit) or did I/O of its own (a load).
    if (this.live) {
      const hit = this.accounts.get(id);
      if (hit) return hit;
    }
    const seen = this.generation;
    const wasLive = this.live;
    const { rows } = await this.db.query<AccountInfo>('SELECT id, name, status, features FROM accounts WHERE id = $1', [id]);
    const account = rows[0] ?? null; // a missing account is not cached (it may be created any moment)
    if (account && wasLive && this.live && seen === this.generation) this.accounts.set(id, account);
    return account;
  }

  /**
   * Here at once, then on every replica through Redis, answered once each replica confirmed it
   * (a barrier behind it, see the class) or PRINCIPAL_ACK_TIMEOUT_MS passed; a failed publish is
   * made good by a flush later. Without a live subscription this replica cannot hear
   * confirmations: it publishes, and a PING behind the PUBLISH is all it waits for.
   */
  private async invalidate(message: string): Promise<void> {
    this.received(message);
    if (!this.live) {
      try {
        await this.redis.publish(this.channel, message);
        await this.redis.ping();
      } catch {
        this.lostInvalidation = true;
      }
      return;
    }
    const seq = ++this.barriers;
    let done!: (outcome: AckOutcome) => void;
    const outcome = new Promise<AckOutcome>((resolve) => (done = resolve));
    // Waiting before the PUBLISH: a confirmation can come in before PUBLISH's answer does.
    const w: AckWait = { from: new Set(), needed: Number.POSITIVE_INFINITY, done };
    this.waiting.set(seq, w);
    let timer: NodeJS.Timeout | undefined;
    try {
      // Both at once on one connection (Redis runs them in order): the barrier is read after the
      // invalidation by every subscriber, and a slow Redis costs the change one round trip, not two.
      const sent = this.redis.publish(this.channel, message);
      const barrier = this.redis.publish(this.channel, `${BARRIER}${this.replicaId}:${seq}`);
      barrier.catch(() => undefined); // awaited below unless the invalidation failed
      try {
        await sent;
      } catch {
        this.lostInvalidation = true; // every replica flushes once Redis is back
        return;
      }
      try {
        w.needed = await barrier;
      } catch {
        return; // the invalidation went; only its confirmations cannot be counted
      }
      if (w.from.size >= w.needed) return;
      timer = setTimeout(() => done('timeout'), this.ackTimeoutMs);
      timer.unref();
      if ((await outcome) === 'timeout' && Date.now() - this.lastUnconfirmedWarning > 10_000) {
        this.lastUnconfirmedWarning = Date.now();
        this.log?.warn({ subscribers: w.needed, confirmed: w.from.size }, 'a subscriber of the principal invalidations did not confirm one in time (a hung replica, one of a release before barriers, or another client subscribed to the channel)');
      }
    } finally {
      clearTimeout(timer);
      this.waiting.delete(seq);
    }
  }

  /** Ends every wait for confirmations: none can arrive (the subscription is down, or the store closed). */
  private endWaits(): void {
    for (const w of this.waiting.values()) w.done('ended');
  }

  async invalidateToken(token: string): Promise<void> {
    await this.invalidate(`t:${hashToken(token)}`);
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
    await this.invalidate(`a:${id}`);
  }

  /** Stops the subscription (the service's shutdown does it through its Redis client). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.live = false;
    this.endWaits();
    clearInterval(this.heartbeat);
    this.sub.disconnect();
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
