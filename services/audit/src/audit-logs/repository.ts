import type { Executor } from '@parley/shared';
import type { AuditAction, AuditableType, NewAuditEntry } from './mapping';

export interface AuditLogRow {
  id: string;
  account_id: string;
  auditable_type: string;
  auditable_id: string;
  associated_type: string;
  associated_id: string;
  action: string;
  audited_changes: Record<string, unknown>;
  auditable: Record<string, unknown> | null;
  user_id: string | null;
  user_type: string | null;
  username: string | null;
  comment: string | null;
  request_uuid: string | null;
  remote_address: string | null;
  version: number;
  created_at: Date;
}

/** Of these event ids, the ones that already have an entry (replays after processed_events was pruned). */
export async function existingEventIds(db: Executor, eventIds: string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const res = await db.query<{ event_id: string }>('SELECT event_id FROM audit_logs WHERE event_id = ANY($1::uuid[])', [eventIds]);
  return new Set(res.rows.map((r) => r.event_id));
}

export interface AuditableKey {
  accountId: number;
  auditableType: string;
  auditableId: number;
}

const keyOf = (k: AuditableKey) => `${k.accountId}:${k.auditableType}:${k.auditableId}`;

/**
 * Reserves `count` consecutive versions for each auditable and returns the first of them.
 * One upsert for the whole batch; the rows are locked in a fixed order (sorted keys) until
 * the transaction ends, so concurrent batches touching the same auditables queue up instead
 * of deadlocking, and no two of them can hand out the same version.
 */
export async function reserveVersions(db: Executor, wanted: Array<AuditableKey & { count: number }>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (wanted.length === 0) return out;
  const sorted = [...wanted].sort((a, b) => a.accountId - b.accountId || (a.auditableType < b.auditableType ? -1 : a.auditableType > b.auditableType ? 1 : 0) || a.auditableId - b.auditableId);
  const res = await db.query<{ account_id: string; auditable_type: string; auditable_id: string; last_version: number }>(
    `INSERT INTO audit_log_versions AS v (account_id, auditable_type, auditable_id, last_version)
     SELECT acc, typ, aid, n FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::int[]) WITH ORDINALITY AS w(acc, typ, aid, n, ord) ORDER BY ord
     ON CONFLICT (account_id, auditable_type, auditable_id) DO UPDATE SET last_version = v.last_version + EXCLUDED.last_version
     RETURNING account_id, auditable_type, auditable_id, last_version`,
    [sorted.map((w) => w.accountId), sorted.map((w) => w.auditableType), sorted.map((w) => w.auditableId), sorted.map((w) => w.count)],
  );
  const counts = new Map(sorted.map((w) => [keyOf(w), w.count]));
  for (const r of res.rows) {
    const key = keyOf({ accountId: Number(r.account_id), auditableType: r.auditable_type, auditableId: Number(r.auditable_id) });
    out.set(key, r.last_version - (counts.get(key) ?? 0) + 1);
  }
  return out;
}

export { keyOf as auditableKey };

export type VersionedEntry = NewAuditEntry & { version: number };

/**
 * Appends the entries in one statement; an entry whose event is recorded already is left
 * out by the unique event id. Returns how many rows each account gained.
 */
