import net from 'node:net';
import amqplib from 'amqplib';
import { Client, type PoolClient } from 'pg';
import {
  AmqpConnection,
  atCommit,
  begin,
  commit,
  rollback,
  gatherForCommit,
  buildEnvelope,
  claimOutbox,
  CLAIM_SETTINGS,
  createLogger,
  createPool,
  defineConsumer,
  EventConsumer,
  eventsOfMessage,
  bundleRows,
  BUNDLE_CONTENT_TYPE,
  inBatches,
  migrateService,
  OutboxRelay,
  ServiceMetrics,
  serviceDatabaseUrl,
  sqlPrepared,
  MESSAGE_TYPE_HEADER,
  NOT_ACTIVITY_MESSAGES,
  SENDER_TYPE_HEADER,
  systemContext,
  type RequestContext,
  TransactionRolledBackError,
  TYPE_HEADER,
  withTransaction,
  withTransactionFrom,
  writeEvent,
  type EventEnvelope,
  type Pool,
} from '../src';
import { conversationFixture, createTestEnv, explainIn, freePort, infra, messageFixture, pagesLeft, planNodes, TcpGate, waitFor, type TestEnv } from '@parley/testkit';

const log = createLogger('kernel-test', 'silent');
const SERVICE = 'kerneltest';

/** A TCP relay to RabbitMQ that the test can cut and restore: a real broker outage, seen from the client. */
class CuttableLink {
  private server: net.Server | null = null;
  private sockets = new Set<net.Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}
  async up(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      this.sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
  }
  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const srv = this.server;
    this.server = null;
    if (srv) await new Promise<void>((r) => srv.close(() => r()));
  }
}

