import { randomBytes } from 'node:crypto';
import { createLogger, createRedis, type Redis } from '@parley/shared';
import { infra, waitFor } from '@parley/testkit';
import { StreamHub, type StreamListener } from '../src/streams/hub';
import { compareIds, type StreamEntry } from '../src/streams/log';

/** What a listener got: each push (one read of the hub) with when it came. */
class Recorder implements StreamListener {
  readonly pushes: Array<{ at: number; ids: string[] }> = [];
  push(_stream: string, entries: StreamEntry[]): void {
    this.pushes.push({ at: Date.now(), ids: entries.map((e) => e.id) });
  }
  get ids(): string[] {
    return this.pushes.flatMap((p) => p.ids);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The hub's reads against a real Redis, with REALTIME_FLUSH_MS coalescing: entries appended within
 * a window come in one read (one write per socket), none lost, duplicated or out of order; a lone
 * entry is not held, and a backlog is read without waiting.
 */
describe('StreamHub (one reader per replica, reads coalesced per flush window)', () => {
  let redis: Redis;
  const ns = `t${randomBytes(4).toString('hex')}.`;
  const log = createLogger('realtime-test', 'silent');
  const hubs: StreamHub[] = [];
  const hubOf = (flushMs: number) => {
    const hub = new StreamHub(redis, log, flushMs);
    hubs.push(hub);
    return hub;
  };
  const entry = (n: number) => JSON.stringify({ kind: 'event', event: 'message.created', data: { n } });
  const all = async (stream: string) => ((await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>).map(([id]) => id);

  beforeAll(async () => {
    redis = createRedis(infra().redisUrl);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    await Promise.all(hubs.map((h) => h.stop()));
    const keys = await redis.keys(`${ns}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('when entries come in a burst, then each read is a flush window apart and carries several, and every listener gets every entry once, in stream order', async () => {
    const flushMs = 100;
    const hub = hubOf(flushMs);
    const stream = `${ns}rt:account:1`;
    const a = new Recorder();
    const b = new Recorder();
    hub.add(stream, a, '0-0');
    hub.add(stream, b, '0-0');
    // 30 rounds of 5 entries, a round every 10 ms or so: ten times the hub's rate of reads. The
    // first is there before the hub starts, and the others start once the hub has read it (its
    // reader's connection is up, and its next read, a window later, finds entries: it never blocks
    // while the rounds come). A read that blocked is followed at once by another (the hub's drain).
    const rounds = 30;
    const roundAt: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const p = redis.pipeline();
      for (let k = 0; k < 5; k++) p.xadd(stream, '*', 'e', entry(r * 5 + k));
      await p.exec();
      roundAt.push(Date.now());
      if (r === 0) {
        hub.start();
        await waitFor(() => a.ids.length >= 5, { timeoutMs: 10_000, intervalMs: 2, what: 'the first round read' });
      }
      await sleep(10);
    }
    const written = await all(stream);
    expect(written).toHaveLength(rounds * 5);
    await waitFor(() => a.ids.length >= written.length && b.ids.length >= written.length, { timeoutMs: 10_000, intervalMs: 10, what: 'every entry read' });
    await sleep(2 * flushMs);

    for (const r of [a, b]) {
      // None lost, none twice, in the stream's order (ids increasing across reads too).
      expect(r.ids).toEqual(written);
      for (let i = 1; i < r.ids.length; i++) expect(compareIds(r.ids[i]!, r.ids[i - 1]!)).toBe(1);
    }
    // Both listeners got the same reads.
    expect(b.pushes.map((p) => p.ids)).toEqual(a.pushes.map((p) => p.ids));
    // Coalesced: reads a window apart (a timer may fire a millisecond early), so fewer reads than
    // rounds. Only where this machine stalled the rounds for a good part of a window (the stream
    // went quiet, the hub blocked, and the next round woke it) may one read follow another at once.
    const stalls = roundAt.filter((t, i) => i > 1 && t - roundAt[i - 1]! >= flushMs / 2).length;
    const quick = a.pushes.filter((p, i) => i > 0 && p.at - a.pushes[i - 1]!.at < flushMs / 2).length;
    expect(quick).toBeLessThanOrEqual(stalls);
    expect(a.pushes.length).toBeGreaterThan(2);
    expect(a.pushes.length).toBeLessThan(rounds);
    expect(Math.max(...a.pushes.map((p) => p.ids.length))).toBeGreaterThan(5);
  });

  it('when an entry comes after a quiet window, then it is read at once; one that follows it within the window waits for the window, and no longer', async () => {
    // The bounds below are fractions of the window (at once: under half of it; the window and no
    // longer: under one and a half): a window of 2 s leaves a shared, slow machine a whole second
    // of latency where 1 s left it half a second, and still tells a held entry from one read at once.
    const flushMs = 2000;
    const hub = hubOf(flushMs);
    const stream = `${ns}rt:account:2`;
    const r = new Recorder();
    hub.add(stream, r, '0-0');
    hub.start();
    await redis.xadd(stream, '*', 'e', entry(0));
    await waitFor(() => r.pushes.length === 1, { timeoutMs: 5000, intervalMs: 5, what: 'the first entry' });
    await sleep(flushMs + 100);

    const lone = Date.now();
    const loneId = await redis.xadd(stream, '*', 'e', entry(1));
    await waitFor(() => r.pushes.length === 2, { timeoutMs: 5000, intervalMs: 5, what: 'the lone entry' });
    // Not held for the window (generous: the machine is shared).
    expect(r.pushes[1]!.at - lone).toBeLessThan(flushMs / 2);
    expect(r.pushes[1]!.ids).toEqual([loneId]);

    // After a read that blocked, the hub reads once more at once (what other streams got with it):
    // the next entry comes after that read, as it would a moment later in a live system.
    await sleep(100);
    const nextId = await redis.xadd(stream, '*', 'e', entry(2));
    await waitFor(() => r.pushes.length === 3, { timeoutMs: 5000, intervalMs: 5, what: 'the entry after it' });
    const waited = r.pushes[2]!.at - r.pushes[1]!.at;
    expect(waited).toBeGreaterThanOrEqual(flushMs - 2);
    expect(waited).toBeLessThan(flushMs + flushMs / 2);
    expect(r.pushes[2]!.ids).toEqual([nextId]);
  });

  it('when one append writes two followed streams (an agent\'s and a contact\'s), then both entries are read together, not the second a flush window later', async () => {
    // Redis 7.0 answers a blocked XREAD with the stream that woke it; the hub reads the rest at once.
    const flushMs = 60_000;
    const hub = hubOf(flushMs);
    const agent = `${ns}rt:account:4`;
    const contact = `${ns}rt:contact:4:1`;
    const a = new Recorder();
    const c = new Recorder();
    // Followed from their newest entries, as subscriptions join.
    hub.add(agent, a, (await redis.xadd(agent, '*', 'e', entry(-1))) as string);
    hub.add(contact, c, (await redis.xadd(contact, '*', 'e', entry(-1))) as string);
    hub.start();
    // Its read blocked on both (the reader's connection opens first: a read before fails and waits 500 ms).
    await sleep(1500);
    const ids = (await redis.eval(
      "return {redis.call('XADD', KEYS[1], '*', 'e', ARGV[1]), redis.call('XADD', KEYS[2], '*', 'e', ARGV[1])}",
      2, agent, contact, entry(0),
    )) as [string, string];
    await waitFor(() => a.ids.length === 1 && c.ids.length === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'both entries (without the read at once, the second waits the 60 s window)' });
    expect([a.ids, c.ids]).toEqual([[ids[0]], [ids[1]]]);
  });

  it('when a read brings as many entries as it may (a backlog), then the next read follows without waiting for the window', async () => {
    // The elapsed time below includes the reader's connection (a read before it is up waits 500 ms)
    // and three reads of 1000 entries: a long window keeps that from nearing the bound on a slow
    // machine, while a single window waited between two reads still fails it.
    const flushMs = 10_000;
    const hub = hubOf(flushMs);
    const stream = `${ns}rt:account:3`;
    const p = redis.pipeline();
    for (let n = 0; n < 2500; n++) p.xadd(stream, '*', 'e', entry(n));
    await p.exec();
    const written = await all(stream);
    const r = new Recorder();
    hub.add(stream, r, '0-0');
    const t = Date.now();
    hub.start();
    await waitFor(() => r.ids.length >= written.length, { timeoutMs: 3 * flushMs, intervalMs: 5, what: 'the backlog' });
    // Three reads (1000, 1000, 500) without a window between them.
    expect(r.pushes.map((x) => x.ids.length)).toEqual([1000, 1000, 500]);
    expect(Date.now() - t).toBeLessThan(flushMs);
    expect(r.ids).toEqual(written);
  });
});
