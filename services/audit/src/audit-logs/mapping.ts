import { PoisonMessageError, type Actor, type EventEnvelope, type EventType } from '@parley/shared';

export const AUDIT_ACTIONS = ['create', 'update', 'destroy', 'sign_in', 'sign_out'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Chatwoot's class names for what we audit (the `auditable_type` values). */
export const AUDITABLE_TYPES = [
  'Account',
  'AccountUser',
  'AgentBot',
  'Article',
  'AutomationRule',
  'CannedResponse',
  'Category',
  'Contact',
  'Conversation',
  'Inbox',
  'InboxMember',
  'Label',
  'Portal',
  'Team',
  'TeamMember',
  'Webhook',
] as const;
export type AuditableType = (typeof AUDITABLE_TYPES)[number];

interface AuditRule {
  auditableType: AuditableType;
  action: AuditAction;
}

const rule = (auditableType: AuditableType, action: AuditAction): AuditRule => ({ auditableType, action });

/**
 * Every auditable event type and what it records. Explicit keys, not `team.*`: `team.changed`
 * is a conversation event, and a new catalogue entry must be a decision, not an accident.
 * Chatwoot audits Account updates, AccountUser, AutomationRule, Team(Member), Inbox(Member),
 * Webhook and Inbox/Conversation deletes; we also audit the rest the issue lists.
 */
export const AUDIT_RULES = {
  'account.updated': rule('Account', 'update'),
  'agent.added': rule('AccountUser', 'create'),
  'agent.updated': rule('AccountUser', 'update'),
  'agent.removed': rule('AccountUser', 'destroy'),
  'agent_bot.created': rule('AgentBot', 'create'),
  'agent_bot.updated': rule('AgentBot', 'update'),
  'agent_bot.deleted': rule('AgentBot', 'destroy'),
  'team.created': rule('Team', 'create'),
  'team.updated': rule('Team', 'update'),
  'team.deleted': rule('Team', 'destroy'),
  'team_member.added': rule('TeamMember', 'create'),
  'team_member.removed': rule('TeamMember', 'destroy'),
  'inbox.created': rule('Inbox', 'create'),
  'inbox.updated': rule('Inbox', 'update'),
  'inbox.deleted': rule('Inbox', 'destroy'),
  'inbox_member.added': rule('InboxMember', 'create'),
  'inbox_member.removed': rule('InboxMember', 'destroy'),
  'automation_rule.created': rule('AutomationRule', 'create'),
  'automation_rule.updated': rule('AutomationRule', 'update'),
  'automation_rule.deleted': rule('AutomationRule', 'destroy'),
  'webhook.created': rule('Webhook', 'create'),
  'webhook.updated': rule('Webhook', 'update'),
  'webhook.deleted': rule('Webhook', 'destroy'),
  'contact.deleted': rule('Contact', 'destroy'),
  'conversation.deleted': rule('Conversation', 'destroy'),
  'canned_response.created': rule('CannedResponse', 'create'),
  'canned_response.updated': rule('CannedResponse', 'update'),
  'canned_response.deleted': rule('CannedResponse', 'destroy'),
  'portal.created': rule('Portal', 'create'),
  'portal.updated': rule('Portal', 'update'),
  'portal.deleted': rule('Portal', 'destroy'),
  'category.created': rule('Category', 'create'),
  'category.updated': rule('Category', 'update'),
  'category.deleted': rule('Category', 'destroy'),
  'article.created': rule('Article', 'create'),
  // `article.published`/`archived` are not audited: each comes with the `article.created` or
  // `article.updated` that carries the same status change, which is what the entry records.
  'article.updated': rule('Article', 'update'),
  'article.deleted': rule('Article', 'destroy'),
  'label.created': rule('Label', 'create'),
  'label.updated': rule('Label', 'update'),
  'label.deleted': rule('Label', 'destroy'),
} satisfies Partial<Record<EventType, AuditRule>>;

/** Routing keys the audit queue binds. */
export const AUDITED_EVENT_TYPES = Object.keys(AUDIT_RULES) as Array<keyof typeof AUDIT_RULES>;

/** What the audited gem writes in place of a secret (`[REDACTED]`). */
export const REDACTED = '[REDACTED]';
const SECRET_KEY = /token|secret|password/i;

/** Deep copy with the value of every key naming a secret replaced, at any depth. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = SECRET_KEY.test(k) ? REDACTED : redact(v);
    return out;
  }
  return value;
}

/** `{field: [before, after]}` with secrets as `[REDACTED, REDACTED]`, the shape audited keeps. */
function redactChanges(changes: Record<string, [unknown, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, [before, after]] of Object.entries(changes)) out[k] = SECRET_KEY.test(k) ? [REDACTED, REDACTED] : [redact(before), redact(after)];
  return out;
}

export interface NewAuditEntry {
  eventId: string;
  accountId: number;
  auditableType: AuditableType;
  auditableId: number;
  action: AuditAction;
  auditedChanges: Record<string, unknown>;
  auditable: Record<string, unknown>;
  userId: number | null;
  userType: string | null;
  username: string | null;
  requestUuid: string | null;
  remoteAddress: string | null;
  createdAt: string;
}

function positiveInt(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,15}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Chatwoot's `user_type` is a class name; actors that are not users or bots keep their type. */
function userOf(actor: Actor): Pick<NewAuditEntry, 'userId' | 'userType' | 'username'> {
  const userType = actor.type === 'user' ? 'User' : actor.type === 'agent_bot' ? 'AgentBot' : actor.type;
  const username = actor.email ?? actor.name ?? (typeof actor.id === 'string' ? actor.id : null);
  return { userId: positiveInt(actor.id), userType, username };
}

/**
 * The entry an event records, from the envelope alone; null for an event that is not
 * auditable. An auditable event without an account or a numeric id can never be recorded:
 * it is poison (dead-lettered, so it is kept for inspection rather than dropped).
 */
export function entryFromEvent(event: EventEnvelope): NewAuditEntry | null {
  const r = (AUDIT_RULES as Record<string, AuditRule | undefined>)[event.type];
  if (!r) return null;
  const data = event.data;
  const auditableId = positiveInt(data['id']);
  if (auditableId === null) throw new PoisonMessageError(`${event.type} ${event.id}: data.id is not a positive integer`);
  const accountId = positiveInt(event.account_id) ?? positiveInt(r.auditableType === 'Account' ? data['id'] : data['account_id']);
  if (accountId === null) throw new PoisonMessageError(`${event.type} ${event.id}: no account to associate the entry with`);
  const snapshot = redact(data) as Record<string, unknown>;
  // Create and destroy record the snapshot's fields; an update records what changed.
  const auditedChanges = r.action === 'update' ? redactChanges(event.changes ?? {}) : snapshot;
  return {
    eventId: event.id,
    accountId,
    auditableType: r.auditableType,
    auditableId,
    action: r.action,
    auditedChanges,
    auditable: snapshot,
    ...userOf(event.actor),
    requestUuid: event.request_id,
    remoteAddress: event.meta?.ip ?? null,
    createdAt: event.occurred_at,
  };
}
