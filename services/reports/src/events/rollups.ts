import { gatherForCommit, prepared, type Executor } from '@parley/shared';

/**
 * One thing a metric counts, as the rollups (migration 004) add it up: a reporting event (metric =
 * its name), a counted message (`incoming`, `outgoing`) or a conversation (`conversations`), at
 * its time, with its agent, team and inbox; `n` +1 when it appears, -1 when it goes.
 */
export interface RollupItem {
  metric: string;
  t: Date;
  agent: number | null;
  team: number | null;
  inbox: number | null;
  n: 1 | -1;
  v: number;
  v_bh: number;
}

/**
 * The rollups insert, its account the parameter `$a` and its items the eight arrays from `$i`
 * (`rollupArrays`): a statement of its own (`bumpRollups`) or part of a larger one.
 */
export const rollupsInsertSql = (a: number, i: number): string =>
  `INSERT INTO rollups AS r (account_id, metric, dim, grain, bucket, dim_id, n, v, v_bh)
   SELECT $${a}::bigint, k.metric, k.dim, k.grain, k.bucket, k.dim_id, sum(i.n), sum(i.v::numeric * i.n), sum(i.v_bh::numeric * i.n)
     FROM unnest($${i}::text[], $${i + 1}::timestamptz[], $${i + 2}::bigint[], $${i + 3}::bigint[], $${i + 4}::bigint[], $${i + 5}::int[], $${i + 6}::float8[], $${i + 7}::float8[]) AS i(metric, t, agent, team, inbox, n, v, v_bh)
     CROSS JOIN LATERAL rollup_keys(i.metric, i.t, i.agent, i.team, i.inbox) k
    GROUP BY 1, 2, 3, 4, 5, 6
   HAVING sum(i.n) <> 0 OR sum(i.v::numeric * i.n) <> 0 OR sum(i.v_bh::numeric * i.n) <> 0
    ORDER BY 2, 3, 4, 5, 6
   ON CONFLICT (account_id, metric, dim, grain, bucket, dim_id) DO UPDATE SET n = r.n + EXCLUDED.n, v = r.v + EXCLUDED.v, v_bh = r.v_bh + EXCLUDED.v_bh`;

/** Prepared: every message runs it, and its plan (a set-returning function per item) is the same each time. */
const addToRollups = prepared(rollupsInsertSql(1, 2));

/** The eight arrays of `rollupsInsertSql`'s items. */
export function rollupArrays(items: readonly RollupItem[]): unknown[] {
  return [
    items.map((i) => i.metric),
    items.map((i) => i.t),
    items.map((i) => i.agent),
    items.map((i) => i.team),
    items.map((i) => i.inbox),
    items.map((i) => i.n),
    items.map((i) => i.v),
    items.map((i) => i.v_bh),
  ];
}

/**
 * The items a transaction adds, by account, written together at its commit (`bumpRollups`);
 * `written` once they were (a flush that runs after theirs, at the same commit, writes its own at once).
 */
interface Gathered {
  byAccount: Map<number, RollupItem[]>;
  written: boolean;
}
const GATHERED = 'reports.rollups';
const gatheredIn = (tx: Executor) => gatherForCommit<Gathered>(tx, GATHERED, () => ({ byAccount: new Map(), written: false }), writeGathered);

/**
 * Adds items to the rollups in the caller's transaction, one statement that touches its rows in key
 * order (two transactions touching the same rows take them in the same order). Values are summed
 * as numeric, as rebuild_rollups and the reports' raw reads sum them, so any way of adding up
 * gives the same number.
 *
 * In a consumer batch's transaction (or `withTransaction`'s) the items are gathered and written
 * once, at its commit: a batch's messages mostly bump the same rows (the account's hour, day and
 * month, the agent's, the inbox's), which are then updated once per batch instead of once per
 * message. Nothing in a transaction reads the rollups it changes.
 */
export async function bumpRollups(tx: Executor, accountId: number, items: readonly RollupItem[]): Promise<void> {
  if (items.length === 0) return;
  const gathered = gatheredIn(tx);
  if (!gathered || gathered.written) return writeRollups(tx, accountId, items);
  const list = gathered.byAccount.get(accountId);
  if (list) list.push(...items);
  else gathered.byAccount.set(accountId, [...items]);
}

/** An account deleted in the transaction: what it gathered for that account's rollups is dropped with them. */
export function dropGatheredRollups(tx: Executor, accountId: number): void {
  gatheredIn(tx)?.byAccount.delete(accountId);
}

async function writeGathered(tx: Executor, gathered: Gathered): Promise<void> {
  gathered.written = true;
  for (const [accountId, items] of [...gathered.byAccount].sort((a, b) => a[0] - b[0])) await writeRollups(tx, accountId, items);
}

async function writeRollups(tx: Executor, accountId: number, items: readonly RollupItem[]): Promise<void> {
  if (items.length > 0) await tx.query(addToRollups([accountId, ...rollupArrays(items)]));
}

/** Recomputes an account's rollups from its rows (replay, the benchmark's generator). */
export async function rebuildRollups(db: Executor, accountId: number | null): Promise<void> {
  await db.query('SELECT rebuild_rollups($1)', [accountId]);
}
