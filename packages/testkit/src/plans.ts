import type { ClientBase } from 'pg';

/** A node of `EXPLAIN (FORMAT JSON)`'s plan, with what the claim tests read of it. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}

/** The plan of `sql` in a transaction opened with `settings` (`SET LOCAL ...`), rolled back after; `analyze` runs it (with buffers). */
export async function explainIn(client: ClientBase, settings: string | null, sql: string, analyze = false): Promise<PlanNode> {
  await client.query(settings ? `BEGIN; ${settings}` : 'BEGIN');
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (${analyze ? 'ANALYZE, BUFFERS, ' : ''}FORMAT JSON) ${sql}`);
    return rows[0]!['QUERY PLAN'][0]!.Plan;
  } finally {
    await client.query('ROLLBACK');
  }
}

/** The plan's nodes, depth first, each its type and index (`Index Scan outbox_pkey`). */
export function planNodes(p: PlanNode): string[] {
  return [`${p['Node Type']}${p['Index Name'] ? ` ${p['Index Name']}` : ''}`, ...(p.Plans ?? []).flatMap(planNodes)];
}

/**
 * Pages of rows an index still points `sql` at: the plan run with a bitmap scan (index and
 * sequential scans off), which skips the entries already marked dead and marks none, as an index
 * scan would while measuring.
 */
export async function pagesLeft(client: ClientBase, sql: string): Promise<number> {
  const plan = await explainIn(client, 'SET LOCAL enable_indexscan = off; SET LOCAL enable_seqscan = off', sql, true);
  if (!planNodes(plan).includes('Bitmap Heap Scan')) throw new Error(`pagesLeft: no bitmap scan in the plan (${planNodes(plan).join(', ')})`);
  return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
}
