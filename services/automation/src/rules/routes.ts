import { NotFoundError, pathId, routeKit, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from '../config';
import * as repo from './repository';
import { emptyResponse, ruleCreateResponse, ruleListResponse, ruleSchemas, ruleShowResponse, runsListResponse, runsQuery } from './schemas';
import { cloneRule, createRule, deleteRule, ruleJson, runJson, updateRule } from './service';

export const route = routeKit<ServiceDeps<AutomationConfig>>();
const RULES = '/api/v1/accounts/{account_id}/automation_rules';
const RUNS_PER_PAGE = 25;
/** Administrators only, as Chatwoot's policy (the role before the record: an agent gets 403 even for an unknown id). */
const rules = { tags: ['Automation Rule'], security: ['userApiKey' as const], role: 'administrator' as const };
const ruleErrors = [401, 403, 404, 422];
const ruleId = { id: pathId('Automation rule') };
/** What the document shows; requests are parsed with the schemas the deps configure (`WEBHOOK_ALLOW_PRIVATE`). */
const documented = ruleSchemas(false);

export const ruleRoutes = [
  route({
    method: 'get', path: RULES, operationId: 'listAutomationRules', summary: 'List automation rules', ...rules,
    response: { description: "The account's rules, oldest first", schema: ruleListResponse }, errors: [401, 403, 404],
    handler: async ({ accountId }, { pool }) => ({ payload: (await repo.listRules(pool, accountId)).map(ruleJson) }),
  }),
  // SPEC op 2: create answers `{payload: [rule]}` (Chatwoot answers the bare rule).
  route({
    method: 'post', path: RULES, operationId: 'createAutomationRule', summary: 'Create an automation rule', ...rules,
    description: 'Administrators only. The whole body is validated: every problem is a 422 naming the field.',
    body: documented.create, bodyOf: (deps) => ruleSchemas(deps.config.WEBHOOK_ALLOW_PRIVATE).create,
    response: { description: 'The new rule, inside a one-element payload array (SPEC op 2)', schema: ruleCreateResponse }, errors: ruleErrors,
    requestExample: {
      name: 'Refunds to billing',
      description: 'Label refund requests',
      event_name: 'message_created',
      active: true,
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['refund'], query_operator: null }],
      actions: [
        { action_name: 'add_label', action_params: ['billing'] },
        { action_name: 'change_priority', action_params: ['high'] },
      ],
    },
    handler: async ({ body, ctx, accountId }, { pool }) => ({ payload: [await createRule(pool, ctx, accountId, body)] }),
  }),
  route({
    method: 'get', path: `${RULES}/{id}`, operationId: 'getAutomationRule', summary: 'Show an automation rule', ...rules,
    params: ruleId, response: { description: 'The rule', schema: ruleShowResponse }, errors: [401, 403, 404],
    handler: async ({ params, accountId }, { pool }) => {
      const row = await repo.findRule(pool, accountId, params.id);
      if (!row) throw new NotFoundError('Automation rule', 'id');
      return { payload: ruleJson(row) };
    },
  }),
  // Chatwoot routes `update` for both PATCH and PUT: the same operation twice, PUT named `replace…`.
  ...(['patch', 'put'] as const).map((method) =>
    route({
      method, path: `${RULES}/{id}`, ...rules,
      operationId: method === 'patch' ? 'updateAutomationRule' : 'replaceAutomationRule',
      summary: method === 'patch' ? 'Update an automation rule (any subset of the create fields)' : 'Update an automation rule (same as PATCH)',
      params: ruleId, body: documented.update, bodyOf: (deps) => ruleSchemas(deps.config.WEBHOOK_ALLOW_PRIVATE).update,
      response: { description: 'The updated rule', schema: ruleShowResponse }, errors: ruleErrors,
      handler: async ({ params, body, ctx, accountId }, { pool }) => ({ payload: await updateRule(pool, ctx, accountId, params.id, body) }),
    }),
  ),
  route({
    method: 'delete', path: `${RULES}/{id}`, operationId: 'deleteAutomationRule', summary: 'Delete an automation rule', ...rules,
    params: ruleId, response: { description: 'Deleted', schema: emptyResponse }, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, { pool }) => {
      await deleteRule(pool, ctx, accountId, params.id);
      return {};
    },
  }),
  route({
    method: 'post', path: `${RULES}/{id}/clone`, operationId: 'cloneAutomationRule', summary: 'Copy an automation rule', ...rules,
    params: ruleId, response: { description: 'The copy', schema: ruleShowResponse }, errors: [401, 403, 404],
    handler: async ({ params, ctx, accountId }, { pool }) => ({ payload: await cloneRule(pool, ctx, accountId, params.id) }),
  }),
  route({
    method: 'get', path: `${RULES}/{id}/runs`, operationId: 'listAutomationRuleRuns', summary: 'Runs of a rule: each event it was evaluated for, whether it matched, what it did', ...rules,
    params: ruleId, query: runsQuery, response: { description: 'Newest first, 25 per page', schema: runsListResponse }, errors: [400, 401, 403, 404],
    handler: async ({ params, query, accountId }, { pool }) => {
      if (!(await repo.findRule(pool, accountId, params.id))) throw new NotFoundError('Automation rule', 'id');
      const { rows, count } = await repo.listRuns(pool, accountId, params.id, RUNS_PER_PAGE, (query.page - 1) * RUNS_PER_PAGE);
      return { meta: { count, current_page: query.page, per_page: RUNS_PER_PAGE }, payload: rows.map(runJson) };
    },
  }),
];
