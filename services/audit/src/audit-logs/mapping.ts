import { eventTypes, PoisonMessageError, type Actor, type EventEnvelope, type EventType } from '@parley/shared';

export const AUDIT_ACTIONS = ['create', 'update', 'destroy', 'sign_in', 'sign_out'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** An `auditable_type`: Chatwoot's class name for the record (`Webhook`, `AccountUser`, ...). */
export type AuditableType = string;

export interface AuditRule {
  auditableType: AuditableType;
  action: AuditAction;
}

const rule = (auditableType: AuditableType, action: AuditAction): AuditRule => ({ auditableType, action });

/**
 * The audited event types, with Chatwoot's class names. Chatwoot audits Account updates,
 * AccountUser, AutomationRule, Team(Member), Inbox(Member), Webhook and Inbox/Conversation
 * deletes; we also audit the rest issue 7 lists. Written out rather than derived where the
 * class name is not the event's resource (`agent.*` is Chatwoot's AccountUser).
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
  'article.updated': rule('Article', 'update'),
  'article.deleted': rule('Article', 'destroy'),
  'label.created': rule('Label', 'create'),
  'label.updated': rule('Label', 'update'),
  'label.deleted': rule('Label', 'destroy'),
  'custom_attribute_definition.created': rule('CustomAttributeDefinition', 'create'),
  'custom_attribute_definition.updated': rule('CustomAttributeDefinition', 'update'),
  'custom_attribute_definition.deleted': rule('CustomAttributeDefinition', 'destroy'),
} satisfies Partial<Record<EventType, AuditRule>>;

/**
 * Catalogue types deliberately not audited, each with the reason. Everything here is either
 * activity rather than a change of the account's set-up (conversations, messages, contacts
 * coming and going, which Chatwoot does not audit either; issue 7 adds only their deletions),
 * not tied to one account, or recorded by another event already.
 */
export const NOT_AUDITED: Partial<Record<EventType, string>> = {
  'account.created': 'made by the platform app before the account has members; Chatwoot audits account updates only',
  'account.deleted': 'the account and its log are no longer readable by anyone in it; the entries are kept',
  'user.created': 'not tied to one account; joining an account is the AccountUser entry (agent.added)',
  'user.updated': 'not tied to one account; role and availability changes are AccountUser entries (agent.updated)',
  'user.deleted': 'not tied to one account; leaving each account is an AccountUser entry (agent.removed)',
  'user.pubsub_token_rotated': 'a consequence of a password change, which Chatwoot does not audit either',
  'conversation.created': 'conversation activity (Chatwoot audits only deletions)',
  'conversation.updated': 'conversation activity',
  'conversation.status_changed': 'conversation activity',
  'conversation.resolved': 'conversation activity',
  'conversation.opened': 'conversation activity',
  'conversation.priority_changed': 'conversation activity',
  'conversation.labels_changed': 'conversation activity',
  'conversation.read': 'conversation activity',
  'conversation.typing_on': 'conversation activity',
  'conversation.typing_off': 'conversation activity',
  'assignee.changed': 'conversation activity',
  'team.changed': 'conversation activity (the conversation\'s team, not the Team record)',
  'message.created': 'conversation activity',
  'message.updated': 'conversation activity',
  'message.deleted': 'conversation activity',
  'contact.created': 'customer activity (Chatwoot does not audit contacts; issue 7 adds only their deletion)',
  'contact.updated': 'customer activity',
  'contact.merged': 'customer activity',
  'contact_inbox.created': 'customer activity',
  'article.published': 'comes with the article.created or article.updated that records the same status change',
  'article.archived': 'comes with the article.updated that records the same status change',
  'test.ping': 'kernel tests and health probes',
};

const CRUD_VERBS: Record<string, AuditAction> = { created: 'create', added: 'create', updated: 'update', deleted: 'destroy', removed: 'destroy' };

/** `custom_attribute_definition` -> `CustomAttributeDefinition` (Chatwoot's class naming). */
function className(resource: string): string {
  return resource
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/**
 * What an event type records, or null when it is not audited. The listed types first, then
 * the deliberate exclusions; a type that is in neither (a record type added to the catalogue
 * after this list was written, e.g. `custom_attribute_definition.created`) is audited when
 * it has the shape of a change to a record (`<resource>.created|added|updated|deleted|removed`),
 * under the resource's class name, rather than silently dropped.
 */
export function auditRuleFor(type: string): AuditRule | null {
  const listed = (AUDIT_RULES as Record<string, AuditRule | undefined>)[type];
  if (listed) return listed;
  if (type in NOT_AUDITED) return null;
  const m = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\.([a-z_]+)$/.exec(type);
  const action = m ? CRUD_VERBS[m[2] as string] : undefined;
  return m && action ? rule(className(m[1] as string), action) : null;
}

/** Routing keys the audit queue binds: every catalogue type that records an entry. */
export const AUDITED_EVENT_TYPES: string[] = eventTypes.filter((t) => auditRuleFor(t) !== null);

/** The `auditable_type` values entries can have (the list filter accepts these). */
export const AUDITABLE_TYPES: ReadonlySet<string> = new Set(AUDITED_EVENT_TYPES.map((t) => (auditRuleFor(t) as AuditRule).auditableType));

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
  const r = auditRuleFor(event.type);
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
