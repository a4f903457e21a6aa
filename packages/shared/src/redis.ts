import { Redis } from 'ioredis';
import type { Logger } from './logger';

export type { Redis };

/** How long one Redis command may take before it fails (a hung server, not a stopped one). */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * A Redis client for a cache and a rate-limit store, never a dependency a request waits on.
 * While the server is away every command fails at once (no offline queue, at most one retry
 * of a command cut off by a disconnect, a command timeout for a server that hangs), so callers
 * fall back (to Postgres, to an in-process limiter) at normal speed. It reconnects in the
 * background for ever, with a back-off capped at 2 s. With a logger, it says once that Redis
 * is unavailable and once that it is back, not per command or per reconnect attempt.
 */
export interface RedisClientOptions {
  /**
   * Commands issued in one tick leave in one write (ioredis `enableAutoPipelining`; one batch in
   * flight at a time, the next one gathering meanwhile). For request paths that send several
   * commands at once; not for blocking commands.
   */
  autoPipelining?: boolean;
}

export function createRedis(url: string, log?: Logger, opts: RedisClientOptions = {}): Redis {
  const redis = new Redis(url, {
    enableAutoPipelining: opts.autoPipelining ?? false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    lazyConnect: false,
  });
  let state: 'starting' | 'up' | 'down' = 'starting';
  let lastError = '';
  redis.on('error', (err: Error) => {
    lastError = err.message;
  });
  const down = () => {
    if (state === 'down') return;
    state = 'down';
    log?.warn({ err: lastError || undefined }, 'redis unavailable; serving without it (caches from Postgres, in-process rate limits)');
  };
  // Emitted only when it will try again: a deliberate disconnect() (shutdown) says nothing.
  redis.on('reconnecting', down);
  redis.on('ready', () => {
    if (state === 'down') log?.info('redis available again');
    state = 'up';
  });
  return redis;
}
