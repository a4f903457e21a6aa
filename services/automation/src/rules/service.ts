import type { Pool } from 'pg';
import { NotFoundError, unixSeconds, withTransaction, writeEvent, diff, type RequestContext } from '@parley/shared';
import * as repo from './repository';
import type { RuleCreateInput, RuleJson, RuleUpdateInput, RunJson } from './schemas';


export function ruleJson(r: repo.RuleRow): RuleJson {
  return {
    id: r.id,
    account_id: r.account_id,
    name: r.name,
    description: r.description ?? '',
    event_name: r.event_name,
    // Rows are stored normalised; this keeps the answer SPEC-typed for any row written before that.
    conditions: r.conditions.map((c) => ({ ...c, query_operator: c.query_operator ?? 'and' })),
    actions: r.actions.map((a) => ({ ...a, action_params: (a.action_params ?? []).map(String) })),
    created_on: unixSeconds(r.created_at),
    active: r.active,
  };
}

export function runJson(r: repo.RunRow): RunJson {
  return {
    id: Number(r.id),
    rule_id: r.rule_id,
    event_id: r.event_id,
    event_type: r.event_type,
    event_name: r.event_name,
    conversation_id: r.conversation_id,
    message_id: r.message_id === null ? null : Number(r.message_id),
    matched: r.matched,
    reason: r.reason,
    condition_results: r.condition_results,
    actions: r.actions as RunJson['actions'],
    errors: r.errors as RunJson['errors'],
    created_at: unixSeconds(r.created_at),
  };
}

function fields(r: repo.RuleRow): repo.RuleFields {
  return { name: r.name, description: r.description, event_name: r.event_name, conditions: r.conditions, actions: r.actions, active: r.active };
}

export async function createRule(pool: Pool, ctx: RequestContext, accountId: number, input: RuleCreateInput): Promise<RuleJson> {
  return withTransaction(pool, async (tx) => {
    const row = await repo.insertRule(tx, accountId, {
      name: input.name,
      description: input.description ?? null,
      event_name: input.event_name,
      conditions: input.conditions,
      actions: input.actions,
      active: input.active ?? true,
    });
    await repo.bumpRuleVersion(tx, accountId);
    const json = ruleJson(row);
    await writeEvent(tx, ctx, { type: 'automation_rule.created', accountId, data: { ...json } });
    return json;
  });
}

export async function updateRule(pool: Pool, ctx: RequestContext, accountId: number, id: number, input: RuleUpdateInput): Promise<RuleJson> {
  return withTransaction(pool, async (tx) => {
    const before = await repo.findRule(tx, accountId, id, true);
    if (!before) throw new NotFoundError('Automation rule', 'id');
    const next: repo.RuleFields = { ...fields(before) };
    if (input.name !== undefined) next.name = input.name;
    if (input.description !== undefined) next.description = input.description ?? null;
    if (input.event_name !== undefined) next.event_name = input.event_name;
    if (input.conditions !== undefined) next.conditions = input.conditions;
    if (input.actions !== undefined) next.actions = input.actions;
    if (input.active !== undefined) next.active = input.active;
    const changes = diff(ruleJson(before) as unknown as Record<string, unknown>, ruleJson({ ...before, ...next }) as unknown as Record<string, unknown>, [
      'name', 'description', 'event_name', 'conditions', 'actions', 'active',
    ]);
    // Nothing changed: nothing to write, no cache to refresh, no event (as webhooks).
    if (Object.keys(changes).length === 0) return ruleJson(before);
    const row = (await repo.updateRule(tx, accountId, id, next)) as repo.RuleRow;
    await repo.bumpRuleVersion(tx, accountId);
    const json = ruleJson(row);
    await writeEvent(tx, ctx, { type: 'automation_rule.updated', accountId, data: { ...json }, changes });
    return json;
  });
}

export async function deleteRule(pool: Pool, ctx: RequestContext, accountId: number, id: number): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const row = await repo.deleteRule(tx, accountId, id);
    if (!row) throw new NotFoundError('Automation rule', 'id');
    await repo.bumpRuleVersion(tx, accountId);
    await writeEvent(tx, ctx, { type: 'automation_rule.deleted', accountId, data: { ...ruleJson(row) } });
  });
}

/** Chatwoot's clone: a copy named the same, with the same conditions, actions and state. */
export async function cloneRule(pool: Pool, ctx: RequestContext, accountId: number, id: number): Promise<RuleJson> {
  return withTransaction(pool, async (tx) => {
    const src = await repo.findRule(tx, accountId, id);
    if (!src) throw new NotFoundError('Automation rule', 'id');
    const row = await repo.insertRule(tx, accountId, fields(src));
    await repo.bumpRuleVersion(tx, accountId);
    const json = ruleJson(row);
    await writeEvent(tx, ctx, { type: 'automation_rule.created', accountId, data: { ...json } });
    return json;
  });
}
