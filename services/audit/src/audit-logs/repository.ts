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

/**
 * Serialises writers of one auditable until the transaction ends, so two events for the
 * same record cannot both read the same max(version). Other auditables do not wait.
 */
export async function lockAuditable(db: Executor, accountId: number, auditableType: string, auditableId: number): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`audit_logs:${accountId}:${auditableType}:${auditableId}`]);
}

/**
 * Appends the entry with the auditable's next version; a second copy of the same event
 * (same event id) is ignored. Returns whether a row was written.
 */
export async function insertEntry(db: Executor, e: NewAuditEntry): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO audit_logs (account_id, auditable_type, auditable_id, associated_type, associated_id, action, audited_changes,
       auditable, user_id, user_type, username, request_uuid, remote_address, version, event_id, created_at)
     SELECT $1, $2, $3, 'Account', $1, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE(MAX(version), 0) + 1, $12, $13
       FROM audit_logs WHERE account_id = $1 AND auditable_type = $2 AND auditable_id = $3
     ON CONFLICT (event_id) DO NOTHING`,
    [
      e.accountId,
      e.auditableType,
      e.auditableId,
      e.action,
      JSON.stringify(e.auditedChanges),
      JSON.stringify(e.auditable),
      e.userId,
      e.userType,
      e.username,
      e.requestUuid,
      e.remoteAddress,
      e.eventId,
      e.createdAt,
    ],
  );
  return (res.rowCount ?? 0) > 0;
}

export interface AuditLogFilter {
  accountId: number;
  auditableType?: AuditableType;
  action?: AuditAction;
  userId?: number;
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
