import { AppError, bindingsWithoutActivity, type ConsumerSpec, type EventEnvelope, type Logger, type PoolClient } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { contactFor } from '../projections/copies';
import { RULE_EVENT_BY_TYPE, type RuleEventName } from '../rules/catalogue';
import { insertRuns, type NewRun } from '../rules/repository';
import type { Action } from '../rules/schemas';
import { insertDeliveries } from '../webhooks/deliveries-repository';
import type { PayloadSources } from '../webhooks/payload-sources';
import { conversationPayload } from '../webhooks/payloads';
import type { CompiledRule, RuleCache } from './cache';
import { idempotencyKey, sendCommand, type Command } from './commands';
import { evaluate, type Facts } from './conditions';

type Json = Record<string, unknown>;

export interface EngineDeps {
  config: AutomationConfig;
  log: Logger;
  cache: RuleCache;
  payloads: PayloadSources;
  /** Outcomes of commands this process sent in a batch that then rolled back (see AppliedCommands). */
  applied?: AppliedCommands;
}

/**
 * The outcome of each command this process sent, by idempotency key, for a little while. A
 * batch of rule events is one transaction; when one event of it fails, the batch rolls back
 * and the kernel handles its events again one by one. The events that had finished sent their
 * commands already (the conversations service applied them, once, by key): asking again would
 * answer `applied: false` and record them as duplicates although nothing happened twice. Their
 * outcomes are taken from here instead. The event that failed forgets its own, so its retry
 * records what a retry records (`duplicate` for what ran before the failure).
 */
export class AppliedCommands {
  private readonly outcomes = new Map<string, ActionOutcome['status']>();

  constructor(private readonly max = 10_000) {}

  get(key: string): ActionOutcome['status'] | undefined {
    return this.outcomes.get(key);
  }

  set(key: string, status: ActionOutcome['status']): void {
    this.outcomes.delete(key);
    this.outcomes.set(key, status);
    while (this.outcomes.size > this.max) {
      const oldest = this.outcomes.keys().next().value;
      if (oldest === undefined) break;
      this.outcomes.delete(oldest);
    }
  }

  forget(keys: Iterable<string>): void {
    for (const k of keys) this.outcomes.delete(k);
  }
}

type RulesOf = (accountId: number) => Promise<(eventName: string) => CompiledRule[]>;

export interface ActionOutcome {
  action_name: string;
  status: 'done' | 'duplicate' | 'failed';
  error?: string;
}

/** The rule whose work an event is (the loop guard's skips are recorded on its runs only), or null. */
function ruleIdOf(v: unknown): number | null {
  const id = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(id) ? id : null;
}

/**
 * Why an event runs no rules at all (Chatwoot's AutomationRuleListener guards), or null.
 * The skip goes on the runs of the event's rules; with `onlyRule`, only on that rule's (what
 * a rule did came back to the engine: its own runs say so, while every other rule of the event
 * would get a row per action of that rule, half the runs written on an account with many rules).
 */
function skipReason(event: EventEnvelope, eventName: RuleEventName, conversation: Json, message: Json | null): { reason: string; onlyRule?: number | null } | null {
  if (event.actor.type === 'automation_rule') {
    // The loop guard: what a rule did never triggers rules.
    return { reason: `caused by automation rule ${String(event.actor.id)}`, onlyRule: ruleIdOf(event.actor.id) };
  }
  const auto = (conversation['additional_attributes'] as Json | undefined)?.['auto_reply'];
  if ((eventName === 'conversation_created' || eventName === 'conversation_opened') && auto !== undefined && auto !== null && auto !== false && auto !== '') {
    return { reason: 'auto-reply conversation' };
  }
  if (message) {
    const ca = (message['content_attributes'] as Json | undefined) ?? {};
    if (ca['automation_rule_id'] !== undefined && ca['automation_rule_id'] !== null) return { reason: 'message sent by an automation rule', onlyRule: ruleIdOf(ca['automation_rule_id']) };
    if (ca['auto_reply'] === true) return { reason: 'auto-reply email' };
  }
  return null;
}

