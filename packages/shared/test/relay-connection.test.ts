import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import express from 'express';
import { baseConfigSchema, bootService, loadConfig, type RunningService, type ServiceDefinition } from '@parley/shared';
import { dbUrl, infra, waitFor } from '@parley/testkit';

/**
 * The outbox relay has a connection of its own (bootService): its claim holds a connection while it
 * waits for the broker's confirms, and on the service's pool it queued behind the requests (under
 * load the wait for the pool was most of a claim's time). With every connection of the pool taken,
 * events are still published.
 */
const ROOT = path.resolve(__dirname, '../../..');
const probe: ServiceDefinition = { name: 'audit', migrationsDir: path.join(ROOT, 'services/audit/migrations'), createApp: () => express() };

describe('the outbox relay and the service pool', () => {
  const { adminUrl, amqpUrl, redisUrl } = infra();
  const name = `parley_r_${randomBytes(5).toString('hex')}`;
  const url = dbUrl(adminUrl, name);
  let running: RunningService | null = null;

  beforeAll(async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
  });
  afterAll(async () => {
    await running?.stop();
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('when every connection of the pool is taken, then an event committed meanwhile is still published', async () => {
    const config = loadConfig(baseConfigSchema, {
      DATABASE_URL: url,
      AMQP_URL: amqpUrl,
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'silent',
      NAMESPACE: `t${randomBytes(4).toString('hex')}.`,
      QUEUE_EXPIRES_MS: '60000',
      METRICS_PORT: '0',
      DB_POOL_MAX: '1',
      KERNEL_PRUNE_INTERVAL_MS: '0',
    });
    running = await bootService(probe, config, { port: 0, host: '127.0.0.1' });
    const pool = running.deps.pool;
    // The pool's only connection, held for the whole test (a pool of 1 waits 5 s for it, then fails).
    const held = await pool.connect();
    const writer = new Client({ connectionString: url });
    await writer.connect();
    try {
      expect(pool.totalCount).toBe(1);
      const id = randomUUID();
      await writer.query(`INSERT INTO audit.outbox (event_id, routing_key, payload) VALUES ($1, 'test.relay_connection', '{}')`, [id]);
      await writer.query(`SELECT pg_notify('outbox_audit', '')`);
      const published = async () => ((await writer.query('SELECT published_at FROM audit.outbox WHERE event_id = $1', [id])).rows[0]?.published_at ?? null) !== null;
      // A relay on the pool never gets its connection while the test holds it (it waits, times out
      // after 5 s and tries again), so this fails with one however long it waits.
      await waitFor(published, { timeoutMs: 15_000, what: 'the event published while the pool is taken' });
      expect(pool.waitingCount).toBe(0);
      // The relay's connection is its own kind (named), apart from the pool's.
      const names = (await writer.query(`SELECT application_name FROM pg_stat_activity WHERE datname = $1 AND usename = 'svc_audit'`, [name])).rows.map((r) => r.application_name);
      expect(names).toContain('audit-relay');
    } finally {
      held.release();
      await writer.end();
    }
    // Stopping ends the relay's connection too: nothing of the service is left connected.
    await running.stop();
    running = null;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await waitFor(async () => (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [name])).rows[0].n === 0, {
        timeoutMs: 10_000,
        what: 'no connection left to the database after stop',
      });
    } finally {
      await admin.end();
    }
  });
});
