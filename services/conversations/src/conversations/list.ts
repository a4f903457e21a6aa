import { createHash } from 'node:crypto';
import type { Executor } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { extrasOf, UNREAD_COUNT, type ConversationExtras, type ExtrasColumns } from '../messages/repository';
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
  const sql = `SELECT c.* FROM conversations c WHERE ${where.join(' AND ')} ORDER BY ${SORTS[sortBy]}`;
  if (page === null) return { text: sql, values };
  // The page size is the code's, not the caller's: a literal, so a generic plan knows a page is 25
  // rows; the first page (the one nearly every request reads) has no OFFSET, whose parameter a
  // generic plan would guess as 10% of the rows: on a large account that guess made the generic
  // plan look dearer than a custom one, so Postgres planned every request again.
  if (page === 1) return { text: `${sql} LIMIT ${PAGE_SIZE}`, values };
  // A later page skips the rows before it by their ids only (an index-only scan where the filter's
  // columns are in the index), then reads its own 25 rows: skipping whole rows read every skipped
  // row from the table (page 400 at 100k conversations: 10,000 rows, 11 -> 2 ms).
  values.push((page - 1) * PAGE_SIZE);
  return {
    text: `SELECT c.* FROM conversations c WHERE c.id IN (SELECT c.id FROM conversations c WHERE ${where.join(' AND ')} ORDER BY ${SORTS[sortBy]} LIMIT ${PAGE_SIZE} OFFSET $${values.length}) ORDER BY ${SORTS[sortBy]}`,
    values,
  };
}

export async function listConversations(db: Executor, f: ListFilter, sortBy: SortBy, page: number | null): Promise<ConversationRow[]> {
  const q = listQuery(f, sortBy, page);
  const { rows } = await db.query<ConversationRow>(q.text, q.values);
  return rows;
}

/** A copy's kind by a message's `sender_type` (the kinds `loadRefs` reads for message senders). */
const senderKind = (t: string) => `CASE ${t} WHEN 'Contact' THEN 'contact' WHEN 'User' THEN 'agent' WHEN 'AgentBot' THEN 'agent_bot' END`;

/**
 * The page (`p`, its conversations in the list's order) with each conversation's extras as
 * `EXTRAS_COLUMNS` answers them (last message, last non-activity message when the last is an
 * activity, unread count), each last message read once (a lateral join, whose sender stays at
 * hand for the copies), and `x_n` numbering the rows.
 */
function pageCte(listText: string): string {
  return `p AS (SELECT c.*, row_to_json(lm) AS x_last_message, row_to_json(ln) AS x_last_non_activity,
         ${UNREAD_COUNT} AS x_unread,
         lm.sender_type AS x_last_sender_type, lm.sender_id AS x_last_sender_id, ln.sender_type AS x_non_activity_sender_type, ln.sender_id AS x_non_activity_sender_id,
         row_number() OVER () AS x_n
    FROM (${listText}) c
    LEFT JOIN LATERAL (SELECT * FROM messages m WHERE m.conversation_id = c.id ORDER BY m.id DESC LIMIT 1) lm ON true
    LEFT JOIN LATERAL (SELECT * FROM messages m WHERE lm.message_type = 2 AND m.conversation_id = c.id AND m.message_type <> 2 ORDER BY m.id DESC LIMIT 1) ln ON true)`;
}

/**
 * The copies (contacts, agents, teams, bots) the page's conversations and their last messages
 * name, as the projection kit's rows `[kind, id, data]` (tombstones with null data) in one JSON
 * array: what `loadRefs` would ask the kit for, read in the page's statement. Each distinct
 * (kind, id) is one probe of the table's key (the lateral subquery is not flattened, so a generic
 * plan cannot turn it into a scan of the account's copies: 50k contacts at 100k conversations).
 */
