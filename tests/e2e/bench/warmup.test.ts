import http from 'node:http';
import type { AddressInfo } from 'node:net';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { warmUp } = require('../../../scripts/bench/load') as {
  warmUp: (
    base: string,
    o: { amount: number; capSeconds: number; connections: number; requests: Array<{ method: string; path: string }>; afterLoad?: () => Promise<void> },
  ) => Promise<{ requests?: number; seconds?: number; error?: string }>;
};

/** The benchmark's warm-up (scripts/bench/load.js): unmeasured load before a scenario, bounded by a count and a time. */
describe('benchmark warm-up', () => {
  let server: http.Server;
  let base = '';
  let seen = 0;
  let delayMs = 0;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      seen++;
      setTimeout(() => res.end('ok'), delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when the count comes first, then it sends that many requests, waits for afterLoad, and answers them', async () => {
    seen = 0;
    delayMs = 0;
    let after = 0;
    const r = await warmUp(base, {
      amount: 60,
      capSeconds: 60,
      connections: 4,
      requests: [{ method: 'GET', path: '/x' }],
      afterLoad: async () => {
        after = seen;
      },
    });
    expect(r.error).toBeUndefined();
    expect(r.requests).toBe(60);
    expect(seen).toBe(60);
    expect(after).toBe(60);
  });

  it('when the time comes first, then it stops there, short of the count', async () => {
    seen = 0;
    delayMs = 100;
    const r = await warmUp(base, { amount: 1_000_000, capSeconds: 2, connections: 2, requests: [{ method: 'GET', path: '/x' }] });
    expect(r.error).toBeUndefined();
    // Two connections, one answer each per 100 ms: some tens in two seconds, never the count.
    expect(r.requests).toBeGreaterThan(0);
    expect(r.requests).toBeLessThan(1000);
  });

  it('when autocannon refuses the options, then it answers the error and nothing fires later', async () => {
    const uncaught: Error[] = [];
    const onUncaught = (err: Error): void => {
      uncaught.push(err);
    };
    process.on('uncaughtException', onUncaught);
    try {
      const r = await warmUp(base, { amount: 0.5, capSeconds: 0.2, connections: 4, requests: [{ method: 'GET', path: '/x' }] });
      expect(r.error).toMatch(/amount/);
      // Past the time cap: a timer left behind would have tried to stop an instance that never ran.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