export async function insertEntries(db: Executor, entries: VersionedEntry[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (entries.length === 0) return out;
  const col = <T>(f: (e: VersionedEntry) => T) => entries.map(f);
  const json = (v: unknown) => JSON.stringify(v);
  const res = await db.query<{ account_id: string }>(
    `INSERT INTO audit_logs (account_id, auditable_type, auditable_id, associated_type, associated_id, action, audited_changes,
       auditable, user_id, user_type, username, request_uuid, remote_address, version, event_id, created_at)
     SELECT a, t, i, 'Account', a, act, ch, aud, u, ut, un, rq, ip, ver, ev, occ
       FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::jsonb[], $6::jsonb[], $7::bigint[], $8::text[], $9::text[],
                   $10::text[], $11::text[], $12::int[], $13::uuid[], $14::timestamptz[])
            WITH ORDINALITY AS x(a, t, i, act, ch, aud, u, ut, un, rq, ip, ver, ev, occ, ord)
      ORDER BY ord
     ON CONFLICT (event_id) DO NOTHING
     RETURNING account_id`,
    [
      col((e) => e.accountId),
      col((e) => e.auditableType),
      col((e) => e.auditableId),
      col((e) => e.action),
      col((e) => json(e.auditedChanges)),
      col((e) => json(e.auditable)),
      col((e) => e.userId),
      col((e) => e.userType),
      col((e) => e.username),
      col((e) => e.requestUuid),
      col((e) => e.remoteAddress),
      col((e) => e.version),
      col((e) => e.eventId),
      col((e) => e.createdAt),
    ],
  );
  for (const r of res.rows) out.set(Number(r.account_id), (out.get(Number(r.account_id)) ?? 0) + 1);
  return out;
}

/** Adds to the per-account entry counts (one upsert per batch). */
export async function addToCounts(db: Executor, added: Map<number, number>): Promise<void> {
  if (added.size === 0) return;
  const ids = [...added.keys()].sort((a, b) => a - b);
  await db.query(
    `INSERT INTO audit_log_counts AS c (account_id, entries)
     SELECT acc, n FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS w(acc, n, ord) ORDER BY ord
     ON CONFLICT (account_id) DO UPDATE SET entries = c.entries + EXCLUDED.entries`,
    [ids, ids.map((id) => added.get(id))],
  );
}

/** The account's entry count as kept at ingest (0 for an account without entries). */
export async function accountTotal(db: Executor, accountId: number): Promise<number> {
  const res = await db.query<{ entries: string }>('SELECT entries FROM audit_log_counts WHERE account_id = $1', [accountId]);
  return Number(res.rows[0]?.entries ?? 0);
}

export interface AuditLogFilter {
  accountId: number;
  auditableType?: AuditableType;
  action?: AuditAction;
  userId?: number;
  userType?: string;
  /** created_at >= since */
  since?: Date;
  /** created_at < before */
  before?: Date;
}

function whereClause(f: AuditLogFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.accountId];
  const conds = ['account_id = $1'];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    conds.push(sql.replace('?', `$${params.length}`));
  };
  if (f.auditableType !== undefined) add('auditable_type = ?', f.auditableType);
  if (f.action !== undefined) add('action = ?', f.action);
  if (f.userId !== undefined) add('user_id = ?', f.userId);
  if (f.userType !== undefined) add('user_type = ?', f.userType);
  if (f.since !== undefined) add('created_at >= ?', f.since);
  if (f.before !== undefined) add('created_at < ?', f.before);
  return { sql: conds.join(' AND '), params };
}

/** Exact count; an index-only scan over the account's (filtered) index range. */
export async function countEntries(db: Executor, f: AuditLogFilter): Promise<number> {
  const w = whereClause(f);
  const res = await db.query<{ n: string }>(`SELECT count(*) AS n FROM audit_logs WHERE ${w.sql}`, w.params);
  return Number(res.rows[0]?.n ?? 0);
}

/** Newest first; ties on created_at broken by id so pages never overlap. */
export async function listEntries(db: Executor, f: AuditLogFilter, limit: number, offset: number): Promise<AuditLogRow[]> {
  const w = whereClause(f);
  const res = await db.query<AuditLogRow>(
    `SELECT id, account_id, auditable_type, auditable_id, associated_type, associated_id, action, audited_changes, auditable,
            user_id, user_type, username, comment, request_uuid, remote_address, version, created_at
       FROM audit_logs WHERE ${w.sql}
      ORDER BY created_at DESC, id DESC
      LIMIT $${w.params.length + 1} OFFSET $${w.params.length + 2}`,
    [...w.params, limit, offset],
  );
  return res.rows;
}
