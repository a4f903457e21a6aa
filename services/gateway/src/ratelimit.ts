import type { Request, RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError, type Redis } from '@parley/shared';
import { tokenHashOf } from './auth/middleware';

/** What a limiter answered for one request: the points left in the window, or the refusal (RateLimiterRes) or error it threw. */
type Outcome = Promise<{ ok: true; remaining: number } | { ok: false; err: unknown }>;

export interface LimitOptions {
  redis: Redis;
  prefix: string;
  points: number;
  durationSeconds: number;
  key: (req: Request) => string | null;
  /** Called for each refused request (metrics). */
  onRefused?: () => void;
  /** Most points one lease takes from Redis (`leaseSize`); 1: none, a round trip a request. */
  leaseMax?: number;
  /**
   * Limits whose Redis round trip starts here, alongside this one's, for requests `when` says
   * they will reach (the token limit, checked later, after authentication): with an
   * auto-pipelining client both commands leave in one write. Each is still checked where it is
   * mounted, in its place.
   */
  alongside?: Array<{ limit: LimitHandler; when: (req: Request) => boolean }>;
}

/** A limit's middleware, which can also start its Redis round trip early for a request. */
export type LimitHandler = RequestHandler & { start(req: Request): void };

const STARTED = Symbol('parley.rateLimitStarted');
type Started = Request & { [STARTED]?: Map<LimitHandler, Outcome> };

/**
 * Points a gateway process takes from Redis at once for a key: 1% of the limit, at most
 * `leaseMax`, at least 1 (1: every request is its own round trip, as a small limit needs).
 */
export function leaseSize(points: number, leaseMax: number): number {
  return Math.max(1, Math.min(leaseMax, Math.floor(points / 100)));
}

/** A key's points taken from Redis and not yet spent by this process, until its window ends. */
interface Lease {
  left: number;
  /** What Redis had left for the key after the lease. */
  remaining: number;
  /** When the window the points belong to ends (Date.now() ms). */
  endsAt: number;
  /** The key's first request in this process's window: it goes one point (no lease for a one-off client). */
  fresh: boolean;
  /** One point a request until endsAt: the limit is near (a lease found less room than its size). */
  exact: boolean;
  /** Redis failed a lease: the in-process limiter answers until endsAt, without a round trip. */
  failed: boolean;
  /** Points the next lease asks for: 2 at first, doubling to the lease size (a short burst never costs a whole lease). */
  next: number;
  /** The lease being taken; requests that find no points wait for it. */
  pending: Promise<unknown> | null;
}

/**
 * A lease in one step: the window's counter created if it is not there (as the limiter's own
 * script does), then as many of the wanted points as there is room for under the limit, never
 * more. KEYS[1] the counter; ARGV window seconds, wanted points, limit. Answers the points
 * granted, the counter after, and the window's milliseconds left.
 */
const LEASE_SCRIPT = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local used = tonumber(redis.call('get', KEYS[1])) or 0
local grant = math.min(tonumber(ARGV[2]), math.max(tonumber(ARGV[3]) - used, 0))
if grant > 0 then used = redis.call('incrby', KEYS[1], grant) end
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[1])
  ttl = 1000 * tonumber(ARGV[1])
