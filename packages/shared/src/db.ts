import { Pool, type PoolClient, type PoolConfig, Client } from 'pg';
import type { Logger } from './logger';

export type { Pool, PoolClient };
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Executor = Pool | PoolClient;

/** The login role a service connects as; it can touch only its own schema. */
export function serviceRoleName(service: string): string {
  return `svc_${service}`;
}

/** The service's connection URL: the admin URL with the service role's credentials. */
export function serviceDatabaseUrl(adminUrl: string, service: string, password: string): string {
  const url = new URL(adminUrl);
  url.username = serviceRoleName(service);
  url.password = password;
  return url.toString();
}

/**
 * A pool whose connections may die at any moment (Postgres restarted, a backend terminated)
 * without taking the process down. pg emits `error` on the client itself when a connection
 * breaks; the pool listens only while a client is idle, so a client checked out (inside a
 * transaction awaiting broker confirms, an HTTP call) would throw an unhandled `error` event.
 * Every client gets a listener for its whole life; the query in flight still fails, and the
 * pool discards the broken client when it is released.
 */
export function createPool(connectionString: string, schema: string, max = 10, extra: PoolConfig = {}, log?: Logger): Pool {
  const pool = new Pool({
    connectionString,
    max,
    options: `-c search_path=${schema},public`,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    ...extra,
  });
  let lastLogged = 0;
  const onError = (err: Error & { code?: string }) => {
    // One line per burst: a restart breaks every connection at once.
    const now = Date.now();
    if (now - lastLogged < 5_000) return;
    lastLogged = now;
    log?.warn({ err: err.message, code: err.code }, 'postgres connection lost');
  };
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/** Runs `fn` in one transaction; commits on success, rolls back and rethrows on error. */
export async function withTransaction<T>(pool: Pool, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Creates the database named in `adminUrl` when it does not exist yet (fresh machines). */
export async function ensureDatabase(adminUrl: string): Promise<void> {
  const url = new URL(adminUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) return;
  const probe = new Client({ connectionString: adminUrl });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const maintenance = new URL(adminUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    // 42P04: it exists now; 23505: another process created it at the same moment.
    if (code !== '42P04' && code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

/**
 * Creates (idempotently, under an advisory lock so replicas can race) the service's login
 * role and its schema owned by that role, plus the extensions services rely on.
 */
export async function ensureServiceSchema(adminUrl: string, service: string, password: string, log?: Logger): Promise<void> {
  const role = serviceRoleName(service);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext('parley-bootstrap'))`);
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    const pw = password.replace(/'/g, "''");
    if (exists.rowCount === 0) await client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${pw}'`);
    else await client.query(`ALTER ROLE ${role} LOGIN PASSWORD '${pw}'`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${service} AUTHORIZATION ${role}`);
    await client.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`);
    await client.query(`CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA public`);
    // Plain columns in a GIN index beside a trigram one (conversations' account-scoped message search).
    await client.query(`CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public`);
    log?.debug({ service, role }, 'schema ready');
  } finally {
    await client.query(`SELECT pg_advisory_unlock(hashtext('parley-bootstrap'))`).catch(() => undefined);
    await client.end();
  }
}
