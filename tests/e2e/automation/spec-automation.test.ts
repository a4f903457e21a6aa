import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody, type ApiResponse } from '../../support/http';
import { expectFields, expectType, type SpecFieldType } from '../../support/spec-fields';

/*
 * SPEC operations 2 (create automation rule) and 15 (delete webhook) through the gateway:
 * every field SPEC lists for the Automation rule record, with its JSON type (SPEC writes no
 * `|null` for any of them, so none may be null), and the error answers with SPEC's Error
 * body. Every answer is also checked against the OpenAPI document by the client.
 */

/** SPEC "Automation rule", its Condition and its Action. */
const RULE_FIELDS: Record<string, SpecFieldType> = {
  id: 'integer',
  account_id: 'integer',
  name: 'string',
  description: 'string',
  event_name: 'string',
  conditions: 'array',
  actions: 'array',
  created_on: 'integer',
  active: 'boolean',
};
const CONDITION_FIELDS: Record<string, SpecFieldType> = { attribute_key: 'string', filter_operator: 'string', values: 'array', query_operator: 'string' };
const ACTION_FIELDS: Record<string, SpecFieldType> = { action_name: 'string', action_params: 'array' };

function expectRuleRecord(rule: any): void {
  expectFields(rule, RULE_FIELDS);
  for (const c of rule.conditions) {
    expectFields(c, CONDITION_FIELDS);
    c.values.forEach((_v: unknown, i: number) => expectType(c.values, String(i), 'string'));
  }
  for (const a of rule.actions) {
    expectFields(a, ACTION_FIELDS);
    a.action_params.forEach((_p: unknown, i: number) => expectType(a.action_params, String(i), 'string'));
  }
}

