import type { HttpMethod, OpenApiDocument, OpenApiOperation, SecurityScheme } from '@parley/shared';

export interface SpecOperation {
  /** Number in SPEC.md "Endpoints". */
  n: number;
  method: HttpMethod;
  /** As SPEC writes it (its parameter names may differ from the document's). */
  path: string;
  /** SPEC's name for it: the summary the document shows, so a reader finds it by that name. */
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

/**
 * Names SPEC's 15 operations as SPEC does, in place: each gets SPEC's title as its summary
 * (whatever its service calls it), `x-spec-operation` with SPEC's number, and a first line of
 * description saying so, with SPEC's spelling of the path where the document names a path
 * parameter differently (operation 3: SPEC's `{id}` is the portal slug, `{portal_slug}` here,
 * because the portal's nested article routes already have an `{id}` of their own). Throws,
 * naming them, when any of the 15 is not in the document.
 */
export function applySpecNames(doc: OpenApiDocument): void {
  const missing: string[] = [];
  for (const s of SPEC_OPERATIONS) {
    const found = Object.entries(doc.paths).find(([p, byMethod]) => slotPath(p) === slotPath(s.path) && byMethod[s.method]);
    if (!found) {
      missing.push(`#${s.n} ${s.method.toUpperCase()} ${s.path}`);
      continue;
    }
    const [docPath, byMethod] = found;
    const op = byMethod[s.method] as OpenApiOperation;
    const spelling = docPath === s.path ? '' : ` SPEC writes the path \`${s.path}\`; the parameters are the same, named here as in the path above.`;
    const lead = `**SPEC operation ${s.n}: ${s.title}.**${spelling}`;
    // The service's own "SPEC op N." prefix says the same as the lead.
    const rest = (op.description ?? '').replace(/^SPEC op(?:eration)? \d+\s*[.:]?\s*/i, '');
    const own = rest.charAt(0).toUpperCase() + rest.slice(1);
    op.summary = s.title;
    op.description = own ? `${lead}\n\n${own}` : lead;
    op['x-spec-operation'] = s.n;
  }
  if (missing.length > 0) throw new Error(`The OpenAPI document lacks SPEC operations: ${missing.join(', ')}`);
}
