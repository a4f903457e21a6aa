import { z } from 'zod';
import { eventCatalogue, eventTypes } from '../events/catalogue';
import { accountContract, agentBotContract, agentBotEventContract, agentContract, pubsubAgentRequest, pubsubTokenRotatedContract, teamContract, teamMemberContract, teamMemberIdsContract, userContract } from './identity';
import { agentInboxesContract, commandAnswerContract, conversationContract, inboxContract, inboxMemberContract, messageContract, typingContract, workingHourContract } from './conversations';
import { contactContract, contactInboxContract, contactInboxEventContract, contactMergedContract, pubsubContactRequest, resolvedContactInboxContract } from './contacts';

/** Every contract by the name docs/contracts.md gives it, with where it is published. */
export const namedContracts: Array<{ name: string; schema: z.ZodType; where: string }> = [
  { name: 'Account', schema: accountContract, where: '`account.*`; gateway `GET /internal/accounts/{id}`' },
  { name: 'User', schema: userContract, where: '`user.created|updated|deleted` (envelope `account_id` null)' },
  { name: 'PubsubTokenRotated', schema: pubsubTokenRotatedContract, where: '`user.pubsub_token_rotated` (envelope `account_id` null)' },
  { name: 'Agent', schema: agentContract, where: '`agent.*`; gateway `GET /internal/accounts/{a}/agents[/{user_id}]`' },
  { name: 'Team', schema: teamContract, where: '`team.created|updated|deleted`; gateway `GET /internal/accounts/{a}/teams/{id}`' },
  { name: 'TeamMember', schema: teamMemberContract, where: '`team_member.*`' },
  { name: 'TeamMemberIds', schema: teamMemberIdsContract, where: 'gateway `GET /internal/accounts/{a}/teams/{id}/members`' },
  { name: 'AgentBotEvent', schema: agentBotEventContract, where: '`agent_bot.*`' },
  { name: 'AgentBot', schema: agentBotContract, where: 'gateway `GET /internal/accounts/{a}/agent_bots/{id}`' },
  { name: 'Inbox', schema: inboxContract, where: '`inbox.*`; conversations `GET /internal/accounts/{a}/inboxes/{id}`, `/internal/inboxes/by_identifier/{identifier}`' },
  { name: 'WorkingHour', schema: workingHourContract, where: 'inside Inbox (`working_hours`)' },
  { name: 'InboxMember', schema: inboxMemberContract, where: '`inbox_member.*`' },
  { name: 'ConversationSnapshot', schema: conversationContract, where: '`conversation.*`, `assignee.changed`, `team.changed`; conversations `GET /internal/accounts/{a}/conversations/{id}`' },
  { name: 'Typing', schema: typingContract, where: '`conversation.typing_on|typing_off` (the typist is the envelope actor)' },
  { name: 'AgentInboxes', schema: agentInboxesContract, where: 'conversations `GET /internal/accounts/{a}/agents/{user_id}/inboxes`' },
  { name: 'PubsubAgentRequest', schema: pubsubAgentRequest, where: 'body of gateway `POST /internal/pubsub/agents/resolve` (answer `Agent`)' },
  { name: 'PubsubContactRequest', schema: pubsubContactRequest, where: 'body of contacts `POST /internal/pubsub/contact_inboxes/resolve` (answer `ResolvedContactInbox`)' },
  { name: 'MessageSnapshot', schema: messageContract, where: '`message.*`' },
  { name: 'CommandAnswer', schema: commandAnswerContract, where: 'conversations `POST /internal/accounts/{a}/conversations/{id}/commands`' },
  { name: 'ContactSnapshot', schema: contactContract, where: '`contact.created|updated|deleted`; contacts `GET /internal/accounts/{a}/contacts/{id}`' },
  { name: 'ContactMerged', schema: contactMergedContract, where: '`contact.merged` (contact merge)' },
  { name: 'ContactInbox', schema: contactInboxContract, where: 'inside ResolvedContactInbox' },
  { name: 'ContactInboxEvent', schema: contactInboxEventContract, where: '`contact_inbox.created`' },
  { name: 'ResolvedContactInbox', schema: resolvedContactInboxContract, where: 'contacts `POST /internal/accounts/{a}/contact_inboxes/resolve`, `GET /internal/accounts/{a}/contact_inboxes/{id}`, `GET /internal/inboxes/{inbox_id}/contact_inboxes/{source_id}`' },
];

