import { buildOpenApiDocument, type OpenApiDocument } from '@parley/shared';
import { stringify } from 'yaml';
import { operationSources } from './operations';
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
  { name: 'Public contacts', description: 'Public client API (no token): the contact of an API inbox\'s client.' },
  { name: 'Public conversations', description: 'Public client API (no token): that contact\'s conversations and messages.' },
  { name: 'Help Center (public)', description: 'Published portals, categories and articles, for everyone.' },
];

let cached: { json: OpenApiDocument; yaml: string } | null = null;

/** The merged document of every service, built once per process from the services' zod schemas. */
export function openApiDocument(): OpenApiDocument {
  cached ??= build();
  return cached.json;
}

export function openApiYaml(): string {
  cached ??= build();
  return cached.yaml;
}

function build(): { json: OpenApiDocument; yaml: string } {
  const json = buildOpenApiDocument(operationSources(), {
    title: 'Parley API',
    description: GETTING_STARTED,
    tags: TAGS,
    servers: [
      { url: '/', description: 'The gateway serving this document' },
      { url: 'http://localhost:3000', description: 'Local development (`pnpm start`)' },
    ],
  });
  // SPEC's 15 operations carry SPEC's names, so a reader finds them by those names.
  applySpecNames(json);
  // Objects shared between operations are written out in full, not as YAML anchors.
  return { json, yaml: stringify(json, { aliasDuplicateObjects: false, lineWidth: 0 }) };
}
