import { randomBytes, randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '@parley/shared';
import { infra } from '@parley/testkit';
import { compareIds, isAfter, StreamLog, type StreamEntry } from '../src/streams/log';

/** The stream log against a real Redis: appends once per event, trims, and knows when a resume has a gap. */
describe('StreamLog (Redis Streams)', () => {
  let redis: Redis;
  const ns = `t${randomBytes(4).toString('hex')}.`;
  const event = (n: number) => ({ kind: 'event' as const, event: 'message.created', data: { n } });
  const genesis = { kind: 'control', action: 'genesis' };
  /** Entries without the stream's genesis entry. */
  const events = (entries: StreamEntry[]) => entries.filter((e) => e.body.kind === 'event');

  beforeAll(async () => {
    redis = createRedis(infra().redisUrl);
    // No offline queue: commands sent before the connection is up fail.
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${ns}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('when an event is appended twice (a redelivery), then its entries are in the log once', async () => {
    const log = new StreamLog({ redis, namespace: ns, maxEvents: 1000, retentionMs: 3_600_000 });
    const a = log.accountStream(1);
    const c = log.contactStream(1, 7);
    const id = randomUUID();
    expect(await log.append(id, [{ stream: a, body: event(1) }, { stream: c, body: event(1) }])).toBe(true);
    expect(await log.append(id, [{ stream: a, body: event(1) }, { stream: c, body: event(1) }])).toBe(false);
    expect(events(await log.after(a, '0-0', 10))).toHaveLength(1);
    // A new stream starts with its genesis entry.
    expect(await log.after(c, '0-0', 10)).toEqual([{ id: expect.stringMatching(/^\d+-\d+$/), body: genesis }, { id: expect.stringMatching(/^\d+-\d+$/), body: event(1) }]);
  });

  it('when entries are read after an id, then they come oldest first, and ids increase', async () => {
    const log = new StreamLog({ redis, namespace: ns, maxEvents: 1000, retentionMs: 3_600_000 });
    const s = log.accountStream(2);
    for (let n = 0; n < 5; n++) await log.append(randomUUID(), [{ stream: s, body: event(n) }]);
    const all = events(await log.after(s, '0-0', 100));
    expect(all.map((e) => (e.body as unknown as { data: { n: number } }).data.n)).toEqual([0, 1, 2, 3, 4]);
    for (let i = 1; i < all.length; i++) expect(compareIds(all[i]!.id, all[i - 1]!.id)).toBe(1);
    expect((await log.after(s, all[2]!.id, 100)).map((e) => e.id)).toEqual([all[3]!.id, all[4]!.id]);
    expect(await log.lastId(s)).toBe(all[4]!.id);
    expect(await log.resumeFrom(s, all[0]!.id)).toEqual({ kind: 'resume' });
    expect(await log.resumeFrom(s, '0-0')).toEqual({ kind: 'resume' });
  });

  it('when the stream is lost (Redis restarted without its data), then an id from before is resync.required and the whole new stream follows from its genesis entry (begun at once if not written yet)', async () => {
    const log = new StreamLog({ redis, namespace: ns, maxEvents: 1000, retentionMs: 3_600_000 });
    const s = log.accountStream(4);
    for (let n = 0; n < 3; n++) await log.append(randomUUID(), [{ stream: s, body: event(n) }]);
    const old = events(await log.after(s, '0-0', 100));
    await redis.del(s);
    // A client with nothing asks nothing of a missing stream.
    expect(await log.resumeFrom(s, '0-0')).toEqual({ kind: 'resume' });
    expect(await redis.exists(s)).toBe(0);
    // A restart takes longer than a millisecond: new ids (time-based) come after the lost ones. Without
    // this pause the new stream could begin in the same millisecond as the last lost entry.
    await new Promise((r) => setTimeout(r, 5));
    // A client of the lost stream begins the new one: its genesis entry, after the client's id.
    const from = await log.resumeFrom(s, old[2]!.id);
    const begun = await log.after(s, '0-0', 100);
    expect(begun.map((e) => e.body)).toEqual([genesis]);
    expect(from).toEqual({ kind: 'restarted', at: begun[0]!.id });
    expect(compareIds(begun[0]!.id, old[2]!.id)).toBe(1);
    // The fan-out's next append adds no second genesis entry.
    await log.append(randomUUID(), [{ stream: s, body: event(3) }]);
    const now = await log.after(s, '0-0', 100);
    expect(now.map((e) => e.body)).toEqual([genesis, event(3)]);
    expect(await log.resumeFrom(s, old[0]!.id)).toEqual({ kind: 'restarted', at: now[0]!.id });
    expect(await log.resumeFrom(s, old[2]!.id)).toEqual({ kind: 'restarted', at: now[0]!.id });
    expect(await log.resumeFrom(s, now[0]!.id)).toEqual({ kind: 'resume' });
    expect(await log.resumeFrom(s, '0-0')).toEqual({ kind: 'resume' });
    // Once the new stream is trimmed, what came after the old id may be gone from it too: from now.
    await redis.xtrim(s, 'MAXLEN', 1);
    expect(await log.resumeFrom(s, old[2]!.id)).toEqual({ kind: 'gone' });
  });

  it('when the stream was trimmed past an id, or the id is ahead of the stream, then resume is impossible (resync.required)', async () => {
    const log = new StreamLog({ redis, namespace: ns, maxEvents: 10, retentionMs: 3_600_000 });
    const s = log.accountStream(3);
    await log.append(randomUUID(), [{ stream: s, body: event(0) }]);
    const first = await log.lastId(s);
    // MAXLEN ~ trims whole radix-tree nodes (100 entries by default): write past a few of them.
    const pipeline = redis.pipeline();
    for (let n = 1; n < 400; n++) pipeline.xadd(s, '*', 'e', JSON.stringify(event(n)));
    await pipeline.exec();
    await log.append(randomUUID(), [{ stream: s, body: event(400) }]);
    expect(await log.resumeFrom(s, first)).toEqual({ kind: 'gone' });
    expect(await log.resumeFrom(s, '0-0')).toEqual({ kind: 'gone' });
    expect(await log.resumeFrom(s, await log.lastId(s))).toEqual({ kind: 'resume' });
    expect(await log.resumeFrom(s, '99999999999999-0')).toEqual({ kind: 'gone' });
    expect(await log.resumeFrom(log.accountStream(999), '0-0')).toEqual({ kind: 'resume' });
  });

  it('when ids are compared, then the order is the numeric one, leading zeros included', () => {
    const ids = ['0-0', '0-1', '1-0', '9-9', '10-0', '10-2', '10-10', '1700000000000-0', '1700000000000-7', '1700000000001-0', '99999999999999-0'];
    for (const [i, a] of ids.entries()) {
      for (const [j, b] of ids.entries()) expect(compareIds(a, b)).toBe(Math.sign(i - j));
    }
    expect(compareIds('0010-0', '9-0')).toBe(1);
    expect(compareIds('10-01', '10-1')).toBe(0);
    expect(compareIds('10-002', '10-10')).toBe(-1);
  });

  it('when subscribers with different cursors ask whether an entry comes after theirs, then each gets the answer for its own cursor, the kept one included', () => {
    const e: StreamEntry = { id: '1700000000000-2', body: { kind: 'event', event: 'x', data: {} } };
    const asked = ['1700000000000-1', '1700000000000-1', '1700000000000-3', '1700000000000-2', '999-0', '1700000000000-10', '1700000000000-1'];
    expect(asked.map((cursor) => isAfter(e, cursor))).toEqual([true, true, false, false, true, false, true]);
  });
});
