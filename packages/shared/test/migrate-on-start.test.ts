import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import express from 'express';
import { baseConfigSchema, bootService, loadConfig, pendingMigrations, type RunningService, type ServiceDefinition } from '@parley/shared';
import { dbUrl, infra, waitFor } from '@parley/testkit';

/**
 * Kubernetes runs migrations once per release (a Job running scripts/migrate.js) and starts the
 * services with MIGRATE_ON_START=false; each new pod waits (`migrate.js --wait`) until its
 * schema has every migration its build carries. Tested against an empty database.
 */
const ROOT = path.resolve(__dirname, '../../..');
const AUDIT_MIGRATIONS = path.join(ROOT, 'services/audit/migrations');
const probe: ServiceDefinition = { name: 'audit', migrationsDir: AUDIT_MIGRATIONS, createApp: () => express() };

describe('MIGRATE_ON_START and the migration job', () => {
  const { adminUrl, amqpUrl, redisUrl } = infra();
  const created: string[] = [];
  let url = '';
  let running: RunningService | null = null;

  /** Each test gets an empty database (no template: nothing migrated). */
  const emptyDatabase = async () => {
    const name = `parley_m_${randomBytes(5).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    created.push(name);
    return dbUrl(adminUrl, name);
  };
  const configFor = (env: Record<string, string>) =>
    loadConfig(baseConfigSchema, { DATABASE_URL: url, AMQP_URL: amqpUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'silent', NAMESPACE: `t${randomBytes(4).toString('hex')}.`, QUEUE_EXPIRES_MS: '60000', METRICS_PORT: '0', ...env });
  const tableExists = async (table: string) => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query('SELECT to_regclass($1) AS t', [table])).rows[0].t !== null;
    } finally {
      await c.end();
    }
  };
  const runScript = (args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'scripts/migrate.js'), ...args], {
        env: { ...process.env, DATABASE_URL: url, DB_ROLE_PASSWORD: 'parley-dev-role', LOG_LEVEL: 'info', MIGRATE_WAIT_INTERVAL_MS: '100' },
      });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.on('exit', (code) => resolve({ code, out }));
    });

  beforeEach(async () => {
    url = await emptyDatabase();
  });
  afterEach(async () => {
    await running?.stop();
    running = null;
  });
  afterAll(async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('when MIGRATE_ON_START is false, then the service starts without touching its schema, and the waiting pod is released once the job has migrated', async () => {
    const config = configFor({ MIGRATE_ON_START: 'false' });
    expect(config.MIGRATE_ON_START).toBe(false);
    running = await bootService(probe, config, { port: 0, host: '127.0.0.1' });
    expect(await tableExists('audit.outbox')).toBe(false);

    // An init container waiting for the release's job: still waiting while nothing is migrated.
    const waiting = runScript(['--wait', 'audit']);
    let released = false;
    void waiting.then(() => (released = true));
    await waitFor(async () => {
      const pending = await pendingMigrations({ adminUrl: url, service: 'audit', rolePassword: 'parley-dev-role', migrationsDir: AUDIT_MIGRATIONS }).catch(() => ['unreachable']);
      return pending.length > 0;
    });
    expect(released).toBe(false);

    // The job.
    const job = await runScript(['audit']);
    expect(job.code).toBe(0);
    const waited = await waiting;
    expect(waited.code).toBe(0);
    expect(waited.out).toContain('schema is up to date');
    expect(await pendingMigrations({ adminUrl: url, service: 'audit', rolePassword: 'parley-dev-role', migrationsDir: AUDIT_MIGRATIONS })).toEqual([]);
    expect(await tableExists('audit.outbox')).toBe(true);
  });

  it('when MIGRATE_ON_START is left at its default, then the service migrates itself at start-up (one machine, tests)', async () => {
    const config = configFor({});
    expect(config.MIGRATE_ON_START).toBe(true);
    expect(await tableExists('audit.processed_events')).toBe(false);
    running = await bootService(probe, config, { port: 0, host: '127.0.0.1' });
    expect(await tableExists('audit.processed_events')).toBe(true);
  });

  it('when the job is asked for a service that does not exist, then it fails and names the known ones', async () => {
    const r = await runScript(['nosuch']);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/unknown service\(s\): nosuch; known: .*gateway/);
  });
});
