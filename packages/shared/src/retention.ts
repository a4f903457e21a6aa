import { escapeIdentifier, type Pool } from 'pg';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';
import { PeriodicWorker } from './worker';

export interface KernelRetention {
  /** Hours a published outbox row is kept after its publish. */
  outboxHours: number;
  /** Hours a consumer's `processed_events` row (its dedupe record of an event) is kept. */
  processedEventsHours: number;
}

/**
 * A service table of dedupe records (or the like) kept for a time: its rows whose `column` (a
 * timestamptz with a btree index) is older than `hours` are deleted with the kernel's own.
 */
export interface TimedTable {
  table: string;
  column: string;
  hours: number;
}

export interface PruneOptions {
  /** Rows a statement deletes at most (each is one short transaction). */
  batch?: number;
  /** Statements a table gets at most per run; what is left waits for the next run. */
  maxBatches?: number;
  /** Asked before each statement: true ends the run there (the worker is stopping). */
  stopping?: () => boolean;
  /** Told each committed batch's rows as it commits (the metric counts them even if a later batch fails). */
  onBatch?: (table: string, deleted: number) => void;
}

/**
 * Published outbox rows past the retention, among the `batch` oldest rows after id `$3` (ids
 * follow the order rows were written, and the relay publishes in that order). A row not yet
 * published is never deleted, however old (the broker may have been away): the batch deletes
 * those around it. Answers the rows deleted and the last id read, where the next batch starts
 * (so it does not walk again over the index entries of the rows just deleted).
 */
const PRUNE_OUTBOX = `WITH oldest AS (SELECT id, published_at FROM outbox WHERE id > $3 ORDER BY id LIMIT $2),
  gone AS (DELETE FROM outbox o USING oldest
            WHERE o.id = oldest.id AND o.published_at IS NOT NULL AND o.published_at < now() - $1 * interval '1 hour'
        RETURNING o.id)
  SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT max(id) FROM oldest)::text AS last`;

/**
 * The `batch` oldest rows of a timed table past the retention from time `$3` on, by the index on
 * its time column (processed_events: kernel migration 004). Answers the rows deleted and the
 * latest time among them, where the next batch starts (so it does not walk again over the index
 * entries of the rows just deleted; `>=`: a batch insert gives its rows one time, and a batch may
 * end among them). The time goes out and back as ISO 8601 text in UTC: a JavaScript Date would
 * lose its microseconds, and Postgres's own text follows the session's DateStyle and time zone.
 */
function pruneOldestSql(table: string, column: string): string {
  const [t, c] = [escapeIdentifier(table), escapeIdentifier(column)];
  return `WITH gone AS (
    DELETE FROM ${t} WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${t} WHERE ${c} >= $3::timestamptz AND ${c} < now() - $1 * interval '1 hour'
       ORDER BY ${c} LIMIT $2))
    RETURNING ${c} AS at)
  SELECT count(*)::int AS deleted, to_char(max(at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS last FROM gone`;
}

/**
 * Deletes, in batches, what the kernel's tables no longer need: published outbox rows and
 * consumers' dedupe records past their retention, and the service's own timed tables (`tables`).
 * Without it the kernel's two grow by every event for as
 * long as the service runs (an outbox row holds the whole envelope). Answers the rows deleted, by table.
 *
 * What the retention gives up: a copy of an event that arrives after its dedupe record is gone
 * would be handled again. Copies come from a redelivery (a consumer that committed and died
 * before its ack: the broker redelivers when its channel closes) or a relay that published and
 * died before its commit (it publishes the row again when it is back): minutes, or as long as
 * the service stays down. The default of a week is well past both; the handlers that must never
 * apply an event twice also keep a unique event id of their own (reports' facts, audit entries).
 */
export async function pruneKernelTables(pool: Pool, retention: KernelRetention, opts: PruneOptions = {}, tables: readonly TimedTable[] = []): Promise<Record<string, number>> {
  const batch = opts.batch ?? 5000;
  const maxBatches = opts.maxBatches ?? 200;
  const drain = async (table: string, sql: string, hours: number, from: string, more: (deleted: number) => boolean): Promise<number> => {
    let total = 0;
    let after = from;
    for (let i = 0; i < maxBatches && !opts.stopping?.(); i++) {
      const row = (await pool.query<{ deleted: number; last: string | null }>(sql, [hours, batch, after])).rows[0];
      const deleted = row?.deleted ?? 0;
      total += deleted;
      opts.onBatch?.(table, deleted);
      if (!more(deleted) || row?.last == null) break;
      after = row.last;
    }
    return total;
  };
  const pruned: Record<string, number> = {};
  let failure: unknown = null;
  // Each table on its own: one that fails (a lock timeout, a lost connection) leaves the others pruned.
  const each = async (table: string, run: () => Promise<number>): Promise<void> => {
    try {
      pruned[table] = await run();
    } catch (err) {
      failure ??= err;
    }
  };
  // The outbox: until a batch deletes nothing. One that deletes fewer rows than it read may have
  // kept unpublished rows among them and the rows after them may still be past the retention; a
  // whole batch of unpublished rows ends the run (the next run starts from the oldest again).
  await each('outbox', () => drain('outbox', PRUNE_OUTBOX, retention.outboxHours, '0', (n) => n > 0));
  // Timed tables: a batch that deletes fewer than it may has taken the last of them.
  for (const t of [{ table: 'processed_events', column: 'processed_at', hours: retention.processedEventsHours }, ...tables]) {
    await each(t.table, () => drain(t.table, pruneOldestSql(t.table, t.column), t.hours, '-infinity', (n) => n === batch));
  }
  if (failure) throw failure;
  return pruned;
}

/**
 * Runs `pruneKernelTables` every `intervalMs` in every service (bootService starts it unless
 * KERNEL_PRUNE_INTERVAL_MS is 0; the first run is one interval after start-up, away from the
 * start's own load). Replicas may run it at once: a row another deleted is skipped, and one that
 * finds its batch taken ends its run early, the other doing the work. Stopping ends a run
 * between two batches.
 */
export class KernelPruner extends PeriodicWorker {
  constructor(
    private readonly deps: { pool: Pool; log: Logger; metrics?: ServiceMetrics },
    private readonly retention: KernelRetention,
    intervalMs: number,
    /** The service's own timed tables (ServiceDefinition's `timedTables`). */
    private readonly tables: readonly TimedTable[] = [],
    /** Its own `stopping` (the worker's stop) and `onBatch` (the metric) are set by the worker. */
    private readonly opts: Omit<PruneOptions, 'stopping' | 'onBatch'> = {},
  ) {
    super(deps.log, intervalMs, 'pruning the outbox and processed_events');
  }

  protected async tick(): Promise<void> {
    const pruned = await pruneKernelTables(this.deps.pool, this.retention, {
      ...this.opts,
      stopping: () => this.stopped,
      onBatch: (table, n) => this.deps.metrics?.kernelPruned.inc({ table }, n),
    }, this.tables);
    if (Object.values(pruned).some((n) => n > 0)) this.deps.log.info({ pruned }, 'pruned rows past their retention');
  }
}
