import { Redis } from 'ioredis';

export type { Redis };

/** A Redis client that fails commands fast while the server is away instead of queueing forever. */
export function createRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, connectTimeout: 3000 });
  redis.on('error', () => undefined);
  return redis;
}