const COPIES_OF_PAGE = `(SELECT json_agg(json_build_array(w.kind, w.id, r.data)) FROM (
            SELECT 'contact' AS kind, p.contact_id AS id FROM p
            UNION SELECT 'agent', p.assignee_id FROM p
            UNION SELECT 'team', p.team_id FROM p
            UNION SELECT ${senderKind('p.x_last_sender_type')}, p.x_last_sender_id FROM p
            UNION SELECT ${senderKind('p.x_non_activity_sender_type')}, p.x_non_activity_sender_id FROM p) w
          JOIN LATERAL (SELECT r.data FROM projections r WHERE r.account_id = $1 AND r.kind = w.kind AND r.id = w.id OFFSET 0) r ON true
          WHERE w.id IS NOT NULL)`;

/**
 * The list's one query: the counts (of the list without `assignee_type` and `updated_within`),
 * the caller's teams (for `meta.team.is_member`), the page in its order, each conversation's
 * extras (last messages, unread count), and the copies of the contacts, agents, teams and bots
 * the page names (on one row: `k_copies`), in one round trip. Each part is planned as it would be
 * alone (the page is a LIMIT subquery, so the extras and copies are read for its rows only).
 */
export function pageQuery(f: ListFilter, sortBy: SortBy, page: number | null): { text: string; values: unknown[] } {
  const count = metaQuery({ ...f, updatedWithinSeconds: undefined });
  const list = listQuery(f, sortBy, page);
  const values = [...count.values, f.userId ?? -1];
  const me = `$${values.length}`;
  const shift = values.length;
  const listText = list.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`);
  return {
    text: `WITH ${pageCte(listText)}
     SELECT k.mine AS k_mine, k.unassigned AS k_unassigned, k."all" AS k_all,
            (SELECT array_agg(t.team_id) FROM team_member_projections t WHERE t.account_id = $1 AND t.user_id = ${me}) AS k_my_teams,
            CASE WHEN c.x_n = 1 THEN ${COPIES_OF_PAGE} END AS k_copies, c.*
       FROM (${count.text}) k
       LEFT JOIN p c ON true
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

/** A copy the page statement read: kind, id, data (null: removed). */
export type CopyRow = [kind: string, id: number, data: unknown];

type PageRow = ConversationRow &
  ExtrasColumns & {
    k_mine: number;
    k_unassigned: number;
    k_all: number;
    k_my_teams: number[] | null;
    k_copies: CopyRow[] | null;
    x_last_sender_type: unknown;
    x_last_sender_id: unknown;
    x_non_activity_sender_type: unknown;
    x_non_activity_sender_id: unknown;
    x_n: unknown;
  };

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

export interface ListedPage {
  meta: Counts;
  rows: ConversationRow[];
  extras: Map<string, ConversationExtras>;
  /** The caller's teams. */
  myTeams: Set<number>;
  /** The projection rows of the copies the page names (the kit completes them: `loadRefs`). */
  copies: Array<{ kind: string; id: number; data: unknown }>;
}

export async function listPageWithCounts(db: Executor, f: ListFilter, sortBy: SortBy, page: number | null): Promise<ListedPage> {
  const rows = await runPageQuery(db, f, pageQuery(f, sortBy, page));
  const first = rows[0];
  const [mine, unassigned, all] = first ? [first.k_mine, first.k_unassigned, first.k_all] : [0, 0, 0];
  const meta = { mine_count: mine, assigned_count: all - unassigned, unassigned_count: unassigned, all_count: all };
  const myTeams = new Set<number>(f.userId === null ? [] : (first?.k_my_teams ?? []));
  const out: ConversationRow[] = [];
  const extras = new Map<string, ConversationExtras>();
  const copies: ListedPage['copies'] = [];
  for (const r of rows) {
    if (r.k_copies) for (const [kind, id, data] of r.k_copies) copies.push({ kind, id, data });
    // An empty page is one row of counts with no conversation.
    if (r.id === null) continue;
    // The row is presented as it is (its other columns, k_* and x_*, are never read): not copied without them.
    out.push(r);
    extras.set(r.id, extrasOf(r));
  }
  return { meta, rows: out, extras, myTeams, copies };
}
