import type { RequestHandler } from 'express';
import { ForbiddenError, requireRole, routeKit, type Executor } from '@parley/shared';
import { accountTotal, countEntries, listEntries } from './repository';
import { auditLogListResponse, listQuerySchema, PER_PAGE, presentEntry } from './schemas';

const route = routeKit<{ pool: Executor }>();

/**
 * Deliberate deviation: Chatwoot answers 200 with an empty list when the feature is off; we
 * say why nothing is there (after the role check, before the query is read). Entries are
 * recorded either way.
 */
const featureOn: RequestHandler = (req, _res, next) => {
  if (req.ctx.features['audit_logs'] !== true) return next(new ForbiddenError('The audit_logs feature is disabled for this account', 'feature_disabled'));
  next();
};

export const auditLogRoutes = [
  route({
    method: 'get',
    path: '/api/v1/accounts/{account_id}/audit_logs',
    operationId: 'listAuditLogs',
    summary: 'List audit logs',
    description:
      "Administrators only (403 otherwise). Newest first, 25 a page (`page`). When the account's `audit_logs` feature is off the answer is 403 with code `feature_disabled` (Chatwoot answers an empty list); entries are recorded either way. Every entry field is typed as SPEC says, never null: `user_id` is 0 and strings are empty when unknown. Beyond Chatwoot: filters by auditable type, action, actor (`user_id`, `user_type`) and time range; an unknown or malformed parameter is 400.",
    tags: ['Audit Logs'],
    security: ['userApiKey'],
    use: () => [requireRole('administrator'), featureOn],
    query: listQuerySchema,
    response: { description: 'One page of entries', schema: auditLogListResponse },
    errors: [400, 401, 403, 404],
    handler: async ({ query: q, accountId }, { pool }) => {
      const filter = {
        accountId,
        auditableType: q.auditable_type,
        action: q.action,
        userId: q.user_id,
        // User, bot and rule ids overlap: a user id alone means the user.
        userType: q.user_type ?? (q.user_id !== undefined ? 'User' : undefined),
        since: q.since?.start,
        before: q.until?.end,
      };
      const filtered = q.auditable_type !== undefined || q.action !== undefined || q.user_id !== undefined || q.user_type !== undefined || q.since !== undefined || q.until !== undefined;
      // Unfiltered (what Chatwoot clients ask): the count kept at ingest, not a count over
      // millions of rows; filtered: an exact count over the matching index range.
      const total = filtered ? await countEntries(pool, filter) : await accountTotal(pool, filter.accountId);
      const offset = (q.page - 1) * PER_PAGE;
      // Past the last page there is nothing to read; skip the deep OFFSET scan.
      const rows = offset < total ? await listEntries(pool, filter, PER_PAGE, offset) : [];
      return { per_page: PER_PAGE, total_entries: total, current_page: q.page, audit_logs: rows.map(presentEntry) };
    },
  }),
];
