import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createLogger, createPool, KernelPruner, migrateService, pruneKernelTables, ServiceMetrics, serviceDatabaseUrl, type Pool } from '../src';
import { createTestEnv, waitFor, type TestEnv } from '@parley/testkit';

const log = createLogger('retention-test', 'silent');
const SERVICE = 'retentiontest';
const RETENTION = { outboxHours: 72, processedEventsHours: 168 };

describe('kernel retention: the outbox and processed_events against real Postgres', () => {
  let env: TestEnv;
  let pool: Pool;

  beforeAll(async () => {
    env = await createTestEnv();
    await migrateService({ adminUrl: env.db.url, service: SERVICE, rolePassword: env.config.DB_ROLE_PASSWORD, migrationsDir: '/nonexistent', log });
    pool = createPool(serviceDatabaseUrl(env.db.url, SERVICE, env.config.DB_ROLE_PASSWORD), SERVICE, 3);
    // A service's own timed table (as conversations' command_receipts).
    await pool.query('CREATE TABLE receipts (key text PRIMARY KEY, created_at timestamptz NOT NULL)');
    await pool.query('CREATE INDEX ON receipts (created_at)');
  });

  beforeEach(async () => {
    await pool.query('TRUNCATE outbox, processed_events, receipts');
  });

  afterAll(async () => {
    await pool?.end();
    await env?.close();
  });

  /** An outbox row written `ageHours` ago, published `publishedHoursAgo` ago (null: not yet). */
  async function outboxRow(note: string, ageHours: number, publishedHoursAgo: number | null): Promise<void> {
    await pool.query(
      `INSERT INTO outbox (event_id, routing_key, payload, created_at, published_at)
       VALUES ($1, 'label.created', $2, now() - $3 * interval '1 hour', now() - $4 * interval '1 hour')`,
      [randomUUID(), JSON.stringify({ note }), ageHours, publishedHoursAgo],
    );
  }

  async function processed(consumer: string, ageHours: number): Promise<void> {
    await pool.query(`INSERT INTO processed_events (event_id, consumer, processed_at) VALUES ($1, $2, now() - $3 * interval '1 hour')`, [randomUUID(), consumer, ageHours]);
  }

  const outboxNotes = async () => (await pool.query<{ note: string }>(`SELECT payload->>'note' AS note FROM outbox ORDER BY id`)).rows.map((r) => r.note);
  const processedConsumers = async () => (await pool.query<{ consumer: string }>('SELECT consumer FROM processed_events ORDER BY processed_at')).rows.map((r) => r.consumer);

  it('when rows are past their retention, then only published outbox rows and dedupe records older than it go, in batches, and nothing else', async () => {
    // Oldest first: a row the broker never took (kept however old), published ones past the
    // retention on both sides of it, one published just inside it, and new ones.
    await outboxRow('old-published-1', 200, 199);
    await outboxRow('stuck-unpublished', 200, null);
    await outboxRow('old-published-2', 190, 189);
    await outboxRow('old-published-3', 180, 179);
    await outboxRow('old-published-4', 100, 73);
    await outboxRow('inside-retention', 100, 71);
    await outboxRow('new-published', 1, 0);
    await outboxRow('new-unpublished', 0, null);
    for (const age of [400, 300, 200, 169]) await processed(`old-${age}`, age);
    for (const age of [167, 24, 0]) await processed(`kept-${age}`, age);

    // Batches of two: the loop goes on past batches that delete fewer than they read.
    const pruned = await pruneKernelTables(pool, RETENTION, { batch: 2 });

    expect(pruned).toEqual({ outbox: 4, processed_events: 4 });
    expect(await outboxNotes()).toEqual(['stuck-unpublished', 'inside-retention', 'new-published', 'new-unpublished']);
    expect(await processedConsumers()).toEqual(['kept-167', 'kept-24', 'kept-0']);
    // Once done, another run finds nothing.
    expect(await pruneKernelTables(pool, RETENTION, { batch: 2 })).toEqual({ outbox: 0, processed_events: 0 });
  });

  it('when a run has more to delete than its batches hold, then it stops there and the next run goes on', async () => {
    for (let i = 0; i < 5; i++) await processed(`old-${i}`, 200 + i);
    await processed('kept', 1);
    expect(await pruneKernelTables(pool, RETENTION, { batch: 2, maxBatches: 1 })).toEqual({ outbox: 0, processed_events: 2 });
    expect((await processedConsumers()).length).toBe(4);
    expect(await pruneKernelTables(pool, RETENTION, { batch: 2 })).toEqual({ outbox: 0, processed_events: 3 });
    expect(await processedConsumers()).toEqual(['kept']);
  });

  it('when dedupe records share one time (a batch insert) across a batch boundary, then one run deletes them all', async () => {
    const ids = Array.from({ length: 5 }, () => randomUUID());
    await pool.query(`INSERT INTO processed_events (event_id, consumer, processed_at) SELECT id, 'batch', now() - interval '200 hours' FROM unnest($1::uuid[]) id`, [ids]);
    await processed('kept', 1);
    expect(await pruneKernelTables(pool, RETENTION, { batch: 2 })).toEqual({ outbox: 0, processed_events: 5 });
    expect(await processedConsumers()).toEqual(['kept']);
  });

  it('when the session writes times in another style and zone, then the batches still follow each other', async () => {
    for (let i = 0; i < 5; i++) await processed(`old-${i}`, 200 + i);
    const client = new Client({ connectionString: serviceDatabaseUrl(env.db.url, SERVICE, env.config.DB_ROLE_PASSWORD) });
    await client.connect();
    try {
      // Postgres's own text of a time here reads "IST", which it takes back as Israel's time.
      await client.query(`SET search_path = ${SERVICE}; SET DateStyle = 'German'; SET TimeZone = 'Asia/Kolkata'`);
      expect(await pruneKernelTables(client as unknown as Pool, RETENTION, { batch: 2 })).toEqual({ outbox: 0, processed_events: 5 });
    } finally {
      await client.end();
    }
  });

  it('when the run is told to stop, then it ends between two batches; when one table fails, then the others are pruned, their batches counted, and the run fails', async () => {
    for (let i = 0; i < 5; i++) await processed(`old-${i}`, 200 + i);
    let asked = 0;
    // Asked before each statement: the outbox's one batch, one batch of processed_events, then stop.
    expect(await pruneKernelTables(pool, RETENTION, { batch: 2, stopping: () => asked++ >= 2 })).toEqual({ outbox: 0, processed_events: 2 });
    expect((await processedConsumers()).length).toBe(3);

    await outboxRow('old', 100, 99);
    await pool.query(`INSERT INTO receipts (key, created_at) VALUES ('old', now() - interval '2 days')`);
    const counted: Array<[string, number]> = [];
    // The failing table comes before a good one: that one is pruned all the same.
    const tables = [{ table: 'no_such_table', column: 'created_at', hours: 1 }, { table: 'receipts', column: 'created_at', hours: 24 }];
    const run = pruneKernelTables(pool, RETENTION, { batch: 2, onBatch: (t, n) => counted.push([t, n]) }, tables);
    await expect(run).rejects.toThrow(/no_such_table/);
    expect(await outboxNotes()).toEqual([]);
    expect(await processedConsumers()).toEqual([]);
    expect((await pool.query('SELECT 1 FROM receipts')).rows).toEqual([]);
    expect(counted).toEqual([['outbox', 1], ['outbox', 0], ['processed_events', 2], ['processed_events', 1], ['receipts', 1]]);
  });

  it('when the worker is stopped in the middle of a run, then the run ends at the next batch and the rest waits', async () => {
    await pool.query(`INSERT INTO processed_events (event_id, consumer, processed_at) SELECT gen_random_uuid(), 'many', now() - interval '200 hours' FROM generate_series(1, 3000)`);
    const count = async () => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM processed_events')).rows[0]!.n);
    const pruner = new KernelPruner({ pool, log }, RETENTION, 10, [], { batch: 1, maxBatches: 100_000 });
    pruner.start();
    await waitFor(async () => (await count()) < 3000, { intervalMs: 10 });
    await pruner.stop();
    const left = await count();
    expect(left).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(await count()).toBe(left);
  });

  it("when a service names a timed table of its own, then its rows past their own retention go with the kernel tables' rows, and the rest stay", async () => {
    for (const [key, age] of [['old-1', 30], ['old-2', 25], ['old-3', 24.5], ['kept-1', 23.5], ['kept-2', 0]] as const) {
      await pool.query(`INSERT INTO receipts (key, created_at) VALUES ($1, now() - $2 * interval '1 hour')`, [key, age]);
    }
    await processed('old', 200);
    const pruned = await pruneKernelTables(pool, RETENTION, { batch: 2 }, [{ table: 'receipts', column: 'created_at', hours: 24 }]);
    expect(pruned).toEqual({ outbox: 0, processed_events: 1, receipts: 3 });
    expect((await pool.query<{ key: string }>('SELECT key FROM receipts ORDER BY created_at')).rows.map((r) => r.key)).toEqual(['kept-1', 'kept-2']);
  });

  it('when the pruner runs as a worker, then it prunes on its interval and counts what it deleted', async () => {
    await outboxRow('old', 100, 99);
    await processed('old', 200);
    await processed('kept', 1);
    await pool.query(`INSERT INTO receipts (key, created_at) VALUES ('old', now() - interval '2 days')`);
    const metrics = new ServiceMetrics(SERVICE);
    const pruner = new KernelPruner({ pool, log, metrics }, RETENTION, 50, [{ table: 'receipts', column: 'created_at', hours: 24 }]);
    pruner.start();
    try {
      await waitFor(async () => (await outboxNotes()).length === 0 && (await processedConsumers()).length === 1 && (await pool.query('SELECT 1 FROM receipts')).rows.length === 0);
    } finally {
      await pruner.stop();
    }
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/parley_kernel_pruned_rows_total\{table="outbox",service="retentiontest"\} 1/);
    expect(text).toMatch(/parley_kernel_pruned_rows_total\{table="processed_events",service="retentiontest"\} 1/);
    expect(text).toMatch(/parley_kernel_pruned_rows_total\{table="receipts",service="retentiontest"\} 1/);
  });
});
