import path from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import { Client } from 'pg';
import { runner } from 'node-pg-migrate';
import type { Logger } from './logger';
import { ensureDatabase, ensureServiceSchema, serviceDatabaseUrl } from './db';

/** The kernel's own tables (outbox, processed_events), installed into every service schema. */
export const KERNEL_MIGRATIONS_DIR = path.resolve(__dirname, '..', 'migrations');

export interface MigrateOptions {
  adminUrl: string;
  service: string;
  rolePassword: string;
  /** The service's own forward-only SQL migrations. */
  migrationsDir: string;
  log?: Logger;
}

/**
 * Brings a service's schema up to date: database, role and schema first (as admin), then
 * the kernel and the service migrations, run as the service role so it owns what it creates.
 */
export async function migrateService(opts: MigrateOptions): Promise<void> {
  await ensureDatabase(opts.adminUrl);
  await ensureServiceSchema(opts.adminUrl, opts.service, opts.rolePassword, opts.log);
  const client = new Client({ connectionString: serviceDatabaseUrl(opts.adminUrl, opts.service, opts.rolePassword) });
  await client.connect();
  const log = (msg: string) => opts.log?.debug({ service: opts.service }, msg);
  // node-pg-migrate's own lock is one try-lock for the whole database, so services (or
  // replicas) migrating at once would fail. Ours waits, and is per service.
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`parley-migrate-${opts.service}`]);
  try {
    const runs: Array<[string, string]> = [[KERNEL_MIGRATIONS_DIR, 'kernel_migrations']];
    if (existsSync(opts.migrationsDir)) runs.push([opts.migrationsDir, 'migrations']);
    for (const [dir, table] of runs) {
      await runner({
        dbClient: client,
        dir,
        direction: 'up',
        migrationsTable: table,
        schema: opts.service,
        migrationsSchema: opts.service,
        checkOrder: true,
        singleTransaction: true,
        noLock: true,
        log,
        // Our files are numbered (001_x.sql), not timestamped; the runner says so at error level.
        logger: { debug: log, info: log, warn: log, error: (m: string) => (m.startsWith("Can't determine timestamp") ? log(m) : opts.log?.error({ service: opts.service }, m)) },
      });
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`parley-migrate-${opts.service}`]).catch(() => undefined);
    await client.end();
  }
}

/** Migration names (file names without extension) in a directory, as node-pg-migrate records them. */
function migrationNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.(sql|js|cjs|ts)$/.test(f))
    .map((f) => f.replace(/\.[^.]+$/, ''))
    .sort();
}

/**
 * The kernel and service migrations not yet applied to a service's schema, read as the service
 * role (no owner credentials needed). A release's pods wait on this (`scripts/migrate.js --wait`)
 * while the release's migration job runs, since they start with MIGRATE_ON_START off.
 */
export async function pendingMigrations(opts: Omit<MigrateOptions, 'log'>): Promise<string[]> {
  const client = new Client({ connectionString: serviceDatabaseUrl(opts.adminUrl, opts.service, opts.rolePassword) });
  await client.connect();
  try {
    const pending: string[] = [];
    for (const [dir, table] of [[KERNEL_MIGRATIONS_DIR, 'kernel_migrations'], [opts.migrationsDir, 'migrations']] as const) {
      const exists = await client.query('SELECT to_regclass($1) AS t', [`${opts.service}.${table}`]);
      const applied = new Set<string>();
      if (exists.rows[0]?.t) {
        const { rows } = await client.query<{ name: string }>(`SELECT name FROM "${opts.service}"."${table}"`);
        for (const r of rows) applied.add(r.name);
      }
      for (const name of migrationNames(dir)) if (!applied.has(name)) pending.push(`${table === 'migrations' ? opts.service : 'kernel'}/${name}`);
    }
    return pending;
  } finally {
    await client.end().catch(() => undefined);
  }
}
