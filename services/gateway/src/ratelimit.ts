import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError, type Redis } from '@parley/shared';
import { tokenHashOf } from './auth/middleware';

/** What a limiter answered for one request: its result, or the refusal (RateLimiterRes) or error it threw. */
type Outcome = Promise<{ ok: true; res: RateLimiterRes } | { ok: false; err: unknown }>;

export interface LimitOptions {
  redis: Redis;
  prefix: string;
  points: number;
  durationSeconds: number;
  key: (req: Request) => string | null;
  /** Called for each refused request (metrics). */
  onRefused?: () => void;
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
 * Fixed-window limit shared by every gateway replica through Redis; if Redis is away an
 * in-process limiter takes over rather than letting everything through or failing requests.
 */
export function rateLimit(opts: LimitOptions): LimitHandler {
  const limiter = new RateLimiterRedis({
    storeClient: opts.redis,
    keyPrefix: opts.prefix,
    points: opts.points,
    duration: opts.durationSeconds,
    // Redis away: straight to the in-process limiter, without a round trip that cannot succeed.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${opts.prefix}:mem`, points: opts.points, duration: opts.durationSeconds }),
  });
  const consume = (key: string): Outcome =>
    limiter.consume(key).then(
      (res) => ({ ok: true as const, res }),
      (err: unknown) => ({ ok: false as const, err }),
    );
  const handler = (async (req, res, next) => {
    for (const other of opts.alongside ?? []) if (other.when(req)) other.limit.start(req);
    // Started alongside another limit: its key was there (and is the same: the request's headers have not changed).
    const started = (req as Started)[STARTED]?.get(handler);
    const key = started ? null : opts.key(req);
    if (!started && !key) return next();
    const outcome = await (started ?? consume(key as string));
    if (outcome.ok) {
      res.setHeader('X-RateLimit-Limit', String(opts.points));
      res.setHeader('X-RateLimit-Remaining', String(outcome.res.remainingPoints));
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

