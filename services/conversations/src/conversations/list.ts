import { createHash } from 'node:crypto';
import type { Executor } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { EXTRAS_COLUMNS, extrasOf, type ConversationExtras, type ExtrasColumns } from '../messages/repository';
import { countsTableQuery } from './counts';
import { qPattern } from './search-hits';

export const PAGE_SIZE = 25;

export const SORTS = {
  last_activity_at_desc: 'c.last_activity_at DESC, c.id DESC',
  latest: 'c.last_activity_at DESC, c.id DESC',
  last_activity_at_asc: 'c.last_activity_at ASC, c.id ASC',
  created_at_asc: 'c.created_at ASC, c.id ASC',
  sort_on_created_at: 'c.created_at ASC, c.id ASC',
  created_at_desc: 'c.created_at DESC, c.id DESC',
  priority_desc: 'c.priority DESC NULLS LAST, c.last_activity_at DESC, c.id DESC',
  sort_on_priority: 'c.priority DESC NULLS LAST, c.last_activity_at DESC, c.id DESC',
  priority_asc: 'c.priority ASC NULLS LAST, c.last_activity_at DESC, c.id DESC',
  waiting_since_asc: 'c.waiting_since ASC NULLS LAST, c.created_at ASC, c.id ASC',
  sort_on_waiting_since: 'c.waiting_since ASC NULLS LAST, c.created_at ASC, c.id ASC',
  waiting_since_desc: 'c.waiting_since DESC NULLS LAST, c.created_at ASC, c.id ASC',
} as const;
export type SortBy = keyof typeof SORTS;

export interface ListFilter {
  accountId: number;
  /** null: every inbox (administrators, bots). */
  visibleInboxIds: number[] | null;
  /** The caller, for `mine_count` and `assignee_type=me` (null for bots). */
  userId: number | null;
  status?: 'all' | 'open' | 'resolved' | 'pending' | 'snoozed';
  assigneeType?: 'me' | 'unassigned' | 'all' | 'assigned';
  q?: string;
  /** `q` also matches the contact's name (the search route; the list matches messages only, as Chatwoot). */
  qMatchesContactName?: boolean;
  /** `q`'s pattern is registered: its matching conversations are read from search_hits, not from messages (search-hits.ts). */
  qHits?: boolean;
  inboxId?: number;
  teamId?: number;
  labels?: string[];
  sourceId?: string;
  contactId?: number;
  conversationType?: 'unattended' | 'mention' | 'participating';
  updatedWithinSeconds?: number;
}

export interface Counts {
  mine_count: number;
  assigned_count: number;
  unassigned_count: number;
  all_count: number;
}

/**
 * Chatwoot's ConversationFinder as SQL: the filters the counts see (inbox, permission, status
 * — ignored when `q` is given — team, labels (any of), q, source id), and apart from them the
 * assignee filter, which only narrows the page.
 */
