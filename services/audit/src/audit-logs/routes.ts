import { Router } from 'express';
import { accountIdOf, ForbiddenError, parseQuery, requireAccount, requireRole, type Executor } from '@parley/shared';
import { accountTotal, countEntries, listEntries } from './repository';
import { listQuerySchema, PER_PAGE, presentEntry } from './schemas';

/** Mounted at `/api/v1/accounts/:account_id/audit_logs`. */
export function auditLogsRouter(db: Executor): Router {
  const router = Router({ mergeParams: true });

  router.get('/', requireAccount, requireRole('administrator'), async (req, res) => {
    // Deliberate deviation: Chatwoot answers 200 with an empty list when the feature is
    // off; we say why nothing is there. Entries are recorded either way.
    if (req.ctx.features['audit_logs'] !== true) {
      throw new ForbiddenError('The audit_logs feature is disabled for this account', 'feature_disabled');
    }
    const q = parseQuery(listQuerySchema, req.query);
    const filter = {
      accountId: accountIdOf(req),
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
    const total = filtered ? await countEntries(db, filter) : await accountTotal(db, filter.accountId);
    const offset = (q.page - 1) * PER_PAGE;
    // Past the last page there is nothing to read; skip the deep OFFSET scan.
    const rows = offset < total ? await listEntries(db, filter, PER_PAGE, offset) : [];
    res.json({ per_page: PER_PAGE, total_entries: total, current_page: q.page, audit_logs: rows.map(presentEntry) });
  });

  return router;
}
