import { AmqpConnection, createLogger, createPool, EventConsumer, serviceDatabaseUrl, type EventEnvelope, type Pool, type PoolClient, type RunningService } from '@parley/shared';
import { createTestEnv, infra, randomAccountId, startTestService, waitFor, type TestEnv } from '@parley/testkit';
import { auditConfigSchema, auditService, type AuditConfig } from '../src';
import { ingestEvents } from '../src/audit-logs/ingest';
import { AUDITED_EVENT_TYPES } from '../src/audit-logs/mapping';
import { createBus, envelope, type TestBus } from './bus';

/*
 * The audit queue's consumer (the kernel consumer in batch mode) under stress: restarts in the middle of a backlog, two replicas
 * writing the same auditables at once, and write failures inside a batch. Checked on the
 * table itself: one row per event id, versions 1..n per auditable, counts that agree.
 */
describe('audit batch ingest', () => {
  let env: TestEnv;
  let bus: TestBus;
  let pool: Pool;

  beforeAll(async () => {
    env = await createTestEnv();
    bus = createBus(env.namespace);
    pool = createPool(serviceDatabaseUrl(env.config.DATABASE_URL, 'audit', env.config.DB_ROLE_PASSWORD), 'audit', 3);
  });
  afterAll(async () => {
    await pool?.end();
    await bus?.close();
    await env?.close();
  });

  function start(overrides: Record<string, unknown> = {}): Promise<RunningService<AuditConfig>> {
    return startTestService(auditService, auditConfigSchema.parse({ ...env.config, ...overrides }));
  }

  /** The audit queue's consumer as the service declares it, with the batch handler swapped to inject failures. */
  function consumer(amqp: AmqpConnection, o: { size: number; maxWaitMs: number; maxAttempts: number; retryDelayMs: number; write: (tx: PoolClient, batch: EventEnvelope[]) => Promise<void> }): EventConsumer {
    return new EventConsumer({
      queue: 'audit.events',
      bindings: [...AUDITED_EVENT_TYPES],
      pool,
      amqp,
      log: createLogger('audit-test', 'silent'),
      batch: { handle: o.write, size: o.size, maxWaitMs: o.maxWaitMs },
      maxAttempts: o.maxAttempts,
      retryDelayMs: o.retryDelayMs,
    });
  }

  /** `n` webhook updates spread over `auditables` webhooks of one account, in order. */
  function backlog(accountId: number, n: number, auditables: number): EventEnvelope[] {
    return Array.from({ length: n }, (_, i) =>
      envelope({ type: 'webhook.updated', accountId, data: { id: 1 + (i % auditables), url: `https://h${i}.test` }, changes: { url: [`https://h${i - 1}.test`, `https://h${i}.test`] } }),
    );
  }

  async function stats(accountId: number): Promise<{ rows: number; events: number; total: number }> {
    const r = await pool.query<{ rows: number; events: number }>('SELECT count(*)::int AS rows, count(DISTINCT event_id)::int AS events FROM audit_logs WHERE account_id = $1', [accountId]);
    const t = await pool.query<{ entries: string }>('SELECT entries FROM audit_log_counts WHERE account_id = $1', [accountId]);
    return { ...(r.rows[0] as { rows: number; events: number }), total: Number(t.rows[0]?.entries ?? 0) };
  }

  /** Every auditable of the account has versions exactly 1..count, and they follow the order events were published. */
  async function expectContiguousVersions(accountId: number): Promise<void> {
    const { rows } = await pool.query<{ auditable_id: string; n: number; lo: number; hi: number; distinct_versions: number }>(
      `SELECT auditable_id, count(*)::int AS n, min(version) AS lo, max(version) AS hi, count(DISTINCT version)::int AS distinct_versions
         FROM audit_logs WHERE account_id = $1 GROUP BY auditable_id`,
      [accountId],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect({ id: r.auditable_id, lo: r.lo, hi: r.hi, distinct: r.distinct_versions }).toEqual({ id: r.auditable_id, lo: 1, hi: r.n, distinct: r.n });
    const { rows: last } = await pool.query<{ auditable_id: string; last_version: number; n: number }>(
      `SELECT v.auditable_id, v.last_version, (SELECT count(*)::int FROM audit_logs l WHERE l.account_id = v.account_id AND l.auditable_type = v.auditable_type AND l.auditable_id = v.auditable_id) AS n
         FROM audit_log_versions v WHERE v.account_id = $1`,
      [accountId],
    );
    for (const r of last) expect(r.last_version).toBe(r.n);
  }

  it('when the service is stopped in the middle of a backlog and started again, then every event yields exactly one entry', async () => {
    const accountId = randomAccountId();
    const events = backlog(accountId, 1500, 30);
    // Small batches so a stop very likely falls between (or inside) them.
    let svc = await start({ AUDIT_BATCH_SIZE: 40, AUDIT_BATCH_WAIT_MS: 5 });
    try {
      await bus.publish(...events);
      await waitFor(async () => (await stats(accountId)).rows > 0, { what: 'first entries' });
      await svc.stop();
      const partial = await stats(accountId);
      expect(partial.rows).toBe(partial.events);
      svc = await start({ AUDIT_BATCH_SIZE: 40, AUDIT_BATCH_WAIT_MS: 5 });
      await waitFor(async () => (await stats(accountId)).rows === events.length, { what: 'all entries', timeoutMs: 60_000 });
      // Everything is in; a replay of the whole backlog changes nothing.
      await bus.publish(...events.slice(0, 200));
      const marker = envelope({ type: 'webhook.created', accountId, data: { id: 9999, url: 'https://m.test' } });
      await bus.publish(marker);
      await waitFor(async () => (await stats(accountId)).rows === events.length + 1, { what: 'marker' });
      expect(await stats(accountId)).toEqual({ rows: events.length + 1, events: events.length + 1, total: events.length + 1 });
      await expectContiguousVersions(accountId);
    } finally {
      await svc.stop();
    }
  });

  it('when two replicas ingest events for the same auditables at once, then versions are still 1..n per auditable', async () => {
    const accountId = randomAccountId();
    const a = await start({ AUDIT_BATCH_SIZE: 25, AUDIT_BATCH_WAIT_MS: 2 });
    const b = await start({ AUDIT_BATCH_SIZE: 25, AUDIT_BATCH_WAIT_MS: 2 });
    try {
      const events = backlog(accountId, 600, 4);
      await bus.publish(...events);
      await waitFor(async () => (await stats(accountId)).rows === events.length, { what: 'all entries', timeoutMs: 60_000 });
      expect(await stats(accountId)).toEqual({ rows: events.length, events: events.length, total: events.length });
      await expectContiguousVersions(accountId);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('when writing one event of a batch fails, then the rest of the batch lands at once and that event lands on a retry, once', async () => {
    const accountId = randomAccountId();
    const events = backlog(accountId, 30, 3);
    const flaky = events[7] as EventEnvelope;
    let failures = 0;
    const write = async (tx: PoolClient, batch: EventEnvelope[]) => {
      if (batch.some((e) => e.id === flaky.id) && failures < 2) {
        failures += 1;
        throw new Error('transient failure');
      }
      await ingestEvents(tx, batch);
    };
    const amqp = new AmqpConnection(infra().amqpUrl, createLogger('audit-test', 'silent'), env.namespace, env.config.QUEUE_EXPIRES_MS);
    const ingest = consumer(amqp, { size: 50, maxWaitMs: 20, maxAttempts: 5, retryDelayMs: 20, write });
    try {
      await amqp.connect();
      await ingest.start();
      await bus.publish(...events);
      await waitFor(async () => (await stats(accountId)).rows === events.length, { what: 'all entries' });
      expect(failures).toBe(2);
      expect(await stats(accountId)).toEqual({ rows: 30, events: 30, total: 30 });
      const { rows } = await pool.query('SELECT version FROM audit_logs WHERE event_id = $1', [flaky.id]);
      expect(rows).toHaveLength(1);
      await expectContiguousVersions(accountId);
    } finally {
      await ingest.stop();
      await amqp.close();
    }
  });

  it('when one event keeps failing, then it is dead-lettered after the last attempt and the others are recorded', async () => {
    const accountId = randomAccountId();
    const events = backlog(accountId, 10, 2);
    const doomed = events[3] as EventEnvelope;
    let attempts = 0;
    const write = async (tx: PoolClient, batch: EventEnvelope[]) => {
      if (batch.some((e) => e.id === doomed.id)) {
        attempts += 1;
        throw new Error('always fails');
      }
      await ingestEvents(tx, batch);
    };
    const amqp = new AmqpConnection(infra().amqpUrl, createLogger('audit-test', 'silent'), env.namespace, env.config.QUEUE_EXPIRES_MS);
    const ingest = consumer(amqp, { size: 50, maxWaitMs: 20, maxAttempts: 3, retryDelayMs: 10, write });
    try {
      await amqp.connect();
      await ingest.start();
      const deadBefore = await bus.messageCount('audit.events.dead');
      await bus.publish(...events);
      await waitFor(async () => (await bus.messageCount('audit.events.dead')) === deadBefore + 1, { what: 'dead letter' });
      await waitFor(async () => (await stats(accountId)).rows === 9, { what: 'the other entries' });
      // Once in the batch (which then split) and then alone until the attempts ran out.
      expect(attempts).toBe(4);
      const { rows } = await pool.query('SELECT 1 FROM audit_logs WHERE event_id = $1', [doomed.id]);
      expect(rows).toHaveLength(0);
    } finally {
      await ingest.stop();
      await amqp.close();
    }
  });
});