describe('outbox relay and consumer runner against real Postgres and RabbitMQ', () => {
  let env: TestEnv;
  let pool: Pool;
  let roleUrl: string;
  let conn: amqplib.ChannelModel;
  let ch: amqplib.Channel;

  beforeAll(async () => {
    env = await createTestEnv();
    await migrateService({ adminUrl: env.db.url, service: SERVICE, rolePassword: env.config.DB_ROLE_PASSWORD, migrationsDir: '/nonexistent', log });
    roleUrl = serviceDatabaseUrl(env.db.url, SERVICE, env.config.DB_ROLE_PASSWORD);
    pool = createPool(roleUrl, SERVICE, 5);
    await pool.query('CREATE TABLE effects (event_id uuid, note text)');
    conn = await amqplib.connect(infra().amqpUrl);
    ch = await conn.createChannel();
  });

  afterAll(async () => {
    await ch?.close().catch(() => undefined);
    await conn?.close().catch(() => undefined);
    await pool?.end();
    await env?.close();
  });

  /** A test.ping event whose data id and note are `note`. */
  const noted = (note: string) => buildEnvelope(systemContext(SERVICE, 1, 'req'), { type: 'test.ping', accountId: 1, data: { id: note, note } });

  /** Ten test.ping events written in one transaction, their data ids `<prefix>0`..`<prefix>9` (with `text`, if given). */
  const writeTen = (ctx: RequestContext, prefix: string, text?: string) =>
    withTransaction(pool, async (tx) => {
      const out = [];
      for (let i = 0; i < 10; i++) out.push(await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: `${prefix}${i}`, ...(text === undefined ? {} : { text }) } }));
      return out;
    });

  /** A batch handler that writes each event's effect, and throws on one noted 'fails'; `onTry` sees every event first. */
  const effectsOrFailing =
    (onTry: (e: EventEnvelope) => unknown) =>
    async (tx: PoolClient, events: EventEnvelope[]): Promise<void> => {
      for (const e of events) {
        onTry(e);
        if (e.data['note'] === 'fails') throw new Error('boom');
        await tx.query('INSERT INTO effects (event_id, note) VALUES ($1, $2)', [e.id, String(e.data['note'])]);
      }
    };

  /** A consumer of a spec with header bindings that records, in `delivered`, every event the broker gives its queue (what it filtered never passes). */
  function filteredConsumer(amqp: AmqpConnection, name: string, spec: ReturnType<typeof inBatches>, delivered: string[]): EventConsumer {
    return new EventConsumer({
      queue: `${SERVICE}.${name}`,
      bindings: spec.bindings,
      headerBindings: spec.headerBindings,
      pool,
      amqp,
      log,
      batch: spec.batch,
      wants: (event) => (delivered.push(event.id), spec.wants?.(event) ?? true),
    });
  }

  /** Whether a relay (another session) holds a lock on any of these events' outbox rows: its claim's transaction is open. */
  async function outboxLocked(eventIds: string[]): Promise<boolean> {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT id FROM outbox WHERE event_id = ANY($1::uuid[]) FOR UPDATE NOWAIT', [eventIds]);
      return false;
    } catch {
      return true;
    } finally {
      await c.query('ROLLBACK').catch(() => undefined);
      c.release();
    }
  }

  /** A throwaway queue bound to the namespaced exchange, collecting what the relay publishes (and when each id arrived). */
  async function tap(routingKey: string): Promise<{ received: Array<{ id: string; type: string }>; arrivedAt: Map<string, number>; close(): Promise<void> }> {
    const exchange = `${env.namespace}domain.events`;
    const tapCh = await conn.createChannel();
    await tapCh.assertExchange(exchange, 'topic', { durable: true });
    const q = await tapCh.assertQueue('', { exclusive: true });
    await tapCh.bindQueue(q.queue, exchange, routingKey);
    const received: Array<{ id: string; type: string }> = [];
    const arrivedAt = new Map<string, number>();
    await tapCh.consume(q.queue, (m) => {
      if (!m) return;
      // One event, or a bundle's (what is not JSON is not ours to judge here).
      for (const e of (eventsOfMessage(m.content, m.properties.contentType) ?? []) as Array<{ id: string; type: string }>) {
        received.push(e);
        if (!arrivedAt.has(e.id)) arrivedAt.set(e.id, performance.now());
      }
    }, { noAck: true });
    return { received, arrivedAt, close: () => tapCh.close().catch(() => undefined) };
  }

  it('when an event is written while RabbitMQ is unreachable, then it is delivered once the broker is back', async () => {
    const port = await freePort();
    const link = new CuttableLink(port, { host: '127.0.0.1', port: Number(new URL(infra().amqpUrl).port || 5672) });
    const amqp = new AmqpConnection(`amqp://guest:guest@127.0.0.1:${port}`, log, env.namespace);
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 200 });
    const sink = await tap('test.ping');
    try {
      amqp.start();
      relay.start();
      const ctx = systemContext(SERVICE, 1, 'req-outage');
      const written = await withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'outage' } }));

      // The broker is away: the event stays in the outbox, unpublished, and nothing is lost.
      await new Promise((r) => setTimeout(r, 1500));
      const pending = await pool.query('SELECT published_at FROM outbox WHERE event_id = $1', [written.id]);
      expect(pending.rows[0].published_at).toBeNull();
      expect(sink.received).toHaveLength(0);

      await link.up();
      await waitFor(() => sink.received.some((e) => e.id === written.id), { what: 'event delivered after the outage' });
      await waitFor(async () => (await pool.query('SELECT published_at FROM outbox WHERE event_id = $1', [written.id])).rows[0].published_at !== null);
      expect(sink.received.filter((e) => e.id === written.id)).toHaveLength(1);
    } finally {
      await sink.close();
      await relay.stop();
      await amqp.close();
      await link.down();
    }
  });

  it('when the broker is away, then commits do not make the relay claim and roll back again and again, and once it is back the events go without waiting out the backoff', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    await gate.cut();
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, env.namespace);
    const metrics = new ServiceMetrics('relaybackoff');
    // A back-off (60 s from the first failure) far longer than the wait below: only the broker
    // connection, made again by AmqpConnection's own reconnects, can end it in time.
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 200, metrics, minBackoffMs: 60_000, maxBackoffMs: 120_000 });
    const failures = async () => (await metrics.outboxPublishFailures.get()).values.reduce((a, v) => a + v.value, 0);
    const sink = await tap('test.ping');
    const ctx = systemContext(SERVICE, 1, 'req-backoff');
    try {
      amqp.start();
      relay.start();
      // 30 commits over ~1.5 s, each waking the relay: after its first failure it waits out its
      // back-off (one more failure at most: the LISTEN made at start ends a back-off too).
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        ids.push((await withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: `backoff-${i}` } }))).id);
        await new Promise((r) => setTimeout(r, 50));
      }
      const failed = await failures();
      expect(failed).toBeGreaterThan(0);
      expect(failed).toBeLessThanOrEqual(2);
      // Back: the broker connection (made again within AmqpConnection's 10 s) ends the back-off.
      await gate.restore();
      await waitFor(() => ids.every((id) => sink.received.some((e) => e.id === id)), { timeoutMs: 40_000, what: 'every event after the outage' });
    } finally {
      await sink.close();
      await relay.stop();
      await amqp.close();
      await gate.close();
    }
  });

  it('when the broker stops answering while the relay waits for confirms, then the batch is given up within the confirm timeout (its rows unlocked), and published once the link carries again', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 200, confirmTimeoutMs: 2000 });
    const sink = await tap('test.ping');
    try {
      relay.start();
      await amqp.confirmChannel();
      gate.freeze();
      const written = await withTransaction(pool, (tx) => writeEvent(tx, systemContext(SERVICE, 1, 'req-frozen'), { type: 'test.ping', accountId: 1, data: { id: 'frozen' } }));
      // The relay claims the row and publishes into the frozen link (the heartbeat would notice in
      // a minute or two); within the confirm timeout it lets go.
      const locked = () => outboxLocked([written.id]);
      await waitFor(locked, { timeoutMs: 10_000, intervalMs: 50, what: 'the relay to claim the row' });
      await waitFor(async () => !(await locked()), { timeoutMs: 15_000, what: 'the claim to be rolled back' });
      expect((await pool.query('SELECT published_at FROM outbox WHERE event_id = $1', [written.id])).rows[0].published_at).toBeNull();
      gate.thaw();
      await waitFor(() => sink.received.some((e) => e.id === written.id), { timeoutMs: 30_000, what: 'the event after the thaw' });
      await waitFor(async () => (await pool.query('SELECT published_at FROM outbox WHERE event_id = $1', [written.id])).rows[0].published_at !== null, { timeoutMs: 30_000 });
    } finally {
      gate.thaw();
      await sink.close();
      await relay.stop();
      await amqp.close();
      await gate.close();
    }
  });

  it('when the broker has confirmed a batch out of order and the connection drops before its last confirm, then the relay lets go of the batch at once and publishes it again', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, env.namespace);
    await amqp.connect();
    // No timeout to rescue it: only the channel's close can.
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 200, confirmTimeoutMs: 600_000 });
    const sink = await tap('test.ping');
    try {
      // The relay's channel (AmqpConnection keeps one), made before the link carries nothing.
      const ch = (await amqp.confirmChannel()) as unknown as { unconfirmed: unknown[]; lwm: number; emit(event: string, fields: unknown): boolean };
      relay.start();
      gate.freeze();
      const ctx = systemContext(SERVICE, 1, 'req-out-of-order');
      const written = await withTransaction(pool, async (tx) => {
        const out = [];
        for (let i = 0; i < 4; i++) out.push(await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: `ooo-${i}` } }));
        return out;
      });
      await waitFor(() => ch.unconfirmed.length >= 4, { timeoutMs: 10_000, what: 'the batch published into the frozen link' });
      // What the broker may send (amqplib internals: `lwm` is the first unconfirmed tag): the
      // third confirmed alone, then the first two with `multiple`; the fourth never, as the
      // connection drops.
      const first = ch.lwm;
      ch.emit('ack', { deliveryTag: first + 2, multiple: false });
      ch.emit('ack', { deliveryTag: first + 1, multiple: true });
      await gate.cut();
      const locked = () => outboxLocked(written.map((e) => e.id));
      await waitFor(async () => !(await locked()), { timeoutMs: 15_000, what: 'the claim to be rolled back' });
      await gate.restore();
      await waitFor(() => written.every((e) => sink.received.some((r) => r.id === e.id)), { timeoutMs: 30_000, what: 'the batch published again' });
    } finally {
      // The link first: a relay still waiting on the frozen batch sees its channel close.
      await gate.close();
      await sink.close();
      await relay.stop();
      await amqp.close();
    }
  });

  it('when the relay is running, then a committed event is published at once and a rolled-back one never is', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000 });
    const sink = await tap('test.ping');
    try {
      relay.start();
      const ctx = systemContext(SERVICE, 1, 'req-commit');
      await expect(
        withTransaction(pool, async (tx) => {
          await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'rolled-back' } });
          throw new Error('change failed');
        }),
      ).rejects.toThrow('change failed');
      const ok = await withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'committed' } }));
      // pollMs is a minute, so only the commit's wake-up can make this fast enough.
      await waitFor(() => sink.received.some((e) => e.id === ok.id), { what: 'notified publish', timeoutMs: 20_000 });
      expect(sink.received.some((e) => (e as unknown as { data: { id: string } }).data.id === 'rolled-back')).toBe(false);
    } finally {
      await sink.close();
      await relay.stop();
      await amqp.close();
    }
  });

  it('when a transaction that wrote events commits, then no NOTIFY goes out (every LISTENing backend of the database would wake), and a write outside such a transaction still wakes every relay', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000 });
    const listener = new Client({ connectionString: roleUrl });
    const heard: string[] = [];
    const sink = await tap('test.ping');
    try {
      await listener.connect();
      listener.on('notification', (n) => heard.push(n.channel));
      await listener.query(`LISTEN outbox_${SERVICE}`);
      relay.start();
      const ctx = systemContext(SERVICE, 1, 'req-no-notify');
      // Straight on the pool (its own transaction, which the kernel cannot see end): told by NOTIFY.
      // First, so the relay has LISTENed and made its first look before the write below.
      const bare = await writeEvent(pool, ctx, { type: 'test.ping', accountId: 1, data: { id: 'autocommit' } });
      await waitFor(() => heard.length > 0, { what: 'the NOTIFY of a write outside a kernel transaction' });
      expect(heard).toEqual([`outbox_${SERVICE}`]);
      await waitFor(() => sink.received.some((e) => e.id === bare.id), { what: 'published after the NOTIFY', timeoutMs: 20_000 });
      await waitFor(async () => (await pool.query('SELECT published_at FROM outbox WHERE event_id = $1', [bare.id])).rows[0].published_at !== null, { what: 'its publish mark' });
      heard.length = 0;

      const inTx = await withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'in-transaction' } }));
      // Published by its own process's relay, woken by the commit (the poll is a minute away).
      await waitFor(() => sink.received.some((e) => e.id === inTx.id), { what: 'published after the commit', timeoutMs: 20_000 });
      // A NOTIFY is signalled before the COMMIT returns, so it reaches the listener before this answer: none came.
      await listener.query('SELECT 1');
      expect(heard).toEqual([]);
    } finally {
      await listener.end().catch(() => undefined);
      await sink.close();
      await relay.stop();
      await amqp.close();
    }
  });

  it('when more events are waiting than a batch holds, then each is published once, in the order written, as stored, and marked', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000, batchSize: 3 });
    const sink = await tap('test.ping');
    try {
      const ctx = systemContext(SERVICE, 1, 'req-order');
      const written = await writeTen(ctx, 'n', 'é "quoted" \\ ✓');
      relay.start();
      await waitFor(() => sink.received.length >= 10, { what: 'ten events published' });
      expect(sink.received.map((e) => e.id)).toEqual(written.map((e) => e.id));
      expect(sink.received[0]).toEqual(JSON.parse(JSON.stringify(written[0])));
      // The marks commit after the broker's confirm, so they may trail the deliveries.
      const marked = async () => (await pool.query('SELECT count(*)::int AS n FROM outbox WHERE event_id = ANY($1::uuid[]) AND published_at IS NOT NULL AND attempts = 1', [written.map((e) => e.id)])).rows[0].n as number;
      await waitFor(async () => (await marked()) === 10, { what: 'ten publish marks' });
      expect(await marked()).toBe(10);
    } finally {
      await sink.close();
      await relay.stop();
      await amqp.close();
    }
  });

  it('when a relay bundles, then the events of a claim go in messages of at most bundleMax, each event once, in the order written, as stored', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000, bundleMax: 4 });
    const exchange = `${env.namespace}domain.events`;
    const tapCh = await conn.createChannel();
    const q = await tapCh.assertQueue('', { exclusive: true });
    await tapCh.bindQueue(q.queue, exchange, 'test.ping');
    const messages: Array<{ contentType: string | undefined; messageId: string | undefined; events: Array<{ id: string }> }> = [];
    await tapCh.consume(q.queue, (m) => {
      if (m) messages.push({ contentType: m.properties.contentType, messageId: m.properties.messageId, events: eventsOfMessage(m.content, m.properties.contentType) as Array<{ id: string }> });
    }, { noAck: true });
    try {
      const ctx = systemContext(SERVICE, 1, 'req-bundle');
      const written = await writeTen(ctx, 'b', 'é "quoted" \\ ✓');
      relay.start();
      await waitFor(() => messages.flatMap((m) => m.events).length >= 10, { what: 'ten events published' });
      expect(messages.map((m) => m.events.length)).toEqual([4, 4, 2]);
      expect(messages.map((m) => m.contentType)).toEqual([BUNDLE_CONTENT_TYPE, BUNDLE_CONTENT_TYPE, BUNDLE_CONTENT_TYPE]);
      // Each bundle is known by its first event's id.
      expect(messages.map((m) => m.messageId)).toEqual([written[0]?.id, written[4]?.id, written[8]?.id]);
      expect(messages.flatMap((m) => m.events)).toEqual(JSON.parse(JSON.stringify(written)));
    } finally {
      await tapCh.close().catch(() => undefined);
      await relay.stop();
      await amqp.close();
    }
  });

  it('when a claim mixes routings, then each bundle holds one routing (type and headers), in id order, within its size and bytes, and one event goes alone', () => {
    const row = (routing_key: string, sender_type: string | null, message_type: string | null, n: number, bytes = 10) => ({ routing_key, sender_type, message_type, payload: `${n}`.padEnd(bytes, ' '), entity: `1:${n}` });
    const rows = [
      row('message.created', 'Contact', '0', 1),
      row('conversation.updated', null, null, 2),
      row('message.created', 'User', '2', 3),
      row('message.created', 'Contact', '0', 4),
      row('conversation.updated', null, null, 5),
      row('message.created', 'Contact', '0', 6),
      row('message.created', 'Contact', '1', 7),
      row('conversation.updated', null, null, 8, 200 * 1024),
      row('conversation.updated', null, null, 9, 100 * 1024),
    ];
    const groups = bundleRows(rows, 2).map((g) => g.map((r) => Number(r.payload.trim())));
    // The contact's incoming 1, 4 (full at 2), then 6 in a bundle of its own; conversation.updated
    // 2, 5, then 8 (200 KiB) in a new one, and 9 (100 KiB) not with it: over the 256 KiB.
    expect(groups).toEqual([[1, 4], [2, 5], [3], [6], [7], [8], [9]]);
    expect(bundleRows(rows, 1).map((g) => g.length)).toEqual(Array(9).fill(1));
    // Bytes, not characters: 100,000 three-byte characters are 300,000 bytes, over the 256 KiB with anything.
    const wide = [row('conversation.updated', null, null, 1), { ...row('conversation.updated', null, null, 2), payload: `2${'✓'.repeat(100_000)}` }];
    expect(bundleRows(wide, 20).map((g) => g.length)).toEqual([1, 1]);
  });

  it('when a claim holds several events of one conversation, then every routing delivers them in id order: an event never goes in a bundle started before one of its conversation', () => {
    const ev = (n: number, routing_key: string, conversation: number, sender_type: string | null = null, message_type: string | null = null) => ({ routing_key, sender_type, message_type, payload: `${n}`, entity: `1:${conversation}` });
    const rows = [
      ev(1, 'message.created', 7, 'Contact', '0'),
      ev(2, 'conversation.updated', 7),
      ev(3, 'message.created', 8, 'Contact', '0'),
      ev(4, 'conversation.updated', 8),
      ev(5, 'message.created', 7, 'User', '1'),
      ev(6, 'message.created', 7, 'Contact', '0'),
      ev(7, 'message.updated', 9),
      ev(8, 'message.created', 9, 'Contact', '0'),
      ev(9, 'message.updated', 9),
    ];
    const groups = bundleRows(rows, 20);
    // 1 and 3 (two conversations) share a bundle, 2 and 4 too; 6 cannot join 1's: 5, of its
    // conversation, went to a bundle started after it. 8 cannot join 6's: 7, of its conversation,
    // went to one started after that; and 9 cannot join 7's, started before 8's.
    expect(groups.map((g) => g.map((r) => Number(r.payload)))).toEqual([[1, 3], [2, 4], [5], [6], [7], [8], [9]]);
    // In every queue's view (the bundles in order, whatever their routing) each conversation's events keep their ids' order.
    const order = groups.flat();
    for (const c of ['1:7', '1:8', '1:9']) {
      const ids = order.filter((r) => r.entity === c).map((r) => Number(r.payload));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
  });

  it('when a relay is given a batch size that is not a positive integer, then it is refused when made, not at its first claim', () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    for (const batchSize of [0, -1, 2.5, Number.NaN]) expect(() => new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, batchSize })).toThrow('outbox batch size');
    expect(() => new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, batchSize: 3 })).not.toThrow();
  });

  it('when the relay claims on an outbox whose statistics counted a backlog, then Postgres keeps the claim\'s generic plan instead of planning every claim', async () => {
    // A backlog analyzed (5,000 rows waiting), then published: until the next ANALYZE the planner
    // expects 5,000 waiting rows. With the batch size a parameter (`LIMIT $1`), the generic plan
    // took its LIMIT for 10% of them and looked dearer than the custom plans of LIMIT 200: every
    // claim was planned again (10 custom plans here; 0.25 ms of planning a claim on the large
    // benchmark account). With it a literal the claim has no parameters: its one plan is generic.
    const { rows: before } = await pool.query<{ id: string | null }>('SELECT max(id)::text AS id FROM outbox');
    // A connection of its own: the plan counts are per connection.
    const own = createPool(roleUrl, SERVICE, 1);
    let client: PoolClient | null = null;
    try {
      await pool.query(`INSERT INTO outbox (event_id, routing_key, payload) SELECT gen_random_uuid(), 'test.backlog', '{}' FROM generate_series(1, 5000)`);
      await pool.query('ANALYZE outbox');
      await pool.query(`UPDATE outbox SET published_at = now() WHERE routing_key = 'test.backlog'`);
      client = await own.connect();
      await client.query('SET plan_cache_mode = auto');
      for (let i = 0; i < 10; i++) {
        // Rolled back: whatever another test left waiting stays so.
        await client.query('BEGIN');
        await client.query(claimOutbox(200));
        await client.query('ROLLBACK');
      }
      const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%WITH claimed AS%'`);
      expect(rows).toHaveLength(1);
      expect([Number(rows[0]!.custom_plans), Number(rows[0]!.generic_plans)]).toEqual([0, 10]);
    } finally {
      client?.release();
      await own.end();
      // Even if the set-up failed half way: no backlog row left waiting for the next test's relay, nor statistics counting one.
      await pool.query(`DELETE FROM outbox WHERE routing_key = 'test.backlog' AND id > $1`, [before[0]?.id ?? 0]);
      await pool.query('ANALYZE outbox');
    }
  });

  it('when statistics make a bitmap scan look cheaper, then the relay still claims through the waiting index, and after 2,000 events its claims leave later ones no entry of a published row to read', async () => {
    // Each claim marks its rows published; their entries in the waiting index (`published_at IS
    // NULL`) stay until a scan finds the rows dead to everyone and marks the entries dead, so
    // later scans skip them. An index scan does; a bitmap scan never does, and a claim that took
    // one read the rows of every event published since the table's last VACUUM.
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000, batchSize: 50 });
    const client = await pool.connect();
    const claim = claimOutbox(50).text;
    const { rows: before } = await pool.query<{ id: string | null }>('SELECT max(id)::text AS id FROM outbox');
    try {
      // An outbox under load, as its statistics say: the last days' events kept, published, a few
      // waiting, rows of a real event's size (a message's is 1.3 kB), their ids in no physical
      // order (each claim's update moves its rows to wherever the table has room): an index
      // scan's row fetches look far apart to the planner, and it took the bitmap scan.
      await pool.query('ALTER TABLE outbox SET (autovacuum_enabled = false)');
      const text = 'x'.repeat(1000);
      await pool.query(
        `INSERT INTO outbox (id, event_id, routing_key, payload, published_at) OVERRIDING SYSTEM VALUE
         SELECT id, gen_random_uuid(), 'test.history', jsonb_build_object('text', $1::text), CASE WHEN n <= 10 THEN NULL ELSE now() END
           FROM (SELECT n, nextval(pg_get_serial_sequence('outbox', 'id')) AS id FROM generate_series(1, 3000) n) ids ORDER BY random()`,
        [text],
      );
      await pool.query('ANALYZE outbox');
      // (The planner's margin for the bitmap scan here is a few percent of the plan's cost.)
      const unset = planNodes(await explainIn(client, null, claim));
      if (!unset.includes('Bitmap Heap Scan')) throw new Error(`the set-up no longer makes the planner take a bitmap scan for the claim (${unset.join(', ')}): the test proves nothing until it does`);
      expect(planNodes(await explainIn(client, CLAIM_SETTINGS, claim))).toContain('Index Scan outbox_unpublished_idx');

      const ctx = systemContext(SERVICE, 1, 'req-claim-pages');
      const ids: string[] = [];
      for (let t = 0; t < 20; t++) {
        const written = await withTransaction(pool, async (tx) => {
          const out: string[] = [];
          for (let i = 0; i < 100; i++) out.push((await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: `p${t}-${i}`, text } })).id);
          return out;
        });
        ids.push(...written);
      }
      relay.start();
      const waiting = async () => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE event_id = ANY($1::uuid[]) AND published_at IS NULL', [ids])).rows[0]!.n;
      await waitFor(async () => (await waiting()) === 0, { what: '2,000 events published', timeoutMs: 30_000 });
      await relay.stop();
      // The relay's claims mark an entry dead once no transaction can see its row (other test
      // files' transactions can hold that back a while): its next looks, with nothing waiting, mark
      // what is left. Claims that took the bitmap scan never do: ~430 pages stay.
      await waitFor(async () => (await relay.drainOnce(), (await pagesLeft(client, claim)) < 40), { what: 'the waiting index left with no entry of a published row', timeoutMs: 20_000 });
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      await relay.stop();
      // Whatever it wrote, published or not (a failure half way leaves no backlog for the next test's relay).
      await pool.query('DELETE FROM outbox WHERE id > $1', [before[0]?.id ?? 0]);
      await pool.query('ALTER TABLE outbox RESET (autovacuum_enabled)');
      await pool.query('ANALYZE outbox');
      await amqp.close().catch(() => undefined);
    }
  });

  it('when events commit within the flush window after a publish, then they go out together at its end; a backlog and an event after a quiet spell go at once', async () => {
    const flushMs = 3000;
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000, batchSize: 3, flushMs });
    const sink = await tap('test.ping');
    const ctx = systemContext(SERVICE, 1, 'req-window');
    const write = (id: string) => withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id } }));
    // When each event reached the tap, taken as it arrives: a poll that notices it late (a busy
    // machine) would shorten the gaps measured below.
    const arrived = sink.arrivedAt;
    const seen = (id: string) => waitFor(() => sink.received.some((e) => e.id === id), { what: `event ${id} published`, timeoutMs: 20_000 });
    // The relay commits its mark after the broker's confirm, so a consumer can see an event
    // before its row reads as published: wait for the marks.
    const publishedAt = async (ids: string[]) => {
      let stamps: (Date | null)[] = [];
      await waitFor(async () => {
        stamps = (await pool.query<{ published_at: Date | null }>('SELECT published_at FROM outbox WHERE event_id = ANY($1::uuid[]) ORDER BY id', [ids])).rows.map((r) => r.published_at);
        return stamps.length === ids.length && stamps.every((d) => d !== null);
      }, { what: 'publish marks committed', timeoutMs: 20_000 });
      return stamps.map((d) => (d as Date).getTime());
    };
    try {
      relay.start();
      const first = await write('first');
      await seen(first.id);
      // Committed right after a publish: held until the window ends, then claimed in one statement.
      const b = await write('second');
      const c = await write('third');
      await seen(b.id);
      await seen(c.id);
      expect((arrived.get(b.id) as number) - (arrived.get(first.id) as number)).toBeGreaterThanOrEqual(flushMs - 200);
      const [pb, pc] = await publishedAt([b.id, c.id]);
      expect(pb).toBe(pc);

      // A backlog of full batches is not held back by the window: ten events, batches of three,
      // written together just after a publish, leave in four claims one after the other.
      await new Promise((r) => setTimeout(r, flushMs + 200));
      const trigger = await write('trigger');
      await seen(trigger.id);
      const many = await writeTen(ctx, 'b');
      for (const e of many) await seen(e.id);
      const stamps = await publishedAt(many.map((e) => e.id));
      // The first three after the window; the rest without waiting a window each (four windows would be 12 s).
      expect(Math.max(...stamps) - Math.min(...stamps)).toBeLessThan(flushMs);
      expect(sink.received.filter((e) => many.some((m) => m.id === e.id)).map((e) => e.id)).toEqual(many.map((e) => e.id));

      // After a quiet spell longer than the window, an event goes at once (no window to wait out).
      await new Promise((r) => setTimeout(r, flushMs + 200));
      const written = performance.now();
      const late = await write('after a quiet spell');
      await seen(late.id);
      expect((arrived.get(late.id) as number) - written).toBeLessThan(flushMs);
    } finally {
      await sink.close();
      await relay.stop();
      await amqp.close();
    }
  });

  describe('consumer', () => {
    let amqp: AmqpConnection;
    let consumer: EventConsumer;
    let failures: Map<string, number>;
    const metrics = new ServiceMetrics('test');
    const counted = async (labels: Record<string, string>) =>
      (await metrics.events.get()).values.filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x)).reduce((a, v) => a + v.value, 0);

    beforeAll(async () => {
      amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
      await amqp.connect();
      failures = new Map();
      consumer = new EventConsumer({
        queue: `${SERVICE}.events`,
        bindings: ['test.*'],
        pool,
        amqp,
        log,
        prefetch: 1,
        maxAttempts: 3,
        retryDelayMs: 10,
        metrics,
        handle: async (tx, event) => {
          const note = String(event.data['note'] ?? '');
          if (note === 'always-fails') throw new Error('boom');
          if (note === 'fails-once' && !failures.has(event.id)) {
            failures.set(event.id, 1);
            throw new Error('transient');
          }
          await tx.query('INSERT INTO effects (event_id, note) VALUES ($1, $2)', [event.id, note]);
        },
      });
      await consumer.start();
    });

    afterAll(async () => {
      await consumer.stop();
      await amqp.close();
    });

    function publish(body: unknown): void {
      const content = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      ch.publish(`${env.namespace}domain.events`, 'test.ping', content, { persistent: true });
    }

    const ping = noted;

    async function effects(eventId: string): Promise<number> {
      const r = await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = $1', [eventId]);
      return r.rows[0].n;
    }

    it('when the same event is delivered twice, then its effect happens once', async () => {
      const dup = ping('duplicate');
      publish(dup);
      publish(dup);
      const sentinel = ping('sentinel');
      publish(sentinel);
      // prefetch 1: once the sentinel is done, both copies before it were handled.
      await waitFor(async () => (await effects(sentinel.id)) === 1, { what: 'sentinel processed' });
      expect(await effects(dup.id)).toBe(1);
      const seen = await pool.query('SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1', [dup.id]);
      expect(seen.rows[0].n).toBe(1);
      expect(await counted({ queue: `${SERVICE}.events`, type: 'test.ping', outcome: 'duplicate' })).toBe(1);
    });

    it('when a handler fails once, then the event is retried and takes effect once', async () => {
      const ev = ping('fails-once');
      publish(ev);
      await waitFor(async () => (await effects(ev.id)) === 1, { what: 'retried event processed' });
      expect(failures.get(ev.id)).toBe(1);
      expect(await counted({ type: 'test.ping', outcome: 'failed' })).toBe(1);
      // The consumer counts the event (and times it) once its COMMIT has answered: the effect's row
      // can be read a moment before that.
      const timedCount = async () => (await metrics.eventDuration.get()).values.find((v) => v.metricName?.endsWith('_count') && v.labels['type'] === 'test.ping')?.value ?? 0;
      await waitFor(async () => (await counted({ type: 'test.ping', outcome: 'handled' })) >= 3 && (await timedCount()) >= 3, { what: 'the retried event counted' });
      expect(await counted({ type: 'test.ping', outcome: 'handled' })).toBeGreaterThanOrEqual(3);
      expect(await timedCount()).toBeGreaterThanOrEqual(3);
    });

    it('when messages are poison or keep failing, then they land in the dead-letter queue and nothing else is affected', async () => {
      publish('{not json');
      publish({ ...ping('x'), type: 'no.such.event' });
      const failing = ping('always-fails');
      publish(failing);
      const after = ping('after-poison');
      publish(after);
      await waitFor(async () => (await ch.checkQueue(consumer.deadLetterQueue)).messageCount === 3, { what: 'three dead letters', timeoutMs: 20_000 });
      await waitFor(async () => (await effects(after.id)) === 1, { what: 'later event still processed' });
      expect(await effects(failing.id)).toBe(0);
      const msg = await ch.get(consumer.deadLetterQueue, { noAck: true });
      expect(msg).not.toBe(false);
      // Not JSON and an unknown type are counted as invalid; the failing one under its type,
      // once dead-lettered after its two failed attempts.
      expect(await counted({ type: 'invalid', outcome: 'dead_lettered' })).toBe(2);
      expect(await counted({ type: 'test.ping', outcome: 'dead_lettered' })).toBe(1);
      expect(await counted({ type: 'test.ping', outcome: 'failed' })).toBe(1 + 2);
    });

    it('when a bundle holds good, repeated, invalid and failing events, then each good one takes effect once, only the bad ones are dead-lettered, each alone, and the bundle is acked', async () => {
      await ch.purgeQueue(consumer.deadLetterQueue);
      const good = [ping('bundled-1'), ping('bundled-2')];
      const invalid = { ...ping('bundled-bad'), type: 'no.such.event' };
      const failing = ping('always-fails');
      const bundle = [good[0], good[0], invalid, failing, good[1]];
      ch.publish(`${env.namespace}domain.events`, 'test.ping', Buffer.from(JSON.stringify(bundle)), { persistent: true, contentType: BUNDLE_CONTENT_TYPE });
      // prefetch 1: the sentinel is delivered only once the bundle is acked (its failing event
      // re-queued alone, not the bundle held).
      const sentinel = ping('after-bundle');
      publish(sentinel);
      await waitFor(async () => (await effects(sentinel.id)) === 1, { what: 'the message after the bundle handled' });
      await waitFor(async () => (await ch.checkQueue(consumer.deadLetterQueue)).messageCount === 2, { what: 'two dead letters', timeoutMs: 20_000 });
      expect(await effects(good[0]!.id)).toBe(1);
      expect(await effects(good[1]!.id)).toBe(1);
      expect(await effects(failing.id)).toBe(0);
      const dead: unknown[] = [];
      for (let i = 0; i < 2; i++) {
        const msg = await ch.get(consumer.deadLetterQueue, { noAck: true });
        if (msg === false) throw new Error('dead letter gone');
        expect(msg.properties.contentType).not.toBe(BUNDLE_CONTENT_TYPE);
        dead.push(JSON.parse(msg.content.toString()));
      }
      // Each alone, as it was in the bundle: the invalid one at once, the failing one after its attempts.
      expect(dead).toEqual([JSON.parse(JSON.stringify(invalid)), JSON.parse(JSON.stringify(failing))]);
      expect((await ch.checkQueue(consumer.queue)).messageCount).toBe(0);
    });
  });
  it('when a consumer binds a type on headers, then the broker delivers it only the events whose published headers match, and a plain binding left from before is gone', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000 });
    const seen: Array<{ id: string; sender: string | null }> = [];
    const spec = inBatches(
      defineConsumer('filtered', (on) => {
        on('message.created', async (_tx, m, event) => void seen.push({ id: event.id, sender: m.sender_type }), {
          when: (m) => m.sender_type === 'Contact',
          headers: { [SENDER_TYPE_HEADER]: 'Contact' },
        });
        on('test.ping', async (_tx, data, event) => void seen.push({ id: event.id, sender: String(data['id']) }));
      }),
      { size: 10, maxWaitMs: 5 },
    );
    expect(spec.bindings).toEqual(['test.ping']);
    expect(spec.headerBindings).toEqual([{ type: 'message.created', headers: { [SENDER_TYPE_HEADER]: 'Contact' } }]);
    const delivered: string[] = [];
    const consumer = filteredConsumer(amqp, 'filtered', spec, delivered);
    // An earlier version's plain binding of the type, as a deployment upgraded in place has it.
    const queue = consumer.queue;
    await ch.assertExchange(`${env.namespace}domain.events`, 'topic', { durable: true });
    await ch.assertQueue(queue, { durable: true, arguments: { 'x-dead-letter-exchange': amqp.deadLetterExchange, 'x-dead-letter-routing-key': queue, 'x-expires': 60_000 } });
    await ch.bindQueue(queue, `${env.namespace}domain.events`, 'message.created');
    const ctx = systemContext(SERVICE, 1, 'req-headers');
    const conv = conversationFixture(1, 9001);
    try {
      await consumer.start();
      relay.start();
      const written = await withTransaction(pool, async (tx) => [
        await writeEvent(tx, ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { content: 'from the contact' }) }),
        await writeEvent(tx, ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { message_type: 1, sender_type: 'User', sender_id: 5, content: 'reply' }) }),
        await writeEvent(tx, ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { message_type: 2, sender_type: null, sender_id: null, content: 'activity' }) }),
        await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'after' } }),
      ]);
      const [contact, reply, activity, after] = written.map((e) => e.id);
      // The ping was written last and published last, in one burst with the messages.
      await waitFor(() => seen.some((s) => s.id === after), { what: 'the ping handled' });
      await waitFor(async () => (await ch.checkQueue(queue)).messageCount === 0, { what: 'queue drained' });
      expect(seen).toEqual([
        { id: contact, sender: 'Contact' },
        { id: after, sender: 'after' },
      ]);
      expect(delivered).toEqual([contact, after]);
      expect(delivered).not.toContain(reply);
      expect(delivered).not.toContain(activity);

      // A publisher older than the routing headers (a rolling upgrade) sends none: such events
      // still reach the queue, and its `wants` decides as it did before the filter.
      const legacy = [
        buildEnvelope(ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { content: 'old relay, contact' }) }),
        buildEnvelope(ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { message_type: 1, sender_type: 'User', sender_id: 5, content: 'old relay, reply' }) }),
      ];
      for (const ev of legacy) ch.publish(`${env.namespace}domain.events`, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true });
      await waitFor(() => seen.some((s) => s.id === legacy[0]!.id), { what: "the old relay's contact message handled" });
      await waitFor(() => delivered.includes(legacy[1]!.id), { what: "the old relay's reply delivered" });
      await waitFor(async () => (await ch.checkQueue(queue)).messageCount === 0, { what: 'queue drained again' });
      expect(seen.map((s) => s.id)).not.toContain(legacy[1]!.id);
    } finally {
      await relay.stop();
      await consumer.stop();
      await amqp.close();
    }
  });

  it('when a consumer binds a type on several header sets, then it gets the events matching any of them, and an older relay`s events still reach it through an earlier drop binding', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
    await amqp.connect();
    const relay = new OutboxRelay({ pool, listenUrl: roleUrl, schema: SERVICE, amqp, log, pollMs: 60_000 });
    const handled: string[] = [];
    const spec = inBatches(
      defineConsumer('chat', (on) => {
        on('message.created', async (_tx, _m, event) => void handled.push(event.id), { when: (m) => m.message_type !== 2, headers: NOT_ACTIVITY_MESSAGES });
      }),
      { size: 10, maxWaitMs: 5 },
    );
    expect(spec.bindings).toEqual([]);
    expect(spec.headerBindings).toEqual(['0', '1', '3'].map((t) => ({ type: 'message.created', headers: { [MESSAGE_TYPE_HEADER]: t } })));
    // A message's headers on a type the relay never gives them would drop all of its events: refused.
    const wrong = { type: 'conversation.updated', headers: { [MESSAGE_TYPE_HEADER]: '0' } };
    expect(() => new EventConsumer({ queue: `${SERVICE}.wrong`, bindings: [], headerBindings: [wrong], pool, amqp, log, handle: async () => undefined })).toThrow(/not published with a message/);
    const delivered: string[] = [];
    const consumer = filteredConsumer(amqp, 'chat', spec, delivered);
    // An earlier version's filter, whose drop took every event of the type its bindings did not match.
    const filter = `${consumer.queue}.filter`;
    await ch.assertExchange(`${env.namespace}domain.events`, 'topic', { durable: true });
    await ch.assertExchange(`${filter}.unfiltered`, 'fanout', { durable: true, autoDelete: true });
    await ch.assertExchange(`${filter}.drop`, 'fanout', { durable: true });
    await ch.assertExchange(filter, 'headers', { durable: true, autoDelete: true, alternateExchange: `${filter}.unfiltered` });
    await ch.bindExchange(`${filter}.drop`, filter, '', { 'x-match': 'all', [TYPE_HEADER]: 'message.created' });
    const ctx = systemContext(SERVICE, 1, 'req-chat');
    const conv = conversationFixture(1, 9002);
    try {
      await consumer.start();
      relay.start();
      const written = await withTransaction(pool, async (tx) => {
        const out = [];
        for (const message_type of [0, 1, 2, 3] as const) {
          out.push(await writeEvent(tx, ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { message_type, content: `type ${message_type}` }) }));
        }
        return out;
      });
      const [incoming, outgoing, activity, template] = written.map((e) => e.id);
      await waitFor(() => handled.length === 3, { what: 'the three chat messages handled' });
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 0, { what: 'queue drained' });
      expect(handled).toEqual([incoming, outgoing, template]);
      expect(delivered).toEqual([incoming, outgoing, template]);
      expect(delivered).not.toContain(activity);

      // A relay of the version before sends the type and sender headers, not the message type or
      // the routed mark: its activity message matches no binding, and (the old drop binding gone)
      // reaches the queue through the alternate exchange, where `when` declines it.
      const old = buildEnvelope(ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { message_type: 2, sender_type: null, sender_id: null, content: 'old relay, activity' }) });
      ch.publish(`${env.namespace}domain.events`, old.type, Buffer.from(JSON.stringify(old)), { persistent: true, headers: { [TYPE_HEADER]: old.type } });
      const oldReply = buildEnvelope(ctx, { type: 'message.created', accountId: 1, data: messageFixture(conv, { message_type: 1, sender_type: 'User', sender_id: 5, content: 'old relay, reply' }) });
      ch.publish(`${env.namespace}domain.events`, oldReply.type, Buffer.from(JSON.stringify(oldReply)), { persistent: true, headers: { [TYPE_HEADER]: oldReply.type, [SENDER_TYPE_HEADER]: 'User' } });
      await waitFor(() => delivered.includes(old.id), { what: "the old relay's activity message delivered" });
      await waitFor(() => handled.includes(oldReply.id), { what: "the old relay's reply handled" });
      expect(handled).not.toContain(old.id);
    } finally {
      await relay.stop();
      await consumer.stop();
      await amqp.close();
    }
  });

  it('when a consumer retires a binding an earlier version made, then the broker stops delivering that type and the other bindings stay', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
    await amqp.connect();
    const seen: string[] = [];
    const delivered: string[] = [];
    const spec = defineConsumer('retiring', (on) => {
      on('test.ping', async (_tx, _data, event) => void seen.push(event.id));
    });
    const consumer = new EventConsumer({
      queue: `${SERVICE}.retiring`,
      bindings: spec.bindings,
      retiredBindings: ['message.created', 'test.ping'],
      pool,
      amqp,
      log,
      handle: spec.handle,
      // Every event the queue is given passes here.
      wants: (event) => (delivered.push(event.type), spec.wants?.(event) ?? true),
    });
    // The queue as the earlier version left it: bound to message.created too.
    const exchange = `${env.namespace}domain.events`;
    await ch.assertExchange(exchange, 'topic', { durable: true });
    await ch.assertQueue(consumer.queue, { durable: true, arguments: { 'x-dead-letter-exchange': amqp.deadLetterExchange, 'x-dead-letter-routing-key': consumer.queue, 'x-expires': 60_000 } });
    await ch.bindQueue(consumer.queue, exchange, 'message.created');
    const ctx = systemContext(SERVICE, 1, 'req-retired');
    try {
      await consumer.start();
      const retired = buildEnvelope(ctx, { type: 'message.created', accountId: 1, data: messageFixture(conversationFixture(1, 9002), { content: 'no longer wanted' }) });
      const ping = buildEnvelope(ctx, { type: 'test.ping', accountId: 1, data: { id: 'still bound' } });
      for (const ev of [retired, ping]) ch.publish(exchange, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true });
      // A retired key that is also bound (a mistake) stays bound: the ping arrives.
      await waitFor(() => seen.includes(ping.id), { what: 'the ping handled' });
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 0, { what: 'queue drained' });
      expect(delivered).toEqual(['test.ping']);
    } finally {
      await consumer.stop();
      await amqp.close();
    }
  });

  it('when a consumer is stopped while it attaches (a reconnect\'s set-up), then it never starts consuming: an event published after stays queued', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, env.namespace, 60_000);
    const seen: string[] = [];
    const consumer = new EventConsumer({ queue: `${SERVICE}.stopped-attach`, bindings: ['test.ping'], pool, amqp, log, handle: async (_tx, event) => void seen.push(event.id) });
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let before = false;
    try {
      // A set-up ahead of the consumer's tells when the connection's set-ups run, and holds them.
      await amqp.onConnect(async () => {
        before = true;
        await held;
      });
      await consumer.start();
      const connecting = amqp.connect();
      await waitFor(() => before, { what: 'the set-ups to start' });
      // The consumer's attach starts and waits on its first round trip; stop() comes meanwhile.
      gate.freeze();
      release();
      await new Promise((r) => setTimeout(r, 200));
      await consumer.stop();
      gate.thaw();
      await connecting;
      const exchange = `${env.namespace}domain.events`;
      await ch.assertExchange(exchange, 'topic', { durable: true });
      const ping = buildEnvelope(systemContext(SERVICE, 1, 'req-stopped'), { type: 'test.ping', accountId: 1, data: { id: 'after stop' } });
      ch.publish(exchange, ping.type, Buffer.from(JSON.stringify(ping)), { persistent: true });
      // Queued, or (the bug) handled by the consumer that stop() left running.
      await waitFor(async () => seen.length > 0 || (await ch.checkQueue(consumer.queue)).messageCount === 1, { what: 'the ping queued or handled' });
      await new Promise((r) => setTimeout(r, 1000));
      const q = await ch.checkQueue(consumer.queue);
      expect({ seen, consumers: q.consumerCount, queued: q.messageCount }).toEqual({ seen: [], consumers: 0, queued: 1 });
    } finally {
      release();
      gate.thaw();
      await consumer.stop();
      await amqp.close();
      await gate.close();
      await ch.deleteQueue(consumer.queue).catch(() => undefined);
    }
  });

  describe('consumer in batch mode with wants (inBatches over defineConsumer)', () => {
    let amqp: AmqpConnection;
    let consumer: EventConsumer;
    const QUEUE = `${SERVICE}.batched`;

    beforeAll(async () => {
      amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
      await amqp.connect();
      const spec = inBatches(
        defineConsumer('batched', (on) => {
          on(
            'test.ping',
            async (tx, data, event) => {
              await tx.query('INSERT INTO effects (event_id, note) VALUES ($1, $2)', [event.id, String(data['note'])]);
            },
            { when: (data) => data['note'] !== 'unwanted' },
          );
        }),
        { size: 10, maxWaitMs: 5 },
      );
      expect(spec.bindings).toEqual(['test.ping']);
      consumer = new EventConsumer({ queue: QUEUE, bindings: spec.bindings, pool, amqp, log, batch: spec.batch, wants: spec.wants, maxAttempts: 3, retryDelayMs: 10 });
      await consumer.start();
    });

    afterAll(async () => {
      await consumer.stop();
      await amqp.close();
    });

    const ping = noted;
    const publish = (ev: unknown) => ch.publish(`${env.namespace}domain.events`, 'test.ping', Buffer.from(JSON.stringify(ev)), { persistent: true });
    const count = async (sql: string, id: string) => (await pool.query(sql, [id])).rows[0].n as number;
    const effects = (id: string) => count('SELECT count(*)::int AS n FROM effects WHERE event_id = $1', id);
    const rows = (id: string) => count('SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1', id);

    it('when events are delivered again, in one batch or later, then each takes effect once', async () => {
      const [a, b] = [ping('batch-a'), ping('batch-b')];
      for (const ev of [a, b, a, b]) publish(ev);
      await waitFor(async () => (await effects(a.id)) === 1 && (await effects(b.id)) === 1, { what: 'batch handled' });
      // A redelivery of the whole batch after it committed (say the acks were lost).
      const fresh = await consumer.processBatch([a, b]);
      expect(fresh.size).toBe(0);
      publish(a);
      const sentinel = ping('batch-sentinel');
      publish(sentinel);
      await waitFor(async () => (await effects(sentinel.id)) === 1, { what: 'sentinel handled' });
      expect([await effects(a.id), await effects(b.id), await rows(a.id), await rows(b.id)]).toEqual([1, 1, 1, 1]);
    });

    it('when an event is not wanted, then it is acked with no transaction and the events around it still take effect', async () => {
      const [before, unwanted, after] = [ping('around-1'), ping('unwanted'), ping('around-2')];
      for (const ev of [before, unwanted, after]) publish(ev);
      await waitFor(async () => (await effects(after.id)) === 1, { what: 'later event handled' });
      expect([await effects(before.id), await effects(unwanted.id), await rows(unwanted.id)]).toEqual([1, 0, 0]);
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 0, { what: 'queue drained' });
    });
  });

  describe('consumer in batch mode with a wait of each event', () => {
    let amqp: AmqpConnection;
    let consumer: EventConsumer;
    const QUEUE = `${SERVICE}.waits`;
    /** The notes of each batch handled, in order. */
    const batches: string[][] = [];

    beforeAll(async () => {
      amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
      await amqp.connect();
      const spec = inBatches(
        defineConsumer('waits', (on) => {
          on('test.ping', async (tx, data, event) => {
            await tx.query('INSERT INTO effects (event_id, note) VALUES ($1, $2)', [event.id, String(data['note'])]);
          });
        }),
        // A lazy event alone would wait a minute; any other takes the batch along at 5 ms.
        { size: 10, maxWaitMs: (event) => (String(event.data['note']).startsWith('lazy') ? 60_000 : 5) },
      );
      const handle = spec.batch.handle;
      consumer = new EventConsumer({
        queue: QUEUE,
        bindings: spec.bindings,
        pool,
        amqp,
        log,
        wants: spec.wants,
        maxAttempts: 3,
        retryDelayMs: 10,
        batch: {
          ...spec.batch,
          handle: async (tx, events, each) => {
            batches.push(events.map((e) => String(e.data['note'])));
            await handle(tx, events, each);
          },
        },
      });
      await consumer.start();
    });

    afterAll(async () => {
      await consumer.stop();
      await amqp.close();
    });

    const event = noted;
    const publish = (ev: unknown) => ch.publish(`${env.namespace}domain.events`, 'test.ping', Buffer.from(JSON.stringify(ev)), { persistent: true });
    const effects = async (ids: string[]) => (await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[])', [ids])).rows[0].n as number;

    it('when events with a long wait are gathered, then they wait for it, and one with a short wait takes them along in its batch at once', async () => {
      const lazy = [event('lazy-1'), event('lazy-2')];
      for (const e of lazy) publish(e);
      // Delivered to the consumer (none left ready in the queue), and still not handled a while later.
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 0, { what: 'lazy events delivered' });
      await new Promise((r) => setTimeout(r, 300));
      expect(await effects(lazy.map((e) => e.id))).toBe(0);
      expect(batches).toEqual([]);
      const ping = event('ping');
      publish(ping);
      await waitFor(async () => (await effects([...lazy, ping].map((e) => e.id))) === 3, { what: 'all three handled' });
      expect(batches).toEqual([['lazy-1', 'lazy-2', 'ping']]);
    });
  });

  it('when a statement queued for the commit fails, then the transaction rolls back with its outbox rows', async () => {
    const ctx = systemContext(SERVICE, 1, 'req-at-commit');
    let id = '';
    await expect(
      withTransaction(pool, async (tx) => {
        id = (await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'at-commit' } })).id;
        await tx.query("INSERT INTO effects (event_id, note) VALUES ($1, 'at-commit')", [id]);
        expect(atCommit(tx, 'SELECT 1 / 0')).toBe(true);
      }),
    ).rejects.toThrow(/division by zero/);
    expect((await pool.query('SELECT count(*)::int AS n FROM outbox WHERE event_id = $1', [id])).rows[0].n).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = $1', [id])).rows[0].n).toBe(0);
    // Outside such a transaction nothing is queued: the caller runs it.
    expect(atCommit(pool, 'SELECT 1')).toBe(false);
    const ok = await withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'at-commit-ok' } }));
    expect((await pool.query('SELECT routing_key, payload FROM outbox WHERE event_id = $1', [ok.id])).rows).toEqual([{ routing_key: 'test.ping', payload: ok }]);
  });

  it('when a statement fails inside a transaction and its error is caught, then the commit fails too: no write answers success, and a consumer never takes such an event for handled', async () => {
    const ctx = systemContext(SERVICE, 1, 'req-swallowed');
    const id = '0190a000-0000-7000-8000-00000000abcd';
    // (With an event written, its outbox insert at the COMMIT fails already: this is a write without one.)
    await expect(
      withTransaction(pool, async (tx) => {
        await tx.query("INSERT INTO effects (event_id, note) VALUES ($1, 'swallowed')", [id]);
        await tx.query('SELECT 1 / 0').catch(() => undefined);
        return 'done';
      }),
    ).rejects.toBeInstanceOf(TransactionRolledBackError);
    expect((await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = $1', [id])).rows[0].n).toBe(0);

    // A batch whose handler drops an error: not reported handled (it would be acked with no effect
    // and no dedupe record, and be gone); the event stays unrecorded, for a retry to handle.
    const consumer = new EventConsumer({
      queue: `${SERVICE}.swallowing`,
      bindings: ['test.ping'],
      pool,
      amqp: new AmqpConnection(infra().amqpUrl, log, env.namespace),
      log,
      batch: {
        size: 10,
        maxWaitMs: 10,
        handle: async (tx, events) => {
          for (const e of events) await tx.query("INSERT INTO effects (event_id, note) VALUES ($1, 'batch')", [e.id]);
          await tx.query('SELECT 1 / 0').catch(() => undefined);
        },
      },
    });
    const event = buildEnvelope(ctx, { type: 'test.ping', accountId: 1, data: { id: 'swallowed-batch' } });
    await expect(consumer.processBatch([event])).rejects.toBeInstanceOf(TransactionRolledBackError);
    expect((await pool.query('SELECT count(*)::int AS n FROM processed_events WHERE event_id = $1', [event.id])).rows[0].n).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = $1', [event.id])).rows[0].n).toBe(0);
  });

  it('when events are written in transactions, then their outbox insert is prepared once per connection and Postgres does not plan it again for each event', async () => {
    const ctx = systemContext(SERVICE, 1, 'req-prepared-outbox');
    const c = await pool.connect();
    try {
      for (let i = 0; i < 8; i++) {
        await begin(c);
        try {
          await writeEvent(c, ctx, { type: 'test.ping', accountId: 1, data: { id: `prepared-${i}`, text: `it's "quoted" \\ ✓` } });
          await commit(c);
        } catch (err) {
          await rollback(c).catch(() => undefined);
          throw err;
        }
      }
      // Prepared by SQL (the protocol-level statement of a write outside a transaction is another).
      const { rows } = await c.query<{ generic_plans: string; custom_plans: string }>(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE from_sql AND statement LIKE 'PREPARE % AS INSERT INTO outbox %'",
      );
      expect(rows).toHaveLength(1);
      // Postgres plans the first five executions with their values, then keeps one plan for all.
      expect(Number(rows[0]?.generic_plans)).toBeGreaterThanOrEqual(3);
      const stored = await c.query("SELECT payload->'data'->>'text' AS text FROM outbox WHERE payload->'data'->>'id' = 'prepared-7'");
      expect(stored.rows).toEqual([{ text: `it's "quoted" \\ ✓` }]);
    } finally {
      c.release();
    }
  });

  it('when a transaction opens with its first statement, then that statement is in it: its result, its lock, and nothing kept if it fails', async () => {
    const ctx = systemContext(SERVICE, 1, 'req-first');
    const id = (await withTransaction(pool, (tx) => writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'first' } }))).id;
    const got = await withTransactionFrom<{ event_id: string; txid: string }, string>(
      pool,
      `SELECT event_id, txid_current()::text AS txid FROM outbox WHERE event_id = '${id}' FOR UPDATE`,
      async (tx, first) => {
        // The same transaction: the BEGIN came first, the lock is held until the commit.
        expect((await tx.query('SELECT txid_current()::text AS t')).rows[0].t).toBe(first.rows[0]?.txid);
        const other = await pool.connect();
        try {
          await other.query("SET lock_timeout = '100ms'");
          await expect(other.query('SELECT 1 FROM outbox WHERE event_id = $1 FOR UPDATE', [id])).rejects.toThrow(/lock/);
        } finally {
          other.release();
        }
        await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'first-then' } });
        return first.rows[0]?.event_id as string;
      },
    );
    expect(got).toBe(id);
    await expect(withTransactionFrom(pool, 'SELECT 1 / 0', async () => 'never')).rejects.toThrow(/division by zero/);
    let written = '';
    await expect(
      withTransactionFrom(pool, 'SELECT 1', async (tx) => {
        written = (await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'first-fails' } })).id;
        await tx.query('SELECT 1 / 0');
      }),
    ).rejects.toThrow(/division by zero/);
    expect((await pool.query('SELECT count(*)::int AS n FROM outbox WHERE event_id = $1', [written])).rows[0].n).toBe(0);
  });

  it('when statements prepared by SQL open a transaction and go with its commit, then each is prepared once per connection, runs with its values, holds its lock, and writes nothing if the transaction fails', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS prep_notes (id int PRIMARY KEY, note text, at timestamptz)');
    await pool.query("INSERT INTO prep_notes VALUES (1, 'one', NULL), (2, 'two', NULL) ON CONFLICT DO NOTHING");
    const read = sqlPrepared('SELECT id, note, pg_backend_pid() AS pid FROM prep_notes WHERE id = $1 FOR UPDATE');
    const write = sqlPrepared('UPDATE prep_notes SET note = $2, at = $3 WHERE id = $1');
    const at = new Date('2026-01-02T03:04:05.678Z');
    const quoted = `it's "quoted" \\ ✓`;
    const run = (id: number, note: string, fail = false) =>
      withTransactionFrom<{ id: number; note: string; pid: number }, number>(pool, read([id]), async (tx, first) => {
        expect(first.rows[0]?.id).toBe(id);
        const other = await pool.connect();
        try {
          await other.query("SET lock_timeout = '100ms'");
          await expect(other.query('SELECT 1 FROM prep_notes WHERE id = $1 FOR UPDATE', [id])).rejects.toThrow(/lock/);
        } finally {
          other.release();
        }
        expect(atCommit(tx, write([id, note, at]))).toBe(true);
        if (fail) await tx.query('SELECT 1 / 0');
        return first.rows[0]?.pid as number;
      });
    const pids = [await run(1, quoted), await run(2, 'second'), await run(1, 'third')];
    const { rows } = await pool.query<{ id: number; note: string; at: Date }>('SELECT id, note, at FROM prep_notes ORDER BY id');
    expect(rows).toEqual([
      { id: 1, note: 'third', at },
      { id: 2, note: 'second', at },
    ]);
    await run(2, quoted);
    expect((await pool.query('SELECT note FROM prep_notes WHERE id = 2')).rows[0].note).toBe(quoted);
    await expect(run(1, 'never', true)).rejects.toThrow(/division by zero/);
    expect((await pool.query('SELECT note FROM prep_notes WHERE id = 1')).rows[0].note).toBe('third');
    // Prepared once on each connection that ran them, whatever the failures: the next run finds them.
    // (The pool hands out its most recently used connection: the one the runs had.)
    const c = await pool.connect();
    try {
      expect(pids).toContain((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      const names = (await c.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 's\\_%'")).rows.map((r) => r.name).sort();
      // (Others too: the outbox insert, prepared on connections of this pool that wrote events.)
      expect(names).toEqual(expect.arrayContaining([read([1]).name, write([1, '', null]).name]));
    } finally {
      c.release();
    }
    await run(1, 'after the failure');
    expect((await pool.query('SELECT note FROM prep_notes WHERE id = 1')).rows[0].note).toBe('after the failure');
    // A statement made after its transaction began is prepared at the commit.
    await withTransactionFrom(pool, read([2]), async (tx) => {
      const late = sqlPrepared("UPDATE prep_notes SET note = $2 || ' (late)' WHERE id = $1");
      expect(atCommit(tx, late([2, 'made late']))).toBe(true);
    });
    expect((await pool.query('SELECT note FROM prep_notes WHERE id = 2')).rows[0].note).toBe('made late (late)');

    // A statement that no longer prepares (its column dropped under a running version) fails where
    // it is used, not every transaction a new connection of the kind begins.
    await pool.query('CREATE TABLE IF NOT EXISTS prep_gone (id int PRIMARY KEY, gone text)');
    const stale = sqlPrepared('SELECT id, gone FROM prep_gone WHERE id = $1');
    await withTransactionFrom(pool, stale([1]), async () => undefined);
    await pool.query('ALTER TABLE prep_gone DROP COLUMN gone');
    const fresh = createPool(roleUrl, SERVICE, 1);
    try {
      expect(await withTransaction(fresh, async (tx) => (await tx.query('SELECT 1 AS one')).rows[0].one)).toBe(1);
      await expect(withTransactionFrom(fresh, stale([1]), async () => undefined)).rejects.toThrow(/gone/);
      expect(await withTransaction(fresh, async (tx) => (await tx.query('SELECT 2 AS two')).rows[0].two)).toBe(2);
    } finally {
      await fresh.end();
    }
  });

  it('when writes are gathered for the commit, then they are written once at the commit, and a failing flush commits nothing', async () => {
    const ctx = systemContext(SERVICE, 1, 'req-gather');
    const flushes: string[][] = [];
    let evId = '';
    const gather = (tx: Parameters<typeof gatherForCommit>[0]) =>
      gatherForCommit(tx, 'test.notes', () => [] as string[], async (c, notes) => {
        flushes.push([...notes]);
        await c.query('INSERT INTO effects (event_id, note) SELECT $1, unnest($2::text[])', [evId, notes]);
      });
    const ev = await withTransaction(pool, async (tx) => {
      gather(tx)?.push('gathered-1');
      gather(tx)?.push('gathered-2');
      // Not written before the commit.
      expect((await tx.query("SELECT count(*)::int AS n FROM effects WHERE note LIKE 'gathered-%'")).rows[0].n).toBe(0);
      const written = await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'gather' } });
      evId = written.id;
      return written;
    });
    expect(flushes).toEqual([['gathered-1', 'gathered-2']]);
    expect((await pool.query('SELECT note FROM effects WHERE event_id = $1 ORDER BY note', [ev.id])).rows.map((r) => r.note)).toEqual(['gathered-1', 'gathered-2']);
    expect(gatherForCommit(pool, 'test.notes', () => [], async () => undefined)).toBeNull();

    let failed = '';
    await expect(
      withTransaction(pool, async (tx) => {
        failed = (await writeEvent(tx, ctx, { type: 'test.ping', accountId: 1, data: { id: 'gather-fails' } })).id;
        gatherForCommit(tx, 'test.fails', () => null, async (c) => {
          await c.query('SELECT 1 / 0');
        });
      }),
    ).rejects.toThrow(/division by zero/);
    expect((await pool.query('SELECT count(*)::int AS n FROM outbox WHERE event_id = $1', [failed])).rows[0].n).toBe(0);
  });

  describe('consumer in batch mode with several batches at once, by order key', () => {
    let amqp: AmqpConnection;
    let consumer: EventConsumer;
    const QUEUE = `${SERVICE}.concurrent`;
    /** Keys of the batches being handled, what each batch handled in order, and whether two batches ever shared a key. */
    const active = new Map<string, number>();
    const order: string[] = [];
    const overlaps: string[] = [];
    let batchesStarted = 0;
    let otherStarted: () => void = () => undefined;
    const anotherBatch = new Promise<void>((r) => (otherStarted = r));

    beforeAll(async () => {
      amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
      await amqp.connect();
      consumer = new EventConsumer({
        queue: QUEUE,
        bindings: ['test.keyed'],
        pool,
        amqp,
        log,
        maxAttempts: 3,
        retryDelayMs: 10,
        batch: {
          size: 2,
          maxWaitMs: 5,
          concurrency: 3,
          key: (e) => String(e.data['key']),
          handle: async (tx, events) => {
            const keys = [...new Set(events.map((e) => String(e.data['key'])))];
            for (const k of keys) {
              if (active.has(k)) overlaps.push(k);
              active.set(k, (active.get(k) ?? 0) + 1);
            }
            if (++batchesStarted > 1) otherStarted();
            try {
              for (const e of events) {
                // The batch of the held event waits for another batch to start: only batches side by side get past it.
                if (e.data['note'] === 'hold') await Promise.race([anotherBatch, new Promise((r) => setTimeout(r, 10_000))]);
                order.push(String(e.data['note']));
                await tx.query('INSERT INTO effects (event_id, note) VALUES ($1, $2)', [e.id, String(e.data['note'])]);
              }
            } finally {
              for (const k of keys) {
                const n = (active.get(k) ?? 1) - 1;
                if (n === 0) active.delete(k);
                else active.set(k, n);
              }
            }
          },
        },
      });
      await consumer.start();
    });

    afterAll(async () => {
      await consumer.stop();
      await amqp.close();
    });

    const ev = (key: string, note: string) => buildEnvelope(systemContext(SERVICE, 1, 'req'), { type: 'test.ping', accountId: 1, data: { id: note, key, note } });
    const publish = (body: unknown) => ch.publish(`${env.namespace}domain.events`, 'test.keyed', Buffer.from(JSON.stringify(body)), { persistent: true });

    it('when a batch waits, then batches of other keys go past it, a key is never in two batches at once, its events keep their order and each takes effect once', async () => {
      const events = [ev('a', 'hold'), ev('a', 'a-2'), ev('b', 'b-1'), ev('c', 'c-1'), ev('d', 'd-1'), ev('b', 'b-2'), ev('d', 'd-2'), ev('a', 'a-3'), ev('b', 'b-3')];
      for (const e of events) publish(e);
      // A redelivered copy of an event: the same key, so never beside the first.
      publish(events[2]);
      const ids = events.map((e) => e.id);
      await waitFor(async () => (await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[])', [ids])).rows[0].n === events.length, {
        what: 'every event handled',
      });
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 0, { what: 'queue drained' });
      // Batches ran side by side: the held one was passed (it resolved only when another batch started).
      expect(order.indexOf('hold')).toBeGreaterThan(0);
      expect(overlaps).toEqual([]);
      for (const k of ['a', 'b', 'd']) {
        const mine = order.filter((n) => n === 'hold' ? k === 'a' : n.startsWith(`${k}-`));
        expect(mine).toEqual(events.filter((e) => e.data['key'] === k).map((e) => String(e.data['note'])));
      }
      const n = await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[]) GROUP BY event_id', [ids]);
      expect(n.rows.map((r) => r.n)).toEqual(Array(events.length).fill(1));
    });
  });

  describe('consumer in batch mode: acks of a batch with a failing and a poison message among the others', () => {
    let amqp: AmqpConnection;
    let consumer: EventConsumer;
    const QUEUE = `${SERVICE}.acks`;
    const failures = new Map<string, number>();
    const metrics = new ServiceMetrics('acks');
    const duplicates = async () => (await metrics.events.get()).values.filter((v) => v.labels['outcome'] === 'duplicate').reduce((a, v) => a + v.value, 0);

    beforeAll(async () => {
      amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
      await amqp.connect();
      consumer = new EventConsumer({
        queue: QUEUE,
        bindings: ['test.acks'],
        pool,
        amqp,
        log,
        // The failing message is never dead-lettered within the test: it fails at every attempt and
        // waits for its next retry (the kernel caps the wait at 30 s, less than this test can take on a
        // loaded machine: a message that succeeded at its retry was acked before the stop, and gone).
        maxAttempts: 10,
        retryDelayMs: 60_000,
        metrics,
        // Batches of 2: at most 4 messages unacked at once, so the others' acks must not wait for it.
        batch: {
          size: 2,
          maxWaitMs: 5,
          // The failing one fails in its batch and again alone (the kernel's one-by-one pass), then waits for its retry, which fails too.
          handle: effectsOrFailing((e) => e.data['note'] === 'fails' && failures.set(e.id, (failures.get(e.id) ?? 0) + 1)),
        },
      });
      await consumer.start();
    });

    afterAll(async () => {
      await consumer.stop();
      await amqp.close();
    });

    const ev = noted;
    const publish = (body: unknown) =>
      ch.publish(`${env.namespace}domain.events`, 'test.acks', Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), { persistent: true });
    const handled = async (ids: string[]) => (await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[])', [ids])).rows[0].n as number;

    it('when they are handled, then the others take effect once, the poison one is dead-lettered and only the one waiting for its retry stays unacked', async () => {
      const oks = Array.from({ length: 12 }, (_, i) => ev(`ack-${i}`));
      const failing = ev('fails');
      publish(oks[0]);
      publish(failing);
      publish('{not json');
      for (const e of oks.slice(1)) publish(e);
      const ids = oks.map((e) => e.id);
      await waitFor(async () => (await handled(ids)) === 12, { what: 'every good message handled while one waits for its retry', timeoutMs: 15_000 });
      // A redelivered batch: the first two again, after they were handled.
      publish(oks[0]);
      publish(oks[1]);
      await waitFor(async () => (await ch.checkQueue(consumer.deadLetterQueue)).messageCount === 1, { what: 'the poison message dead-lettered' });
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 0, { what: 'queue drained' });
      // Delivered is not acked: the redelivered pair must be settled (and its acks sent, within a
      // tick) before the stop, or the stop returns one of them to the queue beside the waiting retry.
      await waitFor(async () => (await duplicates()) >= 2, { what: 'the redelivered pair settled as duplicates' });
      expect(failures.get(failing.id)).toBeGreaterThanOrEqual(1);
      // Stopping returns what is unacked to the queue: the waiting retry only.
      await consumer.stop();
      await waitFor(async () => (await ch.checkQueue(consumer.queue)).messageCount === 1, { what: 'the waiting retry back in the queue' });
      const n = await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[]) GROUP BY event_id', [ids]);
      expect(n.rows.map((r) => r.n)).toEqual(Array(12).fill(1));
      expect(await handled([failing.id])).toBe(0);
    });
  });
  describe('consumer in batch mode given bundles', () => {
    let amqp: AmqpConnection;
    let consumer: EventConsumer;
    const QUEUE = `${SERVICE}.bundles`;
    const tries = new Map<string, number>();

    beforeAll(async () => {
      amqp = new AmqpConnection(infra().amqpUrl, log, env.namespace, 60_000);
      await amqp.connect();
      consumer = new EventConsumer({
        queue: QUEUE,
        bindings: ['test.bundles'],
        pool,
        amqp,
        log,
        maxAttempts: 2,
        retryDelayMs: 10,
        // Batches of 2: a bundle of five is handled in three batches (and the failing event's
        // batch again one by one), acked once its last event is settled.
        batch: {
          size: 2,
          maxWaitMs: 5,
          handle: effectsOrFailing((e) => tries.set(e.id, (tries.get(e.id) ?? 0) + 1)),
        },
      });
      await consumer.start();
    });

    afterAll(async () => {
      await consumer.stop();
      await amqp.close();
    });

    const ev = noted;

    it('when a bundle is delivered, and again, then each event takes effect once, a failing one is retried and dead-lettered alone, and nothing stays unacked', async () => {
      const oks = Array.from({ length: 4 }, (_, i) => ev(`bundle-${i}`));
      const failing = ev('fails');
      const bundle = Buffer.from(JSON.stringify([oks[0], oks[1], failing, oks[2], oks[3]]));
      const exchange = `${env.namespace}domain.events`;
      ch.publish(exchange, 'test.bundles', bundle, { persistent: true, contentType: BUNDLE_CONTENT_TYPE });
      const ids = oks.map((e) => e.id);
      const handled = async () => (await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[])', [ids])).rows[0].n as number;
      await waitFor(async () => (await handled()) === 4, { what: 'the bundle\'s good events handled' });
      await waitFor(async () => (await ch.checkQueue(consumer.deadLetterQueue)).messageCount === 1, { what: 'the failing event dead-lettered', timeoutMs: 20_000 });
      // The same bundle again (a redelivery after a lost ack): nothing new, and its failing event,
      // handled before by no one, goes its way once more.
      const before = tries.get(oks[0]!.id);
      ch.publish(exchange, 'test.bundles', bundle, { persistent: true, contentType: BUNDLE_CONTENT_TYPE });
      await waitFor(async () => (await ch.checkQueue(consumer.deadLetterQueue)).messageCount === 2, { what: 'the failing event dead-lettered again', timeoutMs: 20_000 });
      expect(tries.get(oks[0]!.id)).toBe(before);
      const n = await pool.query('SELECT count(*)::int AS n FROM effects WHERE event_id = ANY($1::uuid[]) GROUP BY event_id', [ids]);
      expect(n.rows.map((r) => r.n)).toEqual([1, 1, 1, 1]);
      const dead = await ch.get(consumer.deadLetterQueue, { noAck: true });
      if (dead === false) throw new Error('dead letter gone');
      expect(JSON.parse(dead.content.toString())).toEqual(JSON.parse(JSON.stringify(failing)));
      // Stopping returns what is unacked to the queue: nothing (each bundle was acked with its last event).
      await consumer.stop();
      expect((await ch.checkQueue(consumer.queue)).messageCount).toBe(0);
    });
  });
});