export function buildWhere(f: ListFilter): { where: string[]; values: unknown[] } {
  const values: unknown[] = [f.accountId];
  const where = ['c.account_id = $1'];
  const add = (sql: (p: string) => string, v: unknown) => {
    values.push(v);
    where.push(sql(`$${values.length}`));
  };
  // participating replaces the inbox scope (Chatwoot: current_user.participating_conversations).
  if (f.visibleInboxIds !== null && f.conversationType !== 'participating') add((p) => `c.inbox_id = ANY(${p}::int[])`, f.visibleInboxIds);
  if (f.inboxId !== undefined) add((p) => `c.inbox_id = ${p}`, f.inboxId);
  if (f.q !== undefined && f.q !== '') {
    const inMessages = (p: string) =>
      f.qHits
        ? `c.id IN (SELECT h.conversation_id FROM search_hits h WHERE h.account_id = $1 AND h.pattern = ${p})`
        : `c.id IN (SELECT m.conversation_id FROM messages m WHERE m.content ILIKE ${p} AND m.message_type IN (0, 1) AND m.account_id = $1)`;
    const inContactName = (p: string) => `c.contact_id IN (SELECT cp.id FROM projections cp WHERE cp.account_id = $1 AND cp.kind = 'contact' AND cp.data->>'name' ILIKE ${p})`;
    add((p) => (f.qMatchesContactName ? `(${inMessages(p)} OR ${inContactName(p)})` : inMessages(p)), qPattern(f.q));
  } else if (f.status !== undefined && f.status !== 'all') {
    add((p) => `c.status = ${p}`, f.status);
  } else if (f.status === undefined) {
    where.push(`c.status = 'open'`);
  }
  if (f.teamId !== undefined) add((p) => `c.team_id = ${p}`, f.teamId);
  if (f.labels !== undefined && f.labels.length > 0) add((p) => `c.labels && ${p}::text[]`, f.labels);
  if (f.sourceId !== undefined) add((p) => `c.contact_inbox_source_id = ${p}`, f.sourceId);
  if (f.contactId !== undefined) add((p) => `c.contact_id = ${p}`, f.contactId);
  if (f.conversationType === 'unattended') where.push('(c.first_reply_created_at IS NULL OR c.waiting_since IS NOT NULL)');
  if (f.conversationType === 'mention') add((p) => `c.id IN (SELECT m.conversation_id FROM mentions m WHERE m.account_id = $1 AND m.user_id = ${p})`, f.userId ?? -1);
  if (f.conversationType === 'participating') {
    add((p) => `(c.assignee_id = ${p} OR c.id IN (SELECT cp.conversation_id FROM conversation_participants cp WHERE cp.account_id = $1 AND cp.user_id = ${p}))`, f.userId ?? -1);
  }
  if (f.updatedWithinSeconds !== undefined) add((p) => `c.updated_at > now() - make_interval(secs => ${p})`, f.updatedWithinSeconds);
  return { where, values };
}

/** The meta counts' query (exported so scripts/explain.js explains exactly this SQL). */
export function countQuery(f: ListFilter): { text: string; values: unknown[] } {
  const { where, values } = buildWhere(f);
  values.push(f.userId ?? -1);
  const me = `$${values.length}`;
  return {
    text: `SELECT count(*) FILTER (WHERE c.assignee_id = ${me})::int AS mine,
            count(*) FILTER (WHERE c.assignee_id IS NULL)::int AS unassigned,
            count(*)::int AS all
       FROM conversations c WHERE ${where.join(' AND ')}`,
    values,
  };
}

/** The meta counts' query as run: from the counts tables where they answer the filter, else counting conversations. */
export function metaQuery(f: ListFilter): { text: string; values: unknown[] } {
  return countsTableQuery(f) ?? countQuery(f);
}

export async function countConversations(db: Executor, f: ListFilter): Promise<Counts> {
  const q = metaQuery(f);
  const { rows } = await db.query<{ mine: number; unassigned: number; all: number }>(q.text, q.values);
  const r = rows[0] ?? { mine: 0, unassigned: 0, all: 0 };
  return { mine_count: r.mine, assigned_count: r.all - r.unassigned, unassigned_count: r.unassigned, all_count: r.all };
}

/** One page (or, with `updated_within`, everything), in the requested order. */
export function listQuery(f: ListFilter, sortBy: SortBy, page: number | null): { text: string; values: unknown[] } {
  const { where, values } = buildWhere(f);
  if (f.assigneeType === 'me') {
    values.push(f.userId ?? -1);
    where.push(`c.assignee_id = $${values.length}`);
  } else if (f.assigneeType === 'unassigned') where.push('c.assignee_id IS NULL');
  else if (f.assigneeType === 'assigned') where.push('c.assignee_id IS NOT NULL');
  let paging = '';
  if (page !== null) {
    values.push(PAGE_SIZE, (page - 1) * PAGE_SIZE);
    paging = ` LIMIT $${values.length - 1} OFFSET $${values.length}`;
  }
  return { text: `SELECT c.* FROM conversations c WHERE ${where.join(' AND ')} ORDER BY ${SORTS[sortBy]}${paging}`, values };
}

