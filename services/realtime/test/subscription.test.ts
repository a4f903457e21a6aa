import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger, createRedis, type Redis } from '@parley/shared';
import { infra, waitFor } from '@parley/testkit';
import type { Grant } from '../src/auth/grants';
import { Subscription } from '../src/cable/subscription';
import { StreamHub, type StreamListener } from '../src/streams/hub';
import { StreamLog, type StreamEntry } from '../src/streams/log';

/** A listener that was following the stream before (another socket's subscription on this replica). */
class Recorder implements StreamListener {
  readonly ids: string[] = [];
  push(_stream: string, entries: StreamEntry[]): void {
    this.ids.push(...entries.map((e) => e.id));
  }
}

/**
 * A subscription's start against a real Redis and hub, with the interleavings of a live system
 * forced: an entry appended between the grant check (the cursor) and the start, one appended
 * while the replay read is in flight and read by the hub (for a listener already following the
 * stream) before the replay returns, and a live one after. Each must reach the subscriber once,
 * in stream order: no window between the replay and the live reads.
 */
describe('Subscription start (replay, then live, with no gap)', () => {
  let redis: Redis;
  const ns = `t${randomBytes(4).toString('hex')}.`;
  const logger = createLogger('realtime-test', 'silent');
  let hub: StreamHub;
  const grant: Grant = { kind: 'user', accountId: 1, userId: 1, role: 'administrator', inboxIds: [], tokenSha: 'x' };

  beforeAll(async () => {
    redis = createRedis(infra().redisUrl);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    hub = new StreamHub(redis, logger, 0);
    hub.start();
  });
  afterAll(async () => {
    await hub.stop();
    const keys = await redis.keys(`${ns}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('when entries are appended after the check, during the replay read (and read live for another listener before it returns) and after it, then the subscriber gets each once, in stream order', async () => {
    const opts = { redis, namespace: ns, maxEvents: 1000, retentionMs: 3_600_000 };
    const log = new StreamLog(opts);
    const stream = log.accountStream(1);
    const append = async (n: number): Promise<string> => {
      await log.append(randomUUID(), [{ stream, body: { kind: 'event', event: 'message.created', data: { n } } }]);
      return log.lastId(stream);
    };
    await append(0);
    // Another subscription of this replica already follows the stream: the hub has a tail for it.
    const other = new Recorder();
    hub.add(stream, other, await log.lastId(stream));

    // The cursor is the stream's newest id when the grant was checked (CableServer.open).
    const grantedAt = await log.lastId(stream);
    const afterCheck = await append(1);
    // The hub is already past it (read for the other listener): only the replay can bring it.
    await waitFor(() => other.ids.includes(afterCheck), { timeoutMs: 5_000, intervalMs: 5, what: 'the hub reading the entry appended after the check' });

    // The replay read: an entry is appended while it is in flight and the hub reads it (and
    // hands it to the listeners it has) before the replay's answer is handled.
    let duringReplay: string | null = null;
    const replaying = new (class extends StreamLog {
      override async after(s: string, afterId: string, count: number): Promise<StreamEntry[]> {
        const rows = await super.after(s, afterId, count);
        if (duringReplay === null) {
          const id = await append(2);
          duringReplay = id;
          await waitFor(() => other.ids.includes(id), { timeoutMs: 5_000, intervalMs: 5, what: 'the hub reading the entry appended during the replay' });
        }
        return rows;
      }
    })(opts);

    const got: string[] = [];
    const sub = new Subscription('room', grant, stream, {
      message: () => undefined,
      event: (_id, e) => got.push(e.id),
      ended: () => undefined,
    }, { cursor: grantedAt, grantedAt });
    await sub.start(hub, replaying, 100);
    const live = await append(3);
    await waitFor(() => got.includes(live), { timeoutMs: 5_000, intervalMs: 5, what: 'the live entry' });
    await new Promise((r) => setTimeout(r, 100));
    sub.close(hub);
    hub.remove(stream, other);

    expect(got).toEqual([afterCheck, duringReplay, live]);
  });
});
