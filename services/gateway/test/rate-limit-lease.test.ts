import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { createRedis, RateLimitedError, type Redis } from '@parley/shared';
import { infra } from '@parley/testkit';
import { leaseSize, rateLimit, type LimitHandler } from '../src/ratelimit';

/**
 * The gateway's rate limit leases points from Redis (src/ratelimit.ts): against the real Redis,
 * each limit with a prefix of its own.
 */
describe('rate limit leases', () => {
  let redis: Redis;
  beforeAll(async () => {
    // As the gateway's: commands issued together leave in one write.
    redis = createRedis(infra().redisUrl, undefined, { autoPipelining: true });
    await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    await redis.quit();
  });

  const limit = (points: number, opts: { leaseMax?: number; durationSeconds?: number; prefix?: string } = {}) => {
    const prefix = opts.prefix ?? `test:rl:${randomUUID()}`;
    const handler = rateLimit({ redis, prefix, points, durationSeconds: opts.durationSeconds ?? 60, key: () => 'client', leaseMax: opts.leaseMax ?? 50 });
    return { handler, prefix, counter: async () => Number(await redis.get(`${prefix}:client`)) };
  };
  /** One request through the limit: its remaining-points header, or the refusal. */
  const call = (handler: LimitHandler) =>
    new Promise<{ ok: true; remaining: number } | { ok: false; retryAfter: number }>((resolve, reject) => {
      const headers = new Map<string, string>();
      const res = { setHeader: (k: string, v: string) => headers.set(k, v) } as unknown as Response;
      void handler({ headers: {} } as Request, res, (err?: unknown) => {
        if (err === undefined) resolve({ ok: true, remaining: Number(headers.get('X-RateLimit-Remaining')) });
        else if (err instanceof RateLimitedError) resolve({ ok: false, retryAfter: Number(err.headers['Retry-After']) });
        else reject(err);
      });
    });

  it('when the limit is large, then a lease is 1% of it, at most the cap; a small limit goes one point a request', () => {
    expect(leaseSize(3000, 50)).toBe(30);
    expect(leaseSize(1_000_000, 50)).toBe(50);
    expect(leaseSize(3000, 1)).toBe(1);
    expect(leaseSize(150, 50)).toBe(1);
    expect(leaseSize(3, 50)).toBe(1);
  });

  it('when a client stays within its limit, then Redis counts a lease at a time and the remaining points still count down one a request', async () => {
    const { handler, counter } = limit(10_000);
    const remaining: number[] = [];
    for (let i = 0; i < 120; i++) {
      const r = await call(handler);
      if (!r.ok) throw new Error(`request ${i} refused`);
      remaining.push(r.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => 10_000 - 1 - i));
    // Three leases of 50 points (10,000 / 100, capped at 50), not 120 increments.
    expect(await counter()).toBe(150);
  });

  it('when leases are off (cap 1), then every request is one increment in Redis', async () => {
    const { handler, counter } = limit(10_000, { leaseMax: 1 });
    for (let i = 0; i < 7; i++) expect((await call(handler)).ok).toBe(true);
    expect(await counter()).toBe(7);
  });

  it('when concurrent requests cross the limit, then exactly the limit gets through and the rest are refused with a retry time', async () => {
    // 251 points, leases of 2 (the last lease finds room for one): 16 callers at once, 320 requests.
    const { handler } = limit(251);
    const outcomes = await Promise.all(Array.from({ length: 16 }, async () => {
      const mine = [];
      for (let i = 0; i < 20; i++) mine.push(await call(handler));
      return mine;
    }));
    const all = outcomes.flat();
    expect(all.filter((r) => r.ok)).toHaveLength(251);
    const refused = all.filter((r): r is { ok: false; retryAfter: number } => !r.ok);
    expect(refused).toHaveLength(69);
    for (const r of refused) expect(r.retryAfter).toBeGreaterThan(0);
  });

  it('when a lease is refused near the limit, then what Redis counted beyond the limit is given back and no more than the limit gets through', async () => {
    // 300 points, leases of 3: two replicas (one Redis counter) leave 1 point when one asks for 3.
    const prefix = `test:rl:${randomUUID()}`;
    const a = limit(300, { prefix });
    const b = limit(300, { prefix });
    let passed = 0;
    for (let i = 0; i < 400; i++) if ((await call((i % 2 === 0 ? a : b).handler)).ok) passed++;
    // Never more than the limit; at most one lease left unspent on the other replica.
    expect(passed).toBeLessThanOrEqual(300);
    expect(passed).toBeGreaterThanOrEqual(300 - 3);
    // Each replica's refused lease was given back down to the room it kept; the refusals after
    // that count one point each, as without leases.
    expect(await a.counter()).toBeLessThanOrEqual(300 + (400 - passed));
  });

  it('when the window ends, then the points a lease left are dropped and the new window leases afresh', async () => {
    const { handler, counter } = limit(500, { durationSeconds: 1 });
    for (let i = 0; i < 3; i++) expect((await call(handler)).ok).toBe(true);
    expect(await counter()).toBe(5);
    await new Promise((r) => setTimeout(r, 1200));
    const next = await call(handler);
    // A full window again: 500 less this request, not the old window's 2 leased points.
    expect(next).toEqual({ ok: true, remaining: 499 });
    expect(await counter()).toBe(5);
  });
});
