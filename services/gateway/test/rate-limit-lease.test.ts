import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { createRedis, RateLimitedError, type Redis } from '@parley/shared';
import { infra, TcpGate, waitFor } from '@parley/testkit';
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
    // The first request one point (a client seen once costs no lease), then leases of 2, 4, 8, 16
    // and 32 points and two of 50 (10,000 / 100, capped at 50): 163 counted in 8 round trips, not
    // 120 increments.
    expect(await counter()).toBe(1 + 2 + 4 + 8 + 16 + 32 + 50 + 50);
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

  it('when a lease finds less room than its size, then it takes only the room, the key goes one point a request, and Redis never counts a lease past the limit', async () => {
    // 1,000 points, leases of 10; 995 already spent (by other replicas, say).
    const { handler, prefix, counter } = limit(1000);
    await redis.set(`${prefix}:client`, 995, 'EX', 60);
    const outcomes = [];
    for (let i = 0; i < 8; i++) outcomes.push(await call(handler));
    // One point (the first request), a lease of 2, then a lease of 4 that finds 2: five pass, counting down to 0.
    expect(outcomes.slice(0, 5)).toEqual([4, 3, 2, 1, 0].map((remaining) => ({ ok: true, remaining })));
    for (const r of outcomes.slice(5)) expect(r.ok).toBe(false);
    // The second lease took the 2 left, not 4; each refusal after it counts one, as without leases.
    expect(await counter()).toBe(1000 + 3);
  });

  it('when two replicas share a limit, then no more than the limit gets through, and at most a lease less', async () => {
    // 300 points, leases of 3.
    const prefix = `test:rl:${randomUUID()}`;
    const a = limit(300, { prefix });
    const b = limit(300, { prefix });
    let passed = 0;
    for (let i = 0; i < 400; i++) if ((await call((i % 2 === 0 ? a : b).handler)).ok) passed++;
    expect(passed).toBeLessThanOrEqual(300);
    expect(passed).toBeGreaterThanOrEqual(300 - 3);
  });

  it('when Redis cannot be reached, then requests still pass on the in-process limit, without waiting on each other', async () => {
    const away = createRedis('redis://127.0.0.1:1', undefined, { autoPipelining: true });
    try {
      const handler = rateLimit({ redis: away, prefix: `test:rl:${randomUUID()}`, points: 10_000, durationSeconds: 60, key: () => 'client', leaseMax: 50 });
      const outcomes = await Promise.all(Array.from({ length: 40 }, () => call(handler)));
      expect(outcomes.every((r) => r.ok)).toBe(true);
      // Counted by the in-process limiter: 40 points spent.
      expect(Math.min(...outcomes.map((r) => (r.ok ? r.remaining : Infinity)))).toBe(10_000 - 40);
    } finally {
      away.disconnect();
    }
  });

  it('when Redis hangs, then the concurrent requests of a key pass on the in-process limit after one timeout, and leases resume once it answers', async () => {
    const gate = await TcpGate.to(infra().redisUrl);
    const slow = createRedis(gate.url(infra().redisUrl), undefined, { autoPipelining: true });
    try {
      await new Promise((resolve) => slow.once('ready', resolve));
      const prefix = `test:rl:${randomUUID()}`;
      const handler = rateLimit({ redis: slow, prefix, points: 1_000_000, durationSeconds: 60, key: () => 'client', leaseMax: 50 });
      expect((await call(handler)).ok).toBe(true);
      gate.freeze();
      const t0 = Date.now();
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => call(handler)));
      const took = Date.now() - t0;
      expect(outcomes.every((r) => r.ok)).toBe(true);
      // One command timeout (1 s), then the in-process limit for all of them at once; a lease
      // at a time would have let them through one a second (20 s).
      expect(took).toBeLessThan(10_000);
      gate.thaw();
      await waitFor(async () => (await slow.ping()) === 'PONG', { what: 'redis answering again' });
      await new Promise((r) => setTimeout(r, 1100));
      const before = Number(await redis.get(`${prefix}:client`));
      for (let i = 0; i < 5; i++) expect((await call(handler)).ok).toBe(true);
      // Counted in Redis again, by leases.
      expect(Number(await redis.get(`${prefix}:client`))).toBeGreaterThan(before);
    } finally {
      gate.thaw();
      slow.disconnect();
      await gate.close();
    }
  });

  it('when the window ends, then the points a lease left are dropped and the new window starts afresh', async () => {
    const { handler, counter } = limit(500, { durationSeconds: 2 });
    for (let i = 0; i < 3; i++) expect((await call(handler)).ok).toBe(true);
    // One point, then a lease of 2.
    expect(await counter()).toBe(3);
    await new Promise((r) => setTimeout(r, 2200));
    const next = await call(handler);
    // A full window again: 500 less this request, not the old window's leased points.
    expect(next).toEqual({ ok: true, remaining: 499 });
    expect(await counter()).toBe(1);
  });
});
