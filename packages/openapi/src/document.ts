import { buildOpenApiDocument, type OpenApiDocument, type OperationSource, type OperationSpec } from '@parley/shared';
import { stringify } from 'yaml';
import { SERVICES } from './sources';
import { GETTING_STARTED } from './getting-started';
import { applySpecNames } from './spec-operations';

/**
 * Order and descriptions of the groups in the rendered docs: account set-up first, then the
 * account API, then the public client API. Tags a service uses that are not named here follow,
 * sorted; names here that no operation uses are left out.
 */
const TAGS: Array<{ name: string; description: string }> = [
  { name: 'Platform', description: 'For the platform app (`platformAppApiKey`): create accounts, users, memberships and agent bots, and get a user\'s token.' },
  { name: 'Profile', description: 'The calling user.' },
  { name: 'Account', description: 'The account itself.' },
  { name: 'Agents', description: 'Members of the account and their roles.' },
  { name: 'Teams', description: 'Teams of agents.' },
  { name: 'Agent bots', description: 'Bots that act in conversations with their own token (`agentBotApiKey`).' },
  { name: 'Inboxes', description: 'Channels conversations come in through (API inboxes).' },
  { name: 'Conversations', description: 'Conversations between contacts and agents.' },
  { name: 'Messages', description: 'Messages of a conversation.' },
  { name: 'Labels', description: 'Labels of the account.' },
  { name: 'Canned Responses', description: 'Saved replies.' },
  { name: 'Contacts', description: 'Customers, with their inboxes.' },
  { name: 'Contact labels', description: 'Labels of a contact.' },
  { name: 'Automation Rule', description: 'Rules that act on conversation and message events.' },
  { name: 'Webhooks', description: 'Signed, retried event deliveries to your URL.' },
  { name: 'Help Center', description: 'Portals, categories and articles.' },
  { name: 'Audit Logs', description: 'Who changed what (administrators; the `audit_logs` feature).' },
  { name: 'Reports', description: 'Conversations, messages, response and resolution times per account, agent, team, inbox and label (administrators; docs/reports.md defines each metric).' },
  { name: 'Public contacts', description: 'Public client API (no token): the contact of an API inbox\'s client.' },
  { name: 'Public conversations', description: 'Public client API (no token): that contact\'s conversations and messages.' },
  { name: 'Help Center (public)', description: 'Published portals, categories and articles, for everyone.' },
];

/** What a service behind the proxy can answer on top of its own errors: it may be down or slow. */
const PROXY_ERRORS = [503, 504];

/** Loads a service's package (its index); the build loads the compiled code, tests the sources. */
export type ServiceLoader = (service: string) => unknown;

/** Every listed service's operations, in the list's order. */
export function operationSources(load: ServiceLoader): OperationSource[] {
  return SERVICES.map(({ name, proxied }) => {
    const operations = (load(name) as { operations?: unknown } | undefined)?.operations;
    if (!Array.isArray(operations)) throw new Error(`@parley/${name} does not export its operations (export { operations } from './openapi' in its src/index.ts)`);
    return { service: name, operations: operations as OperationSpec[], ...(proxied ? { errors: PROXY_ERRORS } : {}) };
  });
}

/** The merged document of every service, built from the services' route declarations. */
export function buildDocument(load: ServiceLoader): OpenApiDocument {
  const doc = buildOpenApiDocument(operationSources(load), {
    title: 'Parley API',
    description: GETTING_STARTED,
    tags: TAGS,
    servers: [
      { url: '/', description: 'The gateway serving this document' },
      { url: 'http://localhost:3000', description: 'Local development (`pnpm start`)' },
    ],
  });
  // SPEC's 15 operations carry SPEC's names, so a reader finds them by those names.
  applySpecNames(doc);
  return doc;
}

/** The two committed files' text. Objects shared between operations are written out in full in YAML, not as anchors. */
export function documentTexts(doc: OpenApiDocument): { json: string; yaml: string } {
  return { json: `${JSON.stringify(doc, null, 2)}\n`, yaml: stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }) };
}
