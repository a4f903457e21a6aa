import { z } from 'zod';
import { NotFoundError, ValidationError, queryInt, type Executor, type Peers, type ProjectionKit } from '@parley/shared';
import { metricsByDimension, metricTotals, type Dimension, type Total, type Window } from './queries';
import { readReportQuery, reportQueryDoc, type Metric } from './params';
import { liveCounts, liveCountsBy } from './live';
import { accountAgentIds } from './agents';

export interface TableDeps {
  pool: Executor;
  peers: Peers;
  projections: ProjectionKit;
}

/** The columns of `summary_reports/*`, each one metric's numbers per agent, team, inbox or label. */
const COLUMNS: Array<[string, Metric, 'count' | 'average']> = [
  ['conversations_count', 'conversations_count', 'count'],
  ['resolved_conversations_count', 'resolutions_count', 'count'],
  ['avg_resolution_time', 'avg_resolution_time', 'average'],
  ['avg_first_response_time', 'avg_first_response_time', 'average'],
  ['avg_reply_time', 'reply_time', 'average'],
];

export type SummaryRow = { id: number; name?: string } & Record<string, number | null>;

/**
 * One row per agent, team, inbox or label: the same sources as the summary, grouped, so a row
 * equals the summary with `type` and `id` for it. Averages are null when nothing was measured
 * (labels: 0, as Chatwoot).
 */
export async function summaryTable(db: Executor, accountId: number, dim: Dimension | 'label', ids: Array<{ id: number; key: string; name?: string }>, w: Window, businessHours: boolean): Promise<SummaryRow[]> {
  const byMetric = await metricsByDimension(db, COLUMNS.map(([, metric]) => metric), accountId, dim, w, businessHours);
  const columns = COLUMNS.map(([, metric]) => byMetric[metric]);
  return ids.map(({ id, key, name }) => {
    const row: SummaryRow = { id, ...(name !== undefined ? { name } : {}) } as SummaryRow;
    COLUMNS.forEach(([column, , kind], i) => {
      const t: Total = columns[i]!.get(key) ?? { count: 0, sum: 0 };
      row[column] = kind === 'count' ? t.count : t.count === 0 ? (dim === 'label' ? 0 : null) : t.sum / t.count;
    });
    return row;
  });
}

/** Ids seen in the numbers of a dimension. */
async function idsInNumbers(db: Executor, accountId: number, dim: Dimension, w: Window): Promise<number[]> {
  const seen = new Set<number>();
  const byMetric = await metricsByDimension(db, COLUMNS.map(([, metric]) => metric), accountId, dim, w, false);
  for (const m of Object.values(byMetric)) for (const k of m.keys()) seen.add(Number(k));
  return [...seen];
}

export async function summaryRowsFor(deps: TableDeps, accountId: number, dim: Dimension | 'label', w: Window, businessHours: boolean, requestId: string): Promise<SummaryRow[]> {
  const { pool } = deps;
  if (dim === 'agent') {
    // Every member of the account (Chatwoot: account users), from the copies once they are complete.
    const ids = await accountAgentIds(pool, deps.peers, deps.projections, accountId, requestId);
    return summaryTable(pool, accountId, 'agent', ids.map((id) => ({ id, key: String(id) })), w, businessHours);
  }
  if (dim === 'label') {
    const r = await pool.query<{ id: string; title: string }>('SELECT id, title FROM labels WHERE account_id = $1 AND NOT deleted AND title IS NOT NULL ORDER BY id', [accountId]);
    return summaryTable(pool, accountId, 'label', r.rows.map((l) => ({ id: Number(l.id), key: l.title, name: l.title })), w, businessHours);
  }
  // The account's teams or inboxes as the copies know them, and any other that has numbers if its
  // owner still has it (a copy no event brought yet); a removed one is not listed, as
  // `reports/summary` with its id is 404.
  const known = (await deps.projections.list(pool, dim, accountId)).map((x) => x.id);
  const unknown = (await idsInNumbers(pool, accountId, dim, w)).filter((id) => !known.includes(id));
  const found = unknown.length === 0 ? [] : [...(await deps.projections.readThrough(pool, dim, accountId, unknown, { requestId, rememberMisses: true })).keys()];
  const ids = [...new Set([...known, ...found])].sort((a, b) => a - b);
  return summaryTable(pool, accountId, dim, ids.map((id) => ({ id, key: String(id) })), w, businessHours);
}