/** The conversations service command an action means (null: not a conversation command). */
export function commandFor(a: Action): Command | null {
  const p = a.action_params;
  const idOrNull = (v: unknown): number | null => (v === undefined || v === null || v === 'nil' || v === 0 || v === '0' ? null : Number(v));
  switch (a.action_name) {
    case 'add_label':
      return { type: 'add_labels', labels: p.map(String) };
    case 'remove_label':
      return { type: 'remove_labels', labels: p.map(String) };
    case 'assign_agent':
      return { type: 'assign_agent', assignee_id: idOrNull(p[0]) };
    case 'remove_assigned_agent':
      return { type: 'assign_agent', assignee_id: null };
    case 'assign_team':
      return { type: 'assign_team', team_id: idOrNull(p[0]) };
    case 'remove_assigned_team':
      return { type: 'assign_team', team_id: null };
    case 'change_priority': {
      const v = String(p[0]);
      return { type: 'change_priority', priority: v === 'nil' || v === 'none' ? null : (v as 'low' | 'medium' | 'high' | 'urgent') };
    }
    case 'change_status':
      return { type: 'change_status', status: String(p[0]) as 'open' | 'resolved' | 'pending' | 'snoozed', snoozed_until: null };
    case 'resolve_conversation':
      return { type: 'change_status', status: 'resolved' };
    case 'open_conversation':
      return { type: 'change_status', status: 'open' };
    case 'pending_conversation':
      return { type: 'change_status', status: 'pending' };
    case 'snooze_conversation':
      // Chatwoot snoozes with no end: until the next incoming message.
      return { type: 'change_status', status: 'snoozed', snoozed_until: null };
    case 'mute_conversation':
      return { type: 'mute' };
    case 'send_message':
      return { type: 'send_message', content: String(p[0]), private: false };
    case 'add_private_note':
      return { type: 'send_message', content: String(p[0]), private: true };
    case 'send_webhook_event':
      return null;
  }
}

/** A failure worth retrying the whole event for (the peer is down or overloaded), as opposed to a refusal. */
function transient(err: unknown): boolean {
  if (!(err instanceof AppError)) return true;
  return err.status >= 500 || err.status === 429 || err.status === 408;
}

/**
 * Runs the account's active rules for one conversation or message event, inside the
 * consumer's transaction (which also records the event as processed), and answers the runs to
 * record (the caller inserts a batch's at once). Each action goes to the conversations
 * service with an idempotency key derived from (rule, event, action), so a redelivery, or a
 * retry after the process died mid-rule, never does anything twice: a transient failure
 * throws, the transaction (runs included) rolls back and the event is retried; the actions
 * that had run come back `applied: false` (this event's outcomes are forgotten by
 * `deps.applied` when it throws). A refusal (a 4xx, say an agent who is not an inbox member)
 * is recorded on the run and the next action runs, as Chatwoot's ActionService does.
 */
async function evaluateEvent(deps: EngineDeps, tx: PoolClient, event: EventEnvelope, rulesOf: RulesOf): Promise<NewRun[]> {
  const sent: string[] = [];
  try {
    return await evaluateRules(deps, tx, event, rulesOf, sent);
  } catch (err) {
    deps.applied?.forget(sent);
    throw err;
  }
}

