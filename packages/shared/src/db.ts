import { createHash } from 'node:crypto';
import { Pool, type PoolClient, type PoolConfig, type QueryConfig, type QueryResult, type QueryResultRow, Client } from 'pg';
import type { Logger } from './logger';
import { pgTypes } from './pg-types';
import { installPgPatches } from './pg-patches';

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
  // Two slow paths of pg replaced (pg-patches.ts: row templates, query config copies), for every client of the process.
  installPgPatches();
  const pool = new Pool({
    connectionString,
    max,
    options: `-c search_path=${schema},public`,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    types: pgTypes,
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

/**
 * A statement prepared once per connection (a named statement): later runs skip Postgres's
 * parse and analysis and most of the protocol's round of messages, which for the one-row
 * statements every event runs (outbox, processed_events) is about half their cost on both
 * sides. For hot statements with fixed text only, never `SELECT *` or `RETURNING *` (a
 * migration that adds a column would change a prepared statement's result type, which
 * Postgres refuses on connections that prepared it; so would a migration that changes the type
 * of a column such a statement returns: that needs its services restarted; and one that drops a
 * column a statement names needs a release that no longer names it first, expand then contract:
 * `columnsOf` lists, held to the row types, let a row type lose a field before its table does), and only where one
 * plan fits every parameter (a primary-key lookup, an insert). Postgres makes custom plans for
 * the first five runs and keeps a generic one only if it costs no more: the parse is always saved,
 * the planning usually.
 *
 *     const insertOutbox = prepared('INSERT INTO outbox (event_id, routing_key, payload) VALUES ($1, $2, $3)');
 *     await tx.query(insertOutbox([id, type, json]));
 */
export function prepared(text: string): (values: unknown[]) => QueryConfig {
  const name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  return (values) => ({ name, text, values });
}

/**
 * A condition true of every non-null integer (`column BETWEEN -(2^63 - 1) AND 2^63 - 1`), for a
 * prepared statement that joins the rows of an `unnest` of its array parameters (a batch's
 * conversations, a message's copies). Postgres takes an `unnest` of a parameter for ten rows when
 * it plans without the parameters' values (the generic plan), where these bring one to three:
 * every lookup joined to it then weighs ten times. After five runs with custom plans Postgres keeps
 * the generic plan only while its estimated cost is below the custom plans' average (planning
 * included), so such a statement was planned again at every run, for good (on the large benchmark
 * account: 0.18 ms of planning a message insert with its copies, against 0.27 of executing it). A
 * range with both ends on a column with no statistics is estimated to keep 0.5% of the rows: the
 * generic plan then expects one row, costs less than the custom ones, and is kept. The same plan
 * either way, planned once per connection.
 */
export function fewRows(column: string): string {
  return `${column} BETWEEN -9223372036854775807 AND 9223372036854775807`;
}

/**
 * A row type's columns for a statement's select list (prepared statements name their columns,
 * never `*`): `columnsOf<ContactRow>({ id: true, name: true, ... })` is `'id, name, ...'`, and the
 * compiler refuses a field the type lacks or a missing one, so list and row type agree; a test
 * holds the list to the table.
 */
export function columnsOf<Row>(fields: { [K in keyof Required<Row>]: true }): string {
  return Object.keys(fields).join(', ');
}

/** A value of an `EXECUTE`: an integer or a number, text (escaped here), a time, or NULL. */
export type SqlValue = number | string | Date | boolean | null;

/** One run of a statement prepared by SQL (`sqlPrepared`): its `PREPARE` and its `EXECUTE`. */
export interface SqlPrepared {
  readonly name: string;
  readonly prepare: string;
  readonly execute: string;
}

/** The SQL-prepared statements each connection holds (a connection's are its own; a new connection, none). */
const preparedBySql = new WeakMap<PoolClient, Set<string>>();
/**
 * The statements prepared so far on some connection of each kind (role, database, options and
 * application name: one pool's connections, which resolve the statements' tables alike), by name:
 * a transaction's BEGIN prepares the ones its connection lacks. By kind, not per process: tests run
 * several services in one process, and one's statements name tables another's role cannot see.
 */
const knownBySql = new Map<string, Map<string, string>>();

function kindOf(client: PoolClient): string {
  const p = (client as unknown as { connectionParameters?: { user?: string; database?: string; options?: string; application_name?: string } }).connectionParameters;
  return `${p?.user ?? ''}@${p?.database ?? ''}/${p?.options ?? ''}/${p?.application_name ?? ''}`;
}

/**
 * A string as an SQL literal: the same text as pg's `escapeLiteral` (quotes doubled; with a
 * backslash, an `E''` string with backslashes doubled), by two native replaces instead of its
 * loop over each character: 0.2 against 10 µs for an event's 1.3 KB outbox payload.
 */
export function escapeLiteral(s: string): string {
  const quoted = s.replace(/'/g, "''");
  return s.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

function literal(v: SqlValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`not a finite number: ${v}`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return escapeLiteral(v instanceof Date ? v.toISOString() : v);
}

/**
 * A statement prepared by SQL (`PREPARE`, once per connection) and run as `EXECUTE name(...)`
 * text: for the statements that travel in one message with a BEGIN (`begin`'s `first`) or a
 * COMMIT (`atCommit`), which the extended protocol's named statements (`prepared`) cannot join.
 * Postgres then parses and plans them once per connection instead of on every run (for a
 * conversation's lock and its update at commit, a table of fifteen indexes, about a quarter of
 * the transaction's Postgres time). Parameter types come from the text's context (`$1` compared
 * with an integer column is an integer). The same rules as `prepared`: fixed text, named
 * columns (never `*`), one plan for every value; a pooler in front must be in session mode.
 *
 *     const lock = sqlPrepared('SELECT id, status FROM conversations WHERE account_id = $1 AND display_id = $2 FOR UPDATE');
 *     await begin(client, lock([accountId, displayId]));
 */
export function sqlPrepared(text: string): (values: readonly SqlValue[]) => SqlPrepared {
  // Not the `p_` names of `prepared`: SQL and protocol prepared statements share one namespace.
  const name = `s_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  const prepare = `PREPARE ${name} AS ${text}`;
  return (values) => ({ name, prepare, execute: `EXECUTE ${name}(${values.map(literal).join(', ')})` });
}

/** Prepares `stmt` on `client` unless it is already (a query of its own, once per connection). */
async function ensurePrepared(client: PoolClient, stmt: SqlPrepared): Promise<void> {
  let names = preparedBySql.get(client);
  if (!names) preparedBySql.set(client, (names = new Set()));
  if (names.has(stmt.name)) return;
  await client.query(stmt.prepare);
  names.add(stmt.name);
  const kind = kindOf(client);
  let known = knownBySql.get(kind);
  if (!known) knownBySql.set(kind, (known = new Map()));
  known.set(stmt.name, stmt.prepare);
}

/**
 * Before a transaction: prepares on `client` every statement that connections of its kind have
 * prepared and it lacks (once per connection and statement), so that one queued for the COMMIT
 * needs no round trip of its own inside the transaction, while it holds its locks.
 */
async function prepareKnown(client: PoolClient): Promise<void> {
  const known = knownBySql.get(kindOf(client));
  if (!known) return;
  let names = preparedBySql.get(client);
  if (!names) preparedBySql.set(client, (names = new Set()));
  if (names.size >= known.size) return;
  for (const [name, prepare] of known) {
    if (names.has(name)) continue;
    try {
      await client.query(prepare);
      names.add(name);
    } catch {
      // One that no longer prepares (a column gone under an old version) fails where it is used,
      // not every transaction of the connection: it is left for `ensurePrepared` to try there.
      known.delete(name);
    }
  }
}

/** What open transactions do at their COMMIT: gathered work to write first, then statements sent with it. */
interface AtCommit {
  sql: Array<string | SqlPrepared>;
  gathered: Map<string, { state: unknown; flush: (tx: PoolClient, state: never) => Promise<void> }>;
  /** Run once each after the COMMIT succeeded (`afterCommit`; created by its first call). */
  after?: Set<() => void>;
}
const beforeCommit = new WeakMap<PoolClient, AtCommit>();

/**
 * Opens a transaction on `client` whose COMMIT (`commit`) may carry statements queued with
 * `atCommit`: they run first, in the same round trip. Used by `withTransaction` and the
 * consumer kit; a transaction opened any other way runs its statements at once.
 *
 * `first`: the transaction's first statement (complete SQL, values already literals:
 * `escapeLiteral`, or integers the caller checked), sent with the BEGIN in one message, a round
 * trip fewer; its result is returned. If it fails, the transaction is aborted: roll it back.
 */
export async function begin(client: PoolClient): Promise<void>;
export async function begin<R extends QueryResultRow = QueryResultRow>(client: PoolClient, first: string | SqlPrepared): Promise<QueryResult<R>>;
export async function begin(client: PoolClient, first?: string | SqlPrepared): Promise<QueryResult | void> {
  // Before the transaction (PREPARE is not transactional, and its failure must not abort one).
  await prepareKnown(client);
  if (first === undefined) {
    beforeCommit.set(client, { sql: [], gathered: new Map() });
    await client.query('BEGIN');
    return;
  }
  if (typeof first !== 'string') await ensurePrepared(client, first);
  beforeCommit.set(client, { sql: [], gathered: new Map() });
  // Several statements in one simple query answer one result each: BEGIN's, then `first`'s.
  const results = (await client.query(`BEGIN;\n${typeof first === 'string' ? first : first.execute}`)) as unknown as QueryResult[];
  return results[results.length - 1] as QueryResult;
}

/**
 * Queues a statement (complete SQL, values already literals: `escapeLiteral`) to run just
 * before the transaction's COMMIT, in the same message to Postgres: one round trip fewer for
 * writes that end a transaction whatever it did (the outbox insert). If it fails, the COMMIT
 * in that message does not run and the transaction rolls back, as if it had failed at once.
 * Returns false when `tx` is not in such a transaction (the caller runs it itself). Not for
 * transactions with savepoints: a statement queued before a ROLLBACK TO SAVEPOINT would still run.
 */
export function atCommit(tx: Executor, sql: string | SqlPrepared): boolean {
  const queued = beforeCommit.get(tx as PoolClient);
  if (!queued) return false;
  queued.sql.push(sql);
  return true;
}

/**
 * State gathered over a transaction and written once just before its COMMIT: the many small
 * writes of a consumer batch's events in one statement (contacts' last activity, say). The
 * first call for `key` in a transaction creates the state, later ones get the same; `flush`
 * runs at commit (before what `atCommit` queued), and if it throws nothing commits. Returns
 * null when `tx` is not in a transaction of `withTransaction` or the consumer kit (write at once).
 * Only for writes nothing in the transaction reads back before its end.
 */
export function gatherForCommit<T>(tx: Executor, key: string, create: () => T, flush: (tx: PoolClient, state: T) => Promise<void>): T | null {
  const at = beforeCommit.get(tx as PoolClient);
  if (!at) return null;
  let entry = at.gathered.get(key);
  if (!entry) {
    entry = { state: create(), flush: flush as (tx: PoolClient, state: never) => Promise<void> };
    at.gathered.set(key, entry);
  }
  return entry.state as T;
}

/**
 * Calls `fn` once the transaction of `tx` has committed (never if it rolls back; once however
 * often the same `fn` is given). Returns false when `tx` is not in a transaction of
 * `withTransaction` or the consumer kit (the caller cannot know when it commits). For work that
 * must only follow a commit and cannot fail: waking a local worker, say.
 */
export function afterCommit(tx: Executor, fn: () => void): boolean {
  const at = beforeCommit.get(tx as PoolClient);
  if (!at) return false;
  (at.after ??= new Set()).add(fn);
  return true;
}

/** Commits a transaction opened with `begin`, running what `atCommit` queued first and what `afterCommit` asked for after. */
export async function commit(client: PoolClient): Promise<void> {
  const at = beforeCommit.get(client);
  for (const { state, flush } of at?.gathered.values() ?? []) await flush(client, state as never);
  beforeCommit.delete(client);
  const queued = at?.sql ?? [];
  // A statement this connection has not prepared yet is prepared first (once per connection).
  for (const q of queued) if (typeof q !== 'string') await ensurePrepared(client, q);
  const result = (await client.query(queued.length === 0 ? 'COMMIT' : `${queued.map((q) => (typeof q === 'string' ? q : q.execute)).join(';\n')};\nCOMMIT`)) as QueryResult | QueryResult[];
  // COMMIT of a transaction that failed earlier answers ROLLBACK, not an error: nothing committed,
  // which the caller must not take for success (an error caught and dropped inside the transaction
  // would otherwise answer 200 for a write that never happened, or ack a consumer's events).
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  if (last?.command !== 'COMMIT') throw new TransactionRolledBackError();
  for (const fn of at?.after ?? []) fn();
}

/** A COMMIT that Postgres answered ROLLBACK: a statement of the transaction had failed, and nothing was written. */
export class TransactionRolledBackError extends Error {
  constructor() {
    super('the transaction was rolled back at its commit: one of its statements had failed');
    this.name = 'TransactionRolledBackError';
  }
}

/** Ends a transaction opened with `begin` without committing (nothing queued runs). */
export async function rollback(client: PoolClient): Promise<void> {
  beforeCommit.delete(client);
  await client.query('ROLLBACK');
}

/** Runs `fn` in one transaction; commits on success, rolls back and rethrows on error. */
export async function withTransaction<T>(pool: Pool, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, null, (tx) => fn(tx));
}

/**
 * `withTransaction` whose first statement goes with the BEGIN (see `begin`'s `first`): `fn` gets
 * its result. For a use case that starts by reading (locking) what it changes.
 */
export async function withTransactionFrom<R extends QueryResultRow, T>(pool: Pool, first: string | SqlPrepared, fn: (tx: PoolClient, firstResult: QueryResult<R>) => Promise<T>): Promise<T> {
  return inTransaction(pool, first, (tx, r) => fn(tx, r as QueryResult<R>));
}

async function inTransaction<T>(pool: Pool, first: string | SqlPrepared | null, fn: (tx: PoolClient, firstResult: QueryResult | null) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const firstResult = first === null ? (await begin(client), null) : await begin(client, first);
    const result = await fn(client, firstResult);
    await commit(client);
    return result;
  } catch (err) {
    await rollback(client).catch(() => undefined);
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
