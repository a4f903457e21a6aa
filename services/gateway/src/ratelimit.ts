import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError, type Redis } from '@parley/shared';
import { readToken } from './auth/middleware';

export interface LimitOptions {
  redis: Redis;
  prefix: string;
  points: number;
  durationSeconds: number;
  key: (req: Request) => string | null;
  /** Called for each refused request (metrics). */
  onRefused?: () => void;
}

/**
 * Fixed-window limit shared by every gateway replica through Redis; if Redis is away an
 * in-process limiter takes over rather than letting everything through or failing requests.
 */
export function rateLimit(opts: LimitOptions): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: opts.redis,
    keyPrefix: opts.prefix,
    points: opts.points,
    duration: opts.durationSeconds,
    // Redis away: straight to the in-process limiter, without a round trip that cannot succeed.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${opts.prefix}:mem`, points: opts.points, duration: opts.durationSeconds }),
  });
  return async (req, res, next) => {
    const key = opts.key(req);
    if (!key) return next();
    try {
      const r = await limiter.consume(key);
      res.setHeader('X-RateLimit-Limit', String(opts.points));
      res.setHeader('X-RateLimit-Remaining', String(r.remainingPoints));
      next();
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        opts.onRefused?.();
        return next(new RateLimitedError(err.msBeforeNext / 1000));
      }
      next(err);
    }
  };
}

export const byIp = (req: Request): string | null => req.ip ?? req.socket.remoteAddress ?? null;
/** Keyed by the token's hash: Redis never holds a credential in the clear. */
export const byToken = (req: Request): string | null => {
  const token = readToken(req);
  return token === null ? null : createHash('sha256').update(token).digest('hex');
};