type Json = Record<string, any>;

function typeOf(s: Json, defs: Json): string {
  if (s['$ref']) return String(s['$ref']).split('/').pop() as string;
  if (s['anyOf']) return (s['anyOf'] as Json[]).map((x) => typeOf(x, defs)).join('\\|');
  if (s['enum']) return (s['enum'] as unknown[]).map((v) => JSON.stringify(v)).join('\\|');
  if (s['const'] !== undefined) return JSON.stringify(s['const']);
  const types = Array.isArray(s['type']) ? (s['type'] as string[]) : [s['type'] as string];
  return types
    .map((t) => {
      if (t === 'array') return `${typeOf(s['items'] ?? {}, defs)}[]`;
      if (t === 'object') return s['properties'] ? `{${Object.keys(s['properties']).join(', ')}}` : 'object';
      return s['format'] ? `${t} (${s['format']})` : (t ?? 'any');
    })
    .join('\\|');
}

/** One contract as a table row: its name, where it is published, and each field's type. */
function fields(name: string, schema: z.ZodType, registry: z.core.$ZodRegistry<{ id?: string }>): string {
  const doc = z.toJSONSchema(schema, { metadata: registry, io: 'output', unrepresentable: 'any' }) as Json;
  const defs = (doc['$defs'] ?? {}) as Json;
  const own = (doc['$ref'] ? defs[name] : doc) as Json;
  const required = new Set<string>((own['required'] as string[]) ?? []);
  return Object.entries(own['properties'] as Json)
    .map(([k, v]) => `\`${k}\`${required.has(k) ? '' : '?'} ${typeOf(v as Json, defs)}`)
    .join(', ');
}

/**
 * The generated part of docs/contracts.md: every contract's fields, and which contract is the
 * `data` of each event type. A test fails when the committed doc differs (`pnpm docs:contracts`
 * rewrites it).
 */
export function contractsMarkdown(): string {
  const registry = z.registry<{ id?: string }>();
  for (const c of namedContracts) registry.add(c.schema, { id: c.name });
  const nameOf = new Map<z.ZodType, string>(namedContracts.map((c) => [c.schema, c.name]));
  const lines = ['| Contract | Published as | Fields |', '|---|---|---|'];
  for (const c of namedContracts) lines.push(`| **${c.name}** | ${c.where.replace(/\|/g, '\\|')} | ${fields(c.name, c.schema, registry)} |`);
  const byData = new Map<string, string[]>();
  for (const type of eventTypes) {
    const schema = eventCatalogue[type] as z.ZodType;
    const name = nameOf.get(schema) ?? 'record `{id, ...}` (contract to come: the record as the API answers it)';
    byData.set(name, [...(byData.get(name) ?? []), type]);
  }
  lines.push('', '| Event types | data |', '|---|---|');
  for (const [name, types] of byData) lines.push(`| ${types.map((t) => `\`${t}\``).join(', ')} | ${name} |`);
  return lines.join('\n');
}

export const CONTRACTS_BEGIN = '<!-- contracts:begin (generated from packages/shared/src/contracts by `pnpm docs:contracts`; do not edit) -->';
export const CONTRACTS_END = '<!-- contracts:end -->';

/** The doc with its generated part replaced by the current contracts. */
export function withGeneratedContracts(doc: string): string {
  const start = doc.indexOf(CONTRACTS_BEGIN);
  const end = doc.indexOf(CONTRACTS_END);
  if (start < 0 || end < start) throw new Error('docs/contracts.md has lost its contracts markers');
  return `${doc.slice(0, start + CONTRACTS_BEGIN.length)}\n${contractsMarkdown()}\n${doc.slice(end)}`;
}
