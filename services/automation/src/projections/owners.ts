import { callService, systemContext, type EventEnvelope, type Executor, type Logger } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { deleteRecord, recordFor, recordsFor, upsertRecord, type OwnerBreaker, type ReadThrough, type RecordKind } from './records';

/** ContactSnapshot (docs/contracts.md), as far as payloads and rules read it. */
export interface ContactSnapshot {
  id: number;
  account_id?: number;
  name?: string | null;
  email?: string | null;
  phone_number?: string | null;
  identifier?: string | null;
  thumbnail?: string | null;
  avatar_url?: string | null;
  additional_attributes?: Record<string, unknown> | null;
  custom_attributes?: Record<string, unknown> | null;
  blocked?: boolean;
  availability_status?: string | null;
  last_activity_at?: number | null;
  created_at?: number | null;
}

/** The gateway's `Agent` (docs/contracts.md): an assignee or a message's user sender. */
export interface AgentRecord {
  id: number;
  name?: string | null;
  available_name?: string | null;
  email?: string | null;
  availability_status?: string | null;
  thumbnail?: string | null;
}

/** The gateway's `Team`. */
export interface TeamRecord {
  id: number;
  name?: string | null;
}

/** The gateway's agent bot: a message's bot sender. */
export interface BotRecord {
  id: number;
  name?: string | null;
  thumbnail?: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/**
 * Keeps the copies of other services' records from their events: contacts (rule conditions,
 * payload senders), agents and teams (meta.assignee, meta.team, user senders) and agent bots
 * (bot senders). A removed agent is kept, as old messages still name them.
 */
export async function applyOwnerEvent(db: Executor, event: EventEnvelope): Promise<void> {
  const data = event.data;
  const id = num(data['id']);
  if (id === null) return;
  if (event.type === 'user.updated') {
    // A user's name and e-mail show in every account they belong to (the event names none).
    const patch: Record<string, unknown> = {};
    for (const k of ['name', 'email'] as const) if (data[k] !== undefined) patch[k] = data[k];
    if (data['name'] !== undefined || data['display_name'] !== undefined) patch['available_name'] = data['display_name'] || data['name'];
    if (Object.keys(patch).length === 0) return;
    await db.query(`UPDATE records SET data = data || $2::jsonb, occurred_at = $3 WHERE kind = 'agent' AND id = $1 AND occurred_at <= $3`, [id, JSON.stringify(patch), event.occurred_at]);
    return;
  }
  const accountId = event.account_id ?? num(data['account_id']);
  if (accountId === null) return;
  const [prefix, action] = event.type.split('.') as [string, string];
  const kind: RecordKind | undefined = ({ contact: 'contact', agent: 'agent', team: 'team', agent_bot: 'agent_bot' } as const)[prefix as 'contact'];
  if (!kind) return;
  if (action === 'deleted') await deleteRecord(db, kind, accountId, id);
  else await upsertRecord(db, kind, accountId, id, data, event.occurred_at);
  // A merge names the contact that went into this one.
  const merged = num(data['merged_contact_id']);
  if (event.type === 'contact.merged' && merged !== null) await deleteRecord(db, 'contact', accountId, merged);
}

/** The owner events `applyOwnerEvent` keeps copies from. */
export const OWNER_EVENTS = [
  'contact.created', 'contact.updated', 'contact.merged', 'contact.deleted',
  'agent.added', 'agent.updated', 'agent.removed', 'user.updated',
  'team.created', 'team.updated', 'team.deleted',
  'agent_bot.created', 'agent_bot.updated', 'agent_bot.deleted',
];

/** Where each kind is read through to on a miss (docs/contracts.md internal APIs). */
function owner(config: AutomationConfig, kind: RecordKind | 'inbox', accountId: number, id: number): [string, string] {
  switch (kind) {
    case 'inbox':
      return [config.CONVERSATIONS_URL, `/internal/accounts/${accountId}/inboxes/${id}`];
    case 'contact':
      return [config.CONTACTS_URL, `/internal/accounts/${accountId}/contacts/${id}`];
    case 'agent':
      return [config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/agents/${id}`];
    case 'team':
      return [config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/teams/${id}`];
    case 'agent_bot':
      return [config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/agent_bots/${id}`];
  }
}

/** One record of an account from the service that owns it, asked as this service (404: AppError). */
export function askOwner<T>(config: AutomationConfig, kind: RecordKind | 'inbox', accountId: number, id: number, requestId: string): Promise<T> {
  const [base, path] = owner(config, kind, accountId, id);
  return callService<T>(base, path, systemContext('automation', accountId, requestId), config.INTERNAL_SECRET, { timeoutMs: config.PEER_LOOKUP_TIMEOUT_MS });
}

/** A read-through for one kind of record of one account. */
export function readThrough<T>(
  config: AutomationConfig,
  log: Logger,
  kind: RecordKind,
  accountId: number,
  requestId: string,
  opts: { strict?: boolean; breaker?: OwnerBreaker } = {},
): ReadThrough<T> {
  return { kind, accountId, log, ...opts, fetch: (id) => askOwner<T>(config, kind, accountId, id, requestId) };
}

/**
 * The contact from the projection, or read through to the contacts service on a miss (a
 * contact created a moment ago may not have reached the projection yet). `strict`: an
 * unreachable contacts service throws (rules must not be evaluated on a guess, the event is
 * retried); otherwise it yields null (payloads go out with a minimal sender).
 */
export function contactFor(
  db: Executor,
  config: AutomationConfig,
  log: Logger,
  accountId: number,
  contactId: number,
  requestId: string,
  opts: { strict?: boolean; breaker?: OwnerBreaker } = {},
): Promise<ContactSnapshot | null> {
  return recordFor<ContactSnapshot>(db, readThrough(config, log, 'contact', accountId, requestId, opts), contactId);
}

export { recordFor, recordsFor };
