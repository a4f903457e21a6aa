import type { HttpMethod, SecurityScheme } from '@parley/shared';

export interface SpecOperation {
  /** Number in SPEC.md "Endpoints". */
  n: number;
  method: HttpMethod;
  /** As SPEC writes it. */
  path: string;
  title: string;
  /** Schemes SPEC names for it (the document may open it to more, e.g. bots). */
  security: SecurityScheme[];
}

const A = '/api/v1/accounts/{account_id}';
const user: SecurityScheme[] = ['userApiKey'];

/** The 15 operations SPEC.md lists under "Endpoints". */
export const SPEC_OPERATIONS: SpecOperation[] = [
  { n: 1, method: 'get', path: `${A}/conversations`, title: 'List conversations', security: user },
  { n: 2, method: 'post', path: `${A}/automation_rules`, title: 'Create automation rule', security: user },
  { n: 3, method: 'post', path: `${A}/portals/{id}/articles`, title: 'Create article in a portal', security: user },
  { n: 4, method: 'post', path: `${A}/conversations`, title: 'Create conversation', security: user },
  { n: 5, method: 'post', path: '/public/api/v1/inboxes/{inbox_identifier}/contacts', title: 'Create contact (public)', security: [] },
  { n: 6, method: 'post', path: `${A}/conversations/{conversation_id}/labels`, title: 'Add labels to a conversation', security: user },
  { n: 7, method: 'post', path: `${A}/conversations/{conversation_id}/toggle_priority`, title: 'Toggle conversation priority', security: ['userApiKey', 'agentBotApiKey'] },
  { n: 8, method: 'get', path: '/api/v1/profile', title: 'Fetch user profile', security: user },
  { n: 9, method: 'get', path: `${A}/contacts`, title: 'List contacts', security: user },
  { n: 10, method: 'get', path: `${A}/audit_logs`, title: 'List audit logs', security: user },
  { n: 11, method: 'delete', path: `${A}/canned_responses/{id}`, title: 'Delete canned response', security: user },
  { n: 12, method: 'delete', path: `${A}/agents/{id}`, title: 'Delete agent', security: user },
  { n: 13, method: 'delete', path: `${A}/contacts/{id}`, title: 'Delete contact', security: user },
  { n: 14, method: 'get', path: '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}', title: 'Get a single conversation (public)', security: [] },
  { n: 15, method: 'delete', path: `${A}/webhooks/{webhook_id}`, title: 'Delete webhook', security: user },
];

/** Path parameter names do not matter when matching (`{id}` and `{portal_slug}` are the same slot). */
export function slotPath(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}