async function evaluateRules(deps: EngineDeps, tx: PoolClient, event: EventEnvelope, rulesOf: RulesOf, sent: string[]): Promise<NewRun[]> {
  const eventName = RULE_EVENT_BY_TYPE[event.type];
  const accountId = event.account_id;
  if (!eventName || accountId === null) return [];
  const rules = (await rulesOf(accountId))(eventName);
  if (rules.length === 0) return [];

  const isMessage = event.type.startsWith('message.');
  const message = isMessage ? event.data : null;
  const conversation: Json = isMessage
    ? ((event.data['conversation'] as Json | undefined) ?? { id: event.data['conversation_id'], account_id: accountId, inbox_id: event.data['inbox_id'] })
    : event.data;
  const conversationId = typeof conversation['id'] === 'number' ? conversation['id'] : null;
  const messageId = message && typeof message['id'] === 'number' ? message['id'] : null;
  // A run as a literal, not `{ ...base, ruleId, ... }`: an object spread given new properties is
  // slow on Node 20's V8 (docs/architecture.md, "Runtime"), and an event makes a run per rule.
  const eventId = event.id;
  const eventType = event.type;
  const newRun = (ruleId: number, matched: boolean, reason: string | null, conditionResults: Array<boolean | null>): NewRun => ({
    accountId, ruleId, eventId, eventType, eventName, conversationId, messageId, matched, reason, conditionResults, actions: [], errors: [],
  });
  const requestId = event.request_id ?? event.id;

  const skip = skipReason(event, eventName, conversation, message);
  if (skip) {
    const recorded = skip.onlyRule === undefined ? rules : rules.filter((r) => r.rule.id === skip.onlyRule);
    return recorded.map((r) => newRun(r.rule.id, false, skip.reason, r.conditions.map(() => null)));
  }

  const contactId = typeof conversation['contact_id'] === 'number' ? conversation['contact_id'] : null;
  const contact =
    contactId !== null && rules.some((r) => r.needsContact) ? await contactFor(tx, deps, accountId, contactId, requestId, { strict: true }) : null;
  const facts: Facts = { conversation, message, contact: contact as Json | null, changes: event.changes ?? null };

  const runs: NewRun[] = [];
  for (const r of rules) {
    const { matched, results } = evaluate(r.conditions, facts);
    const run = newRun(r.rule.id, matched, null, results);
    runs.push(run);
    if (!matched) continue;
    if (conversationId === null) {
      run.errors.push({ action_name: null, message: 'the event names no conversation', code: 'no_conversation' });
      continue;
    }
    await runActions(deps, tx, r, event, { accountId, conversationId, conversation, requestId }, run, sent);
  }
  return runs;
}

interface Target {
  accountId: number;
  conversationId: number;
  conversation: Json;
  requestId: string;
}

async function runActions(deps: EngineDeps, tx: PoolClient, r: CompiledRule, event: EventEnvelope, t: Target, run: NewRun, sent: string[]): Promise<void> {
  const actions = run.actions as ActionOutcome[];
  for (const [index, action] of r.rule.actions.entries()) {
    try {
      if (action.action_name === 'send_webhook_event') {
        const queued = await queueRuleWebhook(deps, tx, r, event, t, index, String(action.action_params[0]));
        actions.push({ action_name: action.action_name, status: queued ? 'done' : 'duplicate' });
        continue;
      }
      const command = commandFor(action);
      if (!command) continue;
      const key = idempotencyKey(r.rule.id, event.id, index);
      const known = deps.applied?.get(key);
      if (known !== undefined) {
        actions.push({ action_name: action.action_name, status: known });
        continue;
      }
      sent.push(key);
      const answer = await sendCommand(deps, {
        accountId: t.accountId,
        conversationId: t.conversationId,
        ruleId: r.rule.id,
        ruleName: r.rule.name,
        eventId: event.id,
        requestId: t.requestId,
        actionIndex: index,
        command,
      });
      const status = answer.applied ? 'done' : 'duplicate';
      deps.applied?.set(key, status);
      actions.push({ action_name: action.action_name, status });
    } catch (err) {
      if (transient(err)) throw err;
      const e = err as AppError;
      deps.log.info({ ruleId: r.rule.id, eventId: event.id, action: action.action_name, err: e.message }, 'automation action refused');
      actions.push({ action_name: action.action_name, status: 'failed', error: e.message });
      run.errors.push({ action_name: action.action_name, message: e.message, code: e.code });
    }
  }
}