end
return {grant, used, ttl}`;
const LEASE_COMMAND = 'parleyRateLimitLease';
/** After Redis failed a lease, the in-process limiter answers the key's requests this long (from the failure). */
const AFTER_FAILURE_MS = 1000;

type LeaseClient = Redis & { [LEASE_COMMAND](key: string, windowSeconds: number, wanted: number, limit: number): Promise<[number, number, number]> };

/**
 * Fixed-window limit shared by every gateway replica through Redis; if Redis is away an
 * in-process limiter takes over rather than letting everything through or failing requests.
 *
 * A process leases points: it takes them from Redis in one step (LEASE_SCRIPT) and spends them
 * on the key's requests locally, so a client within its limit costs Redis one round trip in
 * `leaseSize` requests instead of one a request (the limit's Lua script was a tenth of a proxied
 * read's CPU, docs/architecture.md, Gateway). A key's first request in a window goes one point
 * (a client seen once never costs a lease); its leases then ask for 2, 4, 8... points up to
 * `leaseSize`, so a short burst never leaves a whole lease unspent. Never more than the limit
 * gets through: a lease is counted in Redis before its points are spent, and is granted only the
 * room under the limit; a lease that finds less room than it asked for makes the key go one
 * point a request (exact) until its window ends. What leases leave unspent when the window ends
 * is lost, so with several replicas a client spread over them may be refused up to
 * (replicas - 1) x leaseSize points early; the remaining-points header is exact for one replica.
 * If Redis fails a lease (down, or hung past the command timeout), the in-process limiter
 * answers the key's requests for a second (AFTER_FAILURE_MS) without a round trip, then a lease
 * is tried again.
 */
export function rateLimit(opts: LimitOptions): LimitHandler {
  const memory = new RateLimiterMemory({ keyPrefix: `${opts.prefix}:mem`, points: opts.points, duration: opts.durationSeconds });
  const limiter = new RateLimiterRedis({
    storeClient: opts.redis,
    keyPrefix: opts.prefix,
    points: opts.points,
    duration: opts.durationSeconds,
    // Redis away: straight to the in-process limiter, without a round trip that cannot succeed.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
  const size = leaseSize(opts.points, opts.leaseMax ?? 1);
  /** One point, one round trip (no lease): the refusal or error as the outcome. */
  const consumeOne = (key: string, store: RateLimiterRedis | RateLimiterMemory = limiter): Outcome =>
    store.consume(key).then(
      (res) => ({ ok: true as const, remaining: res.remainingPoints }),
      (err: unknown) => ({ ok: false as const, err }),
    );
  if (size > 1 && !(LEASE_COMMAND in opts.redis)) opts.redis.defineCommand(LEASE_COMMAND, { numberOfKeys: 1, lua: LEASE_SCRIPT });
  const redis = opts.redis as LeaseClient;
  // Bounded: a key's lease lives until its window ends, and the least recently used go first.
  const leases = new LRUCache<string, Lease>({ max: 10_000 });

  /** Takes a lease for the key: the points it asks for, or the room that was left (then exact); if Redis fails, the in-process limiter for a while. */
  const takeLease = async (key: string, lease: Lease): Promise<void> => {
    // The window's end is counted from before the call: its points are never spent after Redis started the next one.
    const t0 = Date.now();
    try {
      if (redis.status !== 'ready') throw new Error('redis is not ready');
      const wanted = Math.min(size, lease.next);
      const [grant, used, msLeft] = await redis[LEASE_COMMAND](limiter.getKey(key), opts.durationSeconds, wanted, opts.points);
      Object.assign(lease, {
        left: grant,
        remaining: Math.max(0, opts.points - used),
        // Less than a millisecond left (0): the points end with the window, unspent.
        endsAt: t0 + Math.max(0, msLeft),
        exact: grant < wanted,
        next: wanted * 2,
      });
    } catch {
      // Counted from the failure, not the call: a hung Redis answers only at the command timeout.
      Object.assign(lease, { left: 0, remaining: 0, endsAt: Date.now() + AFTER_FAILURE_MS, failed: true });
    }
  };

  const consume = async (key: string): Outcome => {
    if (size === 1) return consumeOne(key);
    for (;;) {
      let lease = leases.get(key);
      if (!lease || lease.endsAt <= Date.now()) {
        lease = { left: 0, remaining: 0, endsAt: Date.now() + opts.durationSeconds * 1000, fresh: true, exact: false, failed: false, next: 2, pending: null };
        leases.set(key, lease);
      }
      if (lease.left > 0) {
        lease.left--;
        return { ok: true, remaining: lease.remaining + lease.left };
      }
      if (lease.failed) return consumeOne(key, memory);
      if (lease.fresh || lease.exact) {
        lease.fresh = false;
        return consumeOne(key);
      }
      if (!lease.pending) {
        const taking = lease;
        taking.pending = takeLease(key, taking).finally(() => {
          taking.pending = null;
        });
      }
      await lease.pending;
    }
  };
  const handler = (async (req, res, next) => {
    for (const other of opts.alongside ?? []) if (other.when(req)) other.limit.start(req);
    // Started alongside another limit: its key was there (and is the same: the request's headers have not changed).
    const started = (req as Started)[STARTED]?.get(handler);
    const key = started ? null : opts.key(req);
    if (!started && !key) return next();
    const outcome = await (started ?? consume(key as string));
    if (outcome.ok) {
      res.setHeader('X-RateLimit-Limit', String(opts.points));
      res.setHeader('X-RateLimit-Remaining', String(outcome.remaining));
      return next();
    }
    if (outcome.err instanceof RateLimiterRes) {
      opts.onRefused?.();
      return next(new RateLimitedError(outcome.err.msBeforeNext / 1000));
    }
    next(outcome.err);
  }) as LimitHandler;
  handler.start = (req) => {
    const key = opts.key(req);
    if (!key) return;
    const r = req as Started;
    (r[STARTED] ??= new Map()).set(handler, consume(key));
  };
  return handler;
}

/**
 * Paths whose routers check the per-token limit (app.ts mounts it on these prefixes; express
 * matches them case-insensitively). A path matched here that is then not checked only spends
 * one of the token's points; one missed is consumed where it is checked, as before.
 */
export const TOKEN_LIMITED_PATH = /^\/(platform\/api\/v1|api\/v1\/profile|api\/v[12]\/accounts\/[^/]+)(\/|$)/i;

export const byIp = (req: Request): string | null => req.ip ?? req.socket.remoteAddress ?? null;
/** Keyed by the token's hash: Redis never holds a credential in the clear. */
export const byToken = (req: Request): string | null => tokenHashOf(req);

