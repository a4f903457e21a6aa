import { z } from 'zod';
import { queryInt, unixSeconds } from '@parley/shared';
import { AUDIT_ACTIONS, AUDITABLE_TYPES } from './mapping';
import type { AuditLogRow } from './repository';

/** Chatwoot's page size for audit logs (25 since PR #14582). */
export const PER_PAGE = 25;

const UNIX_SECONDS = /^[0-9]{1,11}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time bound: unix seconds, an ISO-8601 date-time with offset (`...Z`), or a date
 * (`YYYY-MM-DD`, UTC). `start` is the first instant it names; `end` the first instant after
 * it, so `until` stays inclusive at the precision the caller wrote (a whole second, a day).
 */
const timeBound = z.string().transform((raw, ctx) => {
  let start: number;
  let end: number;
  if (UNIX_SECONDS.test(raw)) {
    start = Number(raw) * 1000;
    end = start + 1000;
  } else if (ISO_DATE.test(raw) && z.iso.date().safeParse(raw).success) {
    start = Date.parse(`${raw}T00:00:00Z`);
    end = start + 86_400_000;
  } else if (z.iso.datetime({ offset: true }).safeParse(raw).success) {
    start = Date.parse(raw);
    end = start + 1;
  } else {
    ctx.addIssue({ code: 'custom', message: 'must be unix seconds or an ISO-8601 date-time' });
    return z.NEVER;
  }
  if (!Number.isFinite(start)) {
    ctx.addIssue({ code: 'custom', message: 'is not a valid time' });
    return z.NEVER;
  }
  return { start: new Date(start), end: new Date(end) };
});

export const listQuerySchema = z
  .object({
    page: queryInt.default(1),
    auditable_type: z.enum(AUDITABLE_TYPES).optional(),
    action: z.enum(AUDIT_ACTIONS).optional(),
    user_id: queryInt.optional(),
    since: timeBound.optional(),
    until: timeBound.optional(),
  })
  .strict()
  .refine((q) => !q.since || !q.until || q.since.start < q.until.end, { path: ['until'], message: 'must not be before since' });

/** SPEC's Audit log entry, in the order Chatwoot's jbuilder writes it. */
export function presentEntry(row: AuditLogRow) {
  return {
    id: Number(row.id),
    auditable_id: Number(row.auditable_id),
    auditable_type: row.auditable_type,
    auditable: row.auditable,
    associated_id: Number(row.associated_id),
    associated_type: row.associated_type,
    user_id: row.user_id === null ? null : Number(row.user_id),
    user_type: row.user_type,
    username: row.username,
    action: row.action,
    audited_changes: row.audited_changes,
    version: row.version,
    comment: row.comment,
    request_uuid: row.request_uuid,
    created_at: unixSeconds(row.created_at),
    remote_address: row.remote_address,
  };
}
