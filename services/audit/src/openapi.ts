import { defineOperations } from '@parley/shared';
import { auditLogListResponse, listQuerySchema } from './audit-logs/schemas';

/** The audit service's one public route, as integrators call it through the gateway. */
export const operations = defineOperations([
  {
    method: 'get',
    path: '/api/v1/accounts/{account_id}/audit_logs',
    operationId: 'listAuditLogs',
    summary: 'List audit logs',
    description:
      "Administrators only (403 otherwise). Newest first, 25 a page (`page`). When the account's `audit_logs` feature is off the answer is 403 with code `feature_disabled` (Chatwoot answers an empty list); entries are recorded either way. Every entry field is typed as SPEC says, never null: `user_id` is 0 and strings are empty when unknown. Beyond Chatwoot: filters by auditable type, action, actor (`user_id`, `user_type`) and time range; an unknown or malformed parameter is 400.",
    tags: ['Audit Logs'],
    security: ['userApiKey'],
    query: listQuerySchema,
    responses: { 200: { description: 'One page of entries', schema: auditLogListResponse } },
    errors: [400, 401, 403, 404],
  },
]);
