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
    page: queryInt.default(1).describe('Page number, 25 entries a page; default 1'),
    // A pattern in the document, the known class names at run time: the list of types follows
    // the event catalogue, and the document should not change each time the catalogue grows.
    auditable_type: z
      .string()
      .regex(/^[A-Z][A-Za-z0-9]{0,63}$/, 'must be a class name such as Webhook')
      .refine((t) => AUDITABLE_TYPES.has(t), 'is not a type of record the audit log keeps')
      .optional()
      .describe('Only entries about this kind of record (Chatwoot class name: Webhook, AutomationRule, AccountUser, Inbox, Article, ...)'),
    action: z.enum(AUDIT_ACTIONS).optional().describe('Only entries with this action'),
    user_id: queryInt.optional().describe('Only entries made by this actor: the user with this id, or with `user_type` the actor of that type (ids of users, bots and rules overlap)'),
    user_type: z
      .string()
      .regex(/^[A-Za-z_]{1,32}$/, 'must be an actor type such as User, AgentBot or automation_rule')
      .optional()
      .describe('Only entries made by this kind of actor: User, AgentBot, automation_rule, platform, service, ...'),
    since: timeBound.optional().describe('Entries at or after this time: unix seconds, an ISO-8601 date-time, or a date (UTC)'),
    until: timeBound.optional().describe('Entries at or before this time, inclusive at the precision given (a second, a day)'),
  })
  .strict()
  .refine((q) => !q.since || !q.until || q.since.start < q.until.end, { path: ['until'], message: 'must not be before since' });

/**
 * SPEC's Audit log entry. SPEC types every field without `|null`, so what is unknown is
 * written as the type's empty value: `user_id` 0 when no user or bot made the change (a
 * system actor), `""` for a missing username, request id, address or comment.
 */
export const auditLogEntryResponse = z
  .object({
    id: z.number().int(),
    auditable_id: z.number().int(),
    auditable_type: z.string().describe('Chatwoot class name: Webhook, AutomationRule, AccountUser, Inbox, Article, ...'),
    auditable: z.record(z.string(), z.unknown()).describe('The record as the event carried it (secrets redacted)'),
    associated_id: z.number().int().describe('The account'),
    associated_type: z.literal('Account'),
    user_id: z.number().int().min(0).describe('The user (or agent bot, or automation rule: see user_type) that made the change; 0 when none'),
    user_type: z.string().describe('User, AgentBot, or the kind of system actor (automation_rule, platform, service, ...)'),
    username: z.string().describe("The user's e-mail (or a bot's name); empty when unknown"),
    action: z.enum(AUDIT_ACTIONS),
    audited_changes: z.record(z.string(), z.unknown()).describe('create/destroy: the record; update: {field: [before, after]}'),
    version: z.number().int().min(1).describe('Per auditable, 1 for its first entry'),
    comment: z.string().describe('Always empty: entries are recorded from events, which carry no comment'),
    request_uuid: z.string().describe('The x-request-id of the request that made the change; empty when none'),
    created_at: z.number().int().describe('Unix seconds'),
    remote_address: z.string().describe('The client IP of that request; empty when the change did not come from a request'),
  })
  .meta({ id: 'AuditLogEntry' });
export type AuditLogEntryJson = z.infer<typeof auditLogEntryResponse>;

export const auditLogListResponse = z.object({
  per_page: z.number().int(),
  total_entries: z.number().int().min(0),
  current_page: z.number().int(),
  audit_logs: z.array(auditLogEntryResponse),
});

/** SPEC's Audit log entry, in the order Chatwoot's jbuilder writes it; the stored nulls as SPEC's types. */
export function presentEntry(row: AuditLogRow): AuditLogEntryJson {
  return {
    id: Number(row.id),
    auditable_id: Number(row.auditable_id),
    auditable_type: row.auditable_type,
    auditable: row.auditable ?? {},
    associated_id: Number(row.associated_id),
    associated_type: 'Account',
    user_id: row.user_id === null ? 0 : Number(row.user_id),
    user_type: row.user_type ?? '',
    username: row.username ?? '',
    action: row.action as AuditLogEntryJson['action'],
    audited_changes: row.audited_changes,
    version: row.version,
    comment: row.comment ?? '',
    request_uuid: row.request_uuid ?? '',
    created_at: unixSeconds(row.created_at),
    remote_address: row.remote_address ?? '',
  };
}