export async function botSummary(db: Executor, accountId: number, w: Window) {
  const scope = { accountId, type: 'account' as const, id: null, label: null };
  const [t] = await metricTotals(db, ['bot_resolutions_count', 'bot_handoffs_count'], scope, [w], false);
  return { bot_resolutions_count: t!.bot_resolutions_count.count, bot_handoffs_count: t!.bot_handoffs_count.count };
}

export const liveCountsResponse = z.object({
  open: z.number().int(),
  unattended: z.number().int().describe('Open and never replied to, or waiting for a reply'),
  unassigned: z.number().int(),
  pending: z.number().int().describe('Waiting on a bot (status pending)'),
});

export const summaryRowResponse = z.object({
  id: z.number().int(),
  name: z.string().optional().describe('Labels only'),
  conversations_count: z.number().int(),
  resolved_conversations_count: z.number().int(),
  avg_resolution_time: z.number().nullable(),
  avg_first_response_time: z.number().nullable(),
  avg_reply_time: z.number().nullable(),
});

export const agentConversationsResponse = z.array(
  z.object({
    id: z.number().int(),
    name: z.string(),
    email: z.string(),
    thumbnail: z.string(),
    availability: z.string(),
    metric: z.object({ open: z.number().int(), unattended: z.number().int() }),
  }),
);

export const conversationsQuery = z.looseObject({
  type: z.string().optional().describe('`account` (the counts) or `agent` (per agent, 25 a page, most open first); required'),
  page: z.string().optional().describe('Page of the agent list; default 1'),
});

export const liveQuery = z.looseObject({ team_id: queryInt.optional().describe('Only this team\'s conversations (404 for a team the account does not have)') });
export const groupedQuery = z.looseObject({ group_by: z.string().optional().describe('`team_id` or `assignee_id`; required') });

/** `reports/conversations`. */
export async function conversationCounts(deps: TableDeps, accountId: number, raw: Record<string, unknown>, requestId: string) {
  const type = raw['type'];
  if (type !== 'account' && type !== 'agent') throw new ValidationError('type must be account or agent', [{ field: 'type', message: 'must be account or agent', code: type === undefined ? 'blank' : 'inclusion' }]);
  if (type === 'account') return liveCounts(deps.pool, accountId);
  const pageRaw = raw['page'];
  const page = pageRaw === undefined ? 1 : typeof pageRaw === 'string' && /^[0-9]{1,6}$/.test(pageRaw) && Number(pageRaw) >= 1 ? Number(pageRaw) : NaN;
  if (!Number.isFinite(page)) throw new ValidationError('page must be a positive integer', [{ field: 'page', message: 'must be a positive integer', code: 'invalid' }]);
  const agents = await deps.peers.identity.agents(accountId, { requestId });
  const byAssignee = new Map((await liveCountsBy(deps.pool, accountId, 'assignee_id')).map((r) => [r.key, r]));
  const rows = agents.map((a) => {
    const c = byAssignee.get(a.id);
    return { id: a.id, name: a.name, email: a.email, thumbnail: a.thumbnail, availability: a.availability_status, metric: { open: c?.open ?? 0, unattended: c?.unattended ?? 0 } };
  });
  rows.sort((a, b) => b.metric.open - a.metric.open || a.id - b.id);
  return rows.slice((page - 1) * 25, page * 25);
}

export async function requireTeam(deps: TableDeps, accountId: number, teamId: number, requestId: string): Promise<void> {
  const team = await deps.projections.readOne(deps.pool, 'team', accountId, teamId, { requestId, strict: true });
  if (!team) throw new NotFoundError('Team', 'team_id');
}

export { readReportQuery, reportQueryDoc };