describe('SPEC operations 2 and 15 through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let other: SeededAccount;

  beforeAll(async () => {
    stack = await startStack({ only: ['automation'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    other = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const rules = (a: SeededAccount = acc) => `/api/v1/accounts/${a.accountId}/automation_rules`;
  const webhooks = (a: SeededAccount = acc) => `/api/v1/accounts/${a.accountId}/webhooks`;

  /** The request sample of SPEC operation 2. */
  const sample = {
    name: 'Add label on message create event',
    description: 'Add label support and sales on message create event if incoming message content contains text help',
    event_name: 'message_created',
    active: true,
    actions: [{ action_name: 'add_label', action_params: ['support', 'sales'] }],
    conditions: [{ attribute_key: 'content', filter_operator: 'contains', query_operator: 'OR', values: ['help'] }],
  };

  /** Administrators only: an agent, a bot and a member of another account get 403, an unknown token 401, each with the Error body. */
  async function expectRefused(method: string, path: string, body?: unknown): Promise<void> {
    const bot = await acc.addBot();
    for (const [token, status] of [
      [acc.agent.token, 403],
      [bot.token, 403],
      [other.admin.token, 403],
      ['not-a-token-at-all', 401],
    ] as const) {
      const res = await call(method, path, { token, body });
      expect({ token, status: res.status }).toEqual({ token, status });
      expectErrorBody(res.body);
    }
  }

  function ok(res: ApiResponse, what: string): any {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  }

  describe('operation 2: create automation rule', () => {
    it('when an administrator posts the SPEC sample, then 200 {payload: [rule]} with every field of the Automation rule typed as SPEC says', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await call('POST', rules(), { token: acc.admin.token, body: sample });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['payload']);
      expect(res.body.payload).toHaveLength(1);
      const rule = res.body.payload[0];
      expectRuleRecord(rule);
      expect(rule).toEqual({
        id: expect.any(Number),
        account_id: acc.accountId,
        name: sample.name,
        description: sample.description,
        event_name: 'message_created',
        conditions: [{ attribute_key: 'content', filter_operator: 'contains', query_operator: 'OR', values: ['help'] }],
        actions: [{ action_name: 'add_label', action_params: ['support', 'sales'] }],
        created_on: expect.any(Number),
        active: true,
      });
      // created_on is unix seconds.
      expect(rule.created_on).toBeGreaterThanOrEqual(before - 5);
      expect(rule.created_on).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 5);
      // The stored rule is the one answered.
      expect(ok(await call('GET', `${rules()}/${rule.id}`, { token: acc.admin.token }), 'show').payload).toEqual(rule);
    });

    it.each(['conversation_created', 'conversation_updated', 'conversation_resolved', 'message_created'])('when event_name is %s, then the rule is created with it', async (eventName) => {
      const res = await call('POST', rules(), { token: acc.admin.token, body: { ...sample, event_name: eventName, conditions: [] } });
      expect(res.status).toBe(200);
      expectRuleRecord(res.body.payload[0]);
      expect(res.body.payload[0].event_name).toBe(eventName);
    });

    it('when optional fields are left out, then description is a string, active is true, and a last condition without query operator still answers a string', async () => {
      const res = await call('POST', rules(), {
        token: acc.admin.token,
        body: {
          name: 'Minimal',
          event_name: 'conversation_created',
          conditions: [
            { attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: 'and' },
            { attribute_key: 'inbox_id', filter_operator: 'is_present' },
          ],
          actions: [{ action_name: 'resolve_conversation' }],
        },
      });
      expect(res.status).toBe(200);
      const rule = res.body.payload[0];
      expectRuleRecord(rule);
      expect(rule).toMatchObject({ description: '', active: true, actions: [{ action_name: 'resolve_conversation', action_params: [] }] });
      expect(rule.conditions[0].query_operator).toBe('and');
      expect(rule.conditions[1]).toMatchObject({ attribute_key: 'inbox_id', filter_operator: 'is_present', values: [] });
    });

    it('when action params are numbers (agent and team ids), then the rule answers them as strings and active false is kept', async () => {
      const res = await call('POST', rules(), {
        token: acc.admin.token,
        body: {
          ...sample,
          active: false,
          actions: [
            { action_name: 'assign_agent', action_params: [acc.agent.userId] },
            { action_name: 'assign_team', action_params: [7] },
          ],
        },
      });
      expect(res.status).toBe(200);
      const rule = res.body.payload[0];
      expectRuleRecord(rule);
      expect(rule.active).toBe(false);
      expect(rule.actions).toEqual([
        { action_name: 'assign_agent', action_params: [String(acc.agent.userId)] },
        { action_name: 'assign_team', action_params: ['7'] },
      ]);
    });

    it('when the caller is an agent, a bot, a member of another account or has an unknown token, then 403, 403, 403 and 401 with the Error body', async () => {
      await expectRefused('POST', rules(), sample);
      const none = await call('POST', rules(), { body: sample });
      expect(none.status).toBe(401);
      expectErrorBody(none.body);
    });

    it('when the account does not exist, then 404 with the Error body', async () => {
      const res = await call('POST', '/api/v1/accounts/2147483000/automation_rules', { token: acc.admin.token, body: sample });
      expect(res.status).toBe(404);
      expectErrorBody(res.body);
    });

    it.each([
      ['an empty body', {}, 'name'],
      ['a name that is not a string', { ...sample, name: 5 }, 'name'],
      ['a description that is not a string', { ...sample, description: ['x'] }, 'description'],
      ['an event_name outside SPEC\'s list', { ...sample, event_name: 'contact_created' }, 'event_name'],
      ['active that is not a boolean', { ...sample, active: 'yes' }, 'active'],
      ['conditions that are not an array', { ...sample, conditions: { attribute_key: 'content' } }, 'conditions'],
      ['a condition without attribute_key', { ...sample, conditions: [{ filter_operator: 'contains', values: ['x'] }] }, 'conditions.0.attribute_key'],
      ['values that are not an array of strings', { ...sample, conditions: [{ ...sample.conditions[0], values: 'help' }] }, 'conditions.0.values'],
      ['a query operator other than AND/OR', { ...sample, conditions: [{ ...sample.conditions[0], query_operator: 'XOR' }] }, 'conditions.0.query_operator'],
      ['actions that are not an array', { ...sample, actions: 'add_label' }, 'actions'],
      ['an action without action_name', { ...sample, actions: [{ action_params: ['x'] }] }, 'actions.0.action_name'],
      ['action_params that are not an array', { ...sample, actions: [{ action_name: 'add_label', action_params: 'support' }] }, 'actions.0.action_params'],
    ])('when the body has %s, then 422 with the Error body naming the field', async (_what, body, field) => {
      const res = await call('POST', rules(), { token: acc.admin.token, body });
      expect(res.status).toBe(422);
      expectErrorBody(res.body);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    });

    it('when the body is not JSON, then 400 with the Error body, and nothing is created', async () => {
      const before = ok(await call('GET', rules(other), { token: other.admin.token }), 'list').payload.length;
      const res = await call('POST', rules(other), { token: other.admin.token, raw: '{"name": "half' });
      expect(res.status).toBe(400);
      expectErrorBody(res.body, 'malformed_json');
      expect(ok(await call('GET', rules(other), { token: other.admin.token }), 'list').payload).toHaveLength(before);
    });
  });

  describe('operation 15: delete webhook', () => {
    async function webhook(a: SeededAccount = acc): Promise<any> {
      return ok(await call('POST', webhooks(a), { token: a.admin.token, body: { url: `https://example.com/spec/${Math.random().toString(36).slice(2)}` } }), 'webhook').payload.webhook;
    }

    it('when an administrator deletes a webhook, then 200 with an empty JSON object, and the webhook is gone', async () => {
      const hook = await webhook();
      const res = await call('DELETE', `${webhooks()}/${hook.id}`, { token: acc.admin.token });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.text).toBe('{}');
      expect(res.body).toEqual({});
      const list = ok(await call('GET', webhooks(), { token: acc.admin.token }), 'list');
      expect(list.payload.webhooks.map((w: any) => w.id)).not.toContain(hook.id);
      const show = await call('GET', `${webhooks()}/${hook.id}`, { token: acc.admin.token });
      expect(show.status).toBe(404);
      expectErrorBody(show.body, 'not_found');
    });

    it('when the webhook was deleted already, does not exist or is not numeric, then 404 with the Error body', async () => {
      const hook = await webhook();
      ok(await call('DELETE', `${webhooks()}/${hook.id}`, { token: acc.admin.token }), 'first delete');
      for (const id of [String(hook.id), '2147483000', 'abc', '0', '-1']) {
        const res = await call('DELETE', `${webhooks()}/${id}`, { token: acc.admin.token });
        expect({ id, status: res.status }).toEqual({ id, status: 404 });
        expectErrorBody(res.body, 'not_found');
      }
    });

    it('when an administrator of another account deletes it through their own account, then 404 and the webhook stays', async () => {
      const hook = await webhook();
      const res = await call('DELETE', `${webhooks(other)}/${hook.id}`, { token: other.admin.token });
      expect(res.status).toBe(404);
      expectErrorBody(res.body, 'not_found');
      const still = ok(await call('GET', `${webhooks()}/${hook.id}`, { token: acc.admin.token }), 'show');
      expect(still.payload.webhook.id).toBe(hook.id);
    });

    it('when the caller is an agent, a bot, a member of another account or has an unknown token, then 403, 403, 403 and 401, and the webhook stays', async () => {
      const hook = await webhook();
      await expectRefused('DELETE', `${webhooks()}/${hook.id}`);
      expect(ok(await call('GET', `${webhooks()}/${hook.id}`, { token: acc.admin.token }), 'show').payload.webhook.id).toBe(hook.id);
    });
  });
});