/** Chatwoot's send_webhook_event: the conversation's webhook data with `event: "automation_event.<event_name>"`, queued for the sender. */
async function queueRuleWebhook(deps: EngineDeps, tx: PoolClient, r: CompiledRule, event: EventEnvelope, t: Target, index: number, url: string): Promise<boolean> {
  const inboxId = typeof t.conversation['inbox_id'] === 'number' ? t.conversation['inbox_id'] : null;
  const message = event.type.startsWith('message.') ? event.data : null;
  const pc = await deps.payloads.context(tx, t.accountId, t.requestId, { inboxId, conversation: t.conversation, message });
  const name = `automation_event.${r.rule.event_name}`;
  const inserted = await insertDeliveries(tx, [
    {
      accountId: t.accountId,
      kind: 'rule',
      ruleId: r.rule.id,
      url,
      dedupeKey: `rule:${r.rule.id}:${event.id}:${index}`,
      event: name,
      sourceEventId: event.id,
      payload: conversationPayload(t.conversation, pc, name, null),
    },
  ]);
  return inserted > 0;
}

/** The conversation an event is about (its rule actions target it), or null. */
function conversationKey(event: EventEnvelope): string | null {
  const d = event.data;
  const conv = event.type.startsWith('message.') ? ((d['conversation'] as Json | undefined)?.['id'] ?? d['conversation_id']) : d['id'];
  return typeof conv === 'number' ? `${event.account_id}:${conv}` : null;
}

/**
 * The `automation.rules` queue, in batch mode: the events that arrive together are evaluated
 * in one transaction, their runs recorded in one insert, each account's rule version read
 * once. The events of one conversation run one after the other, in arrival order; those of
 * different conversations side by side (each action is a call to the conversations service,
 * and a batch one call at a time would be as slow as their sum). Up to
 * RULES_BATCH_CONCURRENCY batches are handled at once, a conversation's events in one of them
 * at a time (the kernel's order key), so new events do not wait for the slowest command of the
 * batch before them. Retried batches never record an action twice (AppliedCommands).
 */
export function rulesConsumer(deps: EngineDeps): ConsumerSpec {
  const engine: EngineDeps = { ...deps, applied: deps.applied ?? new AppliedCommands() };
  return {
    name: 'rules',
    // Activity messages run no rules and record no run, a rule's own included (each label or
    // status change a rule makes writes one): the broker does not send them here (their message
    // type header), a delivery, a transaction and a run row fewer per such action.
    ...bindingsWithoutActivity(Object.keys(RULE_EVENT_BY_TYPE)),
    // What an older relay published without the headers arrives all the same: acked without a transaction.
    wants: (event) => {
      if (!RULE_EVENT_BY_TYPE[event.type] || event.account_id === null) return false;
      return !(event.type.startsWith('message.') && event.data['message_type'] === 2);
    },
    batch: {
      size: deps.config.CONSUMER_BATCH_SIZE,
      maxWaitMs: deps.config.CONSUMER_BATCH_WAIT_MS,
      // Several batches waiting on their commands at once; a conversation's events in one of them at a time.
      concurrency: deps.config.RULES_BATCH_CONCURRENCY,
      key: conversationKey,
      handle: async (tx, events, each) => {
        const accounts = new Map<number, Promise<(eventName: string) => CompiledRule[]>>();
        const rulesOf: RulesOf = (accountId) => {
          let p = accounts.get(accountId);
          if (!p) accounts.set(accountId, (p = engine.cache.forAccount(tx, accountId)));
          return p;
        };
        const lanes = new Map<string, EventEnvelope[]>();
        for (const event of events) {
          const key = conversationKey(event) ?? event.id;
          const lane = lanes.get(key);
          if (lane) lane.push(event);
          else lanes.set(key, [event]);
        }
        const runs = new Map<string, NewRun[]>();
        const outcomes = await Promise.allSettled(
          [...lanes.values()].map(async (lane) => {
            for (const event of lane) runs.set(event.id, await each(event, () => evaluateEvent(engine, tx, event, rulesOf)));
          }),
        );
        const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (failed) throw failed.reason;
        await insertRuns(tx, events.flatMap((e) => runs.get(e.id) ?? []));
      },
    },
  };
}