export async function listConversations(db: Executor, f: ListFilter, sortBy: SortBy, page: number | null): Promise<ConversationRow[]> {
  const q = listQuery(f, sortBy, page);
  const { rows } = await db.query<ConversationRow>(q.text, q.values);
  return rows;
}

/**
 * The list's one query: the counts (of the list without `assignee_type` and `updated_within`),
 * the caller's teams (for `meta.team.is_member`), the page in its order, and each conversation's
 * extras (last messages, unread count), in one round trip. Each part is planned as it would be
 * alone (the page is a LIMIT subquery, so the extras are read for its rows only).
 */
export function pageQuery(f: ListFilter, sortBy: SortBy, page: number | null): { text: string; values: unknown[] } {
  const count = metaQuery({ ...f, updatedWithinSeconds: undefined });
  const list = listQuery(f, sortBy, page);
  const values = [...count.values, f.userId ?? -1];
  const me = `$${values.length}`;
  const shift = values.length;
  const listText = list.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`);
  return {
    text: `SELECT k.mine AS k_mine, k.unassigned AS k_unassigned, k."all" AS k_all,
            (SELECT array_agg(t.team_id) FROM team_member_projections t WHERE t.account_id = $1 AND t.user_id = ${me}) AS k_my_teams, c.*
       FROM (${count.text}) k
       LEFT JOIN LATERAL (SELECT c.*, ${EXTRAS_COLUMNS} FROM (${listText}) c) c ON true
      ORDER BY ${SORTS[sortBy]}`,
    values: [...values, ...list.values],
  };
}

/**
 * Statement names of the page queries run as prepared statements (Postgres parses each once a
 * connection and may keep a generic plan). The generation changes when Postgres refuses a
 * prepared statement after a schema change (its result type changed), so new names are prepared.
 */
const prepared = new Map<string, string>();
let generation = 0;
function statementName(text: string): string {
  let name = prepared.get(text);
  if (name === undefined) {
    if (prepared.size >= 200) prepared.clear();
    name = `list_${generation}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    prepared.set(text, name);
  }
  return name;
}

type PageRow = ConversationRow & ExtrasColumns & { k_mine: number; k_unassigned: number; k_all: number; k_my_teams: number[] | null };

async function runPageQuery(db: Executor, f: ListFilter, q: { text: string; values: unknown[] }): Promise<PageRow[]> {
  // A q that reads messages keeps custom plans (its pattern decides between the trigram index and a scan).
  if (f.q !== undefined && f.q !== '' && !f.qHits) return (await db.query<PageRow>(q.text, q.values)).rows;
  try {
    return (await db.query<PageRow>({ name: statementName(q.text), text: q.text, values: q.values })).rows;
  } catch (err) {
    if ((err as { code?: string }).code !== '0A000') throw err;
    generation += 1;
    prepared.clear();
    return (await db.query<PageRow>(q.text, q.values)).rows;
  }
}

export async function listPageWithCounts(
  db: Executor,
  f: ListFilter,
  sortBy: SortBy,
  page: number | null,
): Promise<{ meta: Counts; rows: ConversationRow[]; extras: Map<string, ConversationExtras>; myTeams: Set<number> }> {
  const rows = await runPageQuery(db, f, pageQuery(f, sortBy, page));
  const first = rows[0];
  const [mine, unassigned, all] = first ? [first.k_mine, first.k_unassigned, first.k_all] : [0, 0, 0];
  const meta = { mine_count: mine, assigned_count: all - unassigned, unassigned_count: unassigned, all_count: all };
  const myTeams = new Set<number>(f.userId === null ? [] : (first?.k_my_teams ?? []));
  const out: ConversationRow[] = [];
  const extras = new Map<string, ConversationExtras>();
  for (const r of rows) {
    // An empty page is one row of counts with no conversation.
    if (r.id === null) continue;
    const { k_mine: _m, k_unassigned: _u, k_all: _a, k_my_teams: _t, x_last_message, x_last_non_activity, x_unread, ...row } = r;
    out.push(row as ConversationRow);
    extras.set(row.id, extrasOf({ x_last_message, x_last_non_activity, x_unread }));
  }
  return { meta, rows: out, extras, myTeams };
}
