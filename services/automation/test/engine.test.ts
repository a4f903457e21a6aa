import { MESSAGE_TYPE_HEADER, type Command, type RunningService } from '@parley/shared';
import { createTestEnv, randomAccountId, waitFor, type TestEnv, startPeerStub, type PeerStub } from '@parley/testkit';
import type { AutomationConfig } from '../src';
import { RuleCache } from '../src/engine/cache';
import { idempotencyKey } from '../src/engine/commands';
import { rulesConsumer, type EngineDeps } from '../src/engine/engine';
import { apiFor, refundRule, startAutomation } from './helpers';
import { createBus, envelope, userActor, type TestBus } from './bus';
import { contact, conversation, message } from './fixtures';

const labelsOf = (c: Command): string[] => (c.type === 'add_labels' || c.type === 'remove_labels' ? c.labels : []);

/*
 * The engine driven from the bus, with the conversations command endpoint (and the contacts
 * and account lookups) played by a local stub that applies commands and honours
 * idempotency keys as docs/contracts.md says.
 */
describe('automation engine', () => {
  let env: TestEnv;
  let svc: RunningService<AutomationConfig>;
  let stub: PeerStub;
  let bus: TestBus;
  let convSeq = 0;

  beforeAll(async () => {
    env = await createTestEnv();
    stub = await startPeerStub();
    // Events published together land in one batch of the rules queue (a generous gathering wait).
    svc = await startAutomation(env, { CONVERSATIONS_URL: stub.url, CONTACTS_URL: stub.url, GATEWAY_INTERNAL_URL: stub.url, CONSUMER_BATCH_WAIT_MS: 200 });
    bus = createBus(env.namespace);
  });
  afterAll(async () => {
    await bus?.close();
    await svc?.stop();
    await stub?.close();
    await env?.close();
  });

  /** A fresh account with a conversation the stub knows. */
  function setup(extra: Record<string, unknown> = {}) {
    const accountId = randomAccountId();
    convSeq += 1;
    const conv = conversation(accountId, convSeq, extra);
    stub.addConversation(conv);
    return { accountId, conv, api: apiFor(svc, accountId), commandsOf: () => stub.commands.filter((c) => c.accountId === accountId) };
  }

  async function createRule(api: ReturnType<typeof apiFor>, body: Record<string, unknown>): Promise<any> {
    const res = await api('POST', '/automation_rules', body);
    expect(res.status).toBe(200);
    return res.body.payload[0];
  }

  async function runsOf(api: ReturnType<typeof apiFor>, ruleId: number): Promise<any[]> {
    const res = await api('GET', `/automation_rules/${ruleId}/runs`);
    expect(res.status).toBe(200);
    return res.body.payload;
  }

  it('when an incoming message contains "refund", then the rule labels it billing and sets priority high, once, as the rule', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, refundRule);
    const ev = envelope('message.created', accountId, message(conv, { content: 'I would like a REFUND please' }));
    await bus.publish(ev);

    await waitFor(() => commandsOf().length === 2, { what: 'two commands' });
    const [first, second] = commandsOf();
    expect(first?.body).toEqual({
      idempotency_key: idempotencyKey(rule.id, ev.id, 0),
      actor: { type: 'automation_rule', id: rule.id, name: rule.name },
      causation_id: ev.id,
      command: { type: 'add_labels', labels: ['billing'] },
    });
    expect(second?.body.command).toEqual({ type: 'change_priority', priority: 'high' });
    expect(second?.body.idempotency_key).not.toBe(first?.body.idempotency_key);
    expect(first?.ctx.actor).toMatchObject({ type: 'service', id: 'automation' });
    expect(stub.conversations.get(`${accountId}:${conv['id']}`)).toMatchObject({ labels: ['billing'], priority: 'high' });

    const [run] = await waitFor(async () => {
      const runs = await runsOf(api, rule.id);
      return runs.length === 1 ? runs : null;
    });
    expect(run).toMatchObject({
      event_id: ev.id,
      event_type: 'message.created',
      event_name: 'message_created',
      conversation_id: conv['id'],
      matched: true,
      reason: null,
      condition_results: [true],
      actions: [
        { action_name: 'add_label', status: 'done' },
        { action_name: 'change_priority', status: 'done' },
      ],
      errors: [],
    });
  });

  it('when the message does not match, then nothing runs and the run says which condition failed', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, refundRule);
    await bus.publish(envelope('message.created', accountId, message(conv, { content: 'thanks, all good' })));
    const runs = await waitFor(async () => {
      const r = await runsOf(api, rule.id);
      return r.length === 1 ? r : null;
    });
    expect(runs[0]).toMatchObject({ matched: false, condition_results: [false], actions: [] });
    expect(commandsOf()).toHaveLength(0);
  });

  it('when a rule is inactive, then it neither runs nor records anything', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const inactive = await createRule(api, { ...refundRule, active: false });
    const marker = await createRule(api, { ...refundRule, name: 'marker', actions: [{ action_name: 'add_label', action_params: ['marker'] }] });
    await bus.publish(envelope('message.created', accountId, message(conv, { content: 'refund' })));
    await waitFor(async () => (await runsOf(api, marker.id)).length === 1, { what: 'marker run' });
    expect(await runsOf(api, inactive.id)).toEqual([]);
    expect(commandsOf().map((c) => labelsOf(c.body.command))).toEqual([['marker']]);
  });

  it('when an event was caused by an automation rule, then no rule runs (no loops) and the run says why', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, {
      ...refundRule,
      event_name: 'conversation_updated',
      conditions: [],
      actions: [{ action_name: 'add_label', action_params: ['touched'] }],
    });
    // Another rule of the same event: what the first rule did is not its business (no run recorded).
    const bystander = await createRule(api, {
      ...refundRule,
      name: 'bystander',
      event_name: 'conversation_updated',
      conditions: [{ attribute_key: 'priority', filter_operator: 'equal_to', values: ['urgent'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: ['seen'] }],
    });
    await bus.publish(envelope('conversation.updated', accountId, conv, { actor: { type: 'automation_rule', id: rule.id, name: rule.name }, changes: { labels: [[], ['touched']] } }));
    const runs = await waitFor(async () => {
      const r = await runsOf(api, rule.id);
      return r.length === 1 ? r : null;
    });
    expect(runs[0]).toMatchObject({ matched: false, reason: `caused by automation rule ${rule.id}`, actions: [] });
    // Both rules' runs of an event are written in one statement: the bystander's would be there now.
    expect(await runsOf(api, bystander.id)).toEqual([]);
    // The same change made by a person does fire it.
    await bus.publish(envelope('conversation.updated', accountId, conv, { actor: userActor, changes: { priority: [null, 'low'] } }));
    await waitFor(() => commandsOf().length === 1, { what: 'command for the user change' });
  });

  it('when activity messages or messages a rule sent arrive, then they trigger nothing, and only the sending rule records the skip', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, { ...refundRule, conditions: [] });
    const own = envelope('message.created', accountId, message(conv, { message_type: 1, content: 'refund', content_attributes: { automation_rule_id: rule.id } }));
    const others = envelope('message.created', accountId, message(conv, { message_type: 1, content: 'refund', content_attributes: { automation_rule_id: 99 } }));
    await bus.publish(
      envelope('message.created', accountId, message(conv, { message_type: 2, content: 'Conversation was resolved by Ada', sender_type: null, sender_id: null })),
      own,
      others,
    );
    const marker = envelope('message.created', accountId, message(conv, { content: 'marker' }));
    await bus.publish(marker);
    await waitFor(async () => (await runsOf(api, rule.id)).some((r) => r.event_id === marker.id), { what: 'marker run' });
    const runs = await runsOf(api, rule.id);
    expect(runs.filter((r) => r.matched)).toHaveLength(1);
    expect(runs.filter((r) => r.reason === 'message sent by an automation rule').map((r) => r.event_id)).toEqual([own.id]);
    expect(runs.some((r) => r.event_id === others.id)).toBe(false);
    expect(commandsOf().every((c) => c.body.causation_id === marker.id)).toBe(true);
  });

  it("when a rule's own action writes an activity message, then no run records it (activity messages never reach the rules queue), while a message it sent still does", async () => {
    const { accountId, conv, api } = setup();
    const rule = await createRule(api, { ...refundRule, conditions: [] });
    const byRule = { type: 'automation_rule' as const, id: rule.id, name: rule.name };
    // What a rule's add_label writes beside its conversation.updated: an activity message whose actor is the rule.
    const activity = envelope('message.created', accountId, message(conv, { message_type: 2, content: `Automation System added billing`, sender_type: null, sender_id: null }), { actor: byRule });
    const sent = envelope('message.created', accountId, message(conv, { message_type: 1, content: 'refund', content_attributes: { automation_rule_id: rule.id } }), { actor: byRule });
    await bus.publish(activity, sent);
    const marker = envelope('message.created', accountId, message(conv, { content: 'marker' }));
    await bus.publish(marker);
    await waitFor(async () => (await runsOf(api, rule.id)).some((r) => r.event_id === marker.id), { what: 'marker run' });
    const runs = await runsOf(api, rule.id);
    expect(runs.some((r) => r.event_id === activity.id)).toBe(false);
    expect(runs.find((r) => r.event_id === sent.id)).toMatchObject({ matched: false, reason: `caused by automation rule ${rule.id}` });
  });

  it('when the rules queue binds message events, then only on the message types but activity', () => {
    const spec = rulesConsumer({ config: svc.deps.config, log: svc.deps.log } as unknown as EngineDeps);
    expect(spec.bindings).toEqual(expect.arrayContaining(['conversation.created', 'conversation.updated', 'conversation.resolved', 'conversation.opened']));
    expect(spec.bindings).not.toContain('message.created');
    expect(spec.headerBindings).toEqual(['0', '1', '3'].map((t) => ({ type: 'message.created', headers: { [MESSAGE_TYPE_HEADER]: t } })));
  });

  it('when the same event is delivered twice, then each action runs once', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, refundRule);
    const ev = envelope('message.created', accountId, message(conv, { content: 'refund' }));
    await bus.publish(ev, ev);
    await waitFor(() => commandsOf().length >= 2, { what: 'commands' });
    const later = envelope('message.created', accountId, message(conv, { content: 'no match here' }));
    await bus.publish(later);
    await waitFor(async () => (await runsOf(api, rule.id)).some((r) => r.event_id === later.id), { what: 'later run' });
    expect(commandsOf().filter((c) => c.applied)).toHaveLength(2);
    expect(commandsOf().filter((c) => c.body.causation_id === ev.id)).toHaveLength(2);
    expect((await runsOf(api, rule.id)).filter((r) => r.event_id === ev.id)).toHaveLength(1);
  });

  it('when the conversations service fails mid-rule, then the event is retried and the first action does not run twice', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, refundRule);
    let failed = false;
    stub.failCommand = ({ accountId: a, body }) => {
      if (a !== accountId || body.command.type !== 'change_priority' || failed) return null;
      failed = true;
      return 503;
    };
    try {
      const ev = envelope('message.created', accountId, message(conv, { content: 'refund' }));
      await bus.publish(ev);
      await waitFor(() => commandsOf().some((c) => c.body.command.type === 'change_priority'), { what: 'priority after retry' });
      const labelCalls = commandsOf().filter((c) => c.body.command.type === 'add_labels');
      expect(labelCalls.map((c) => c.applied)).toEqual([true, false]);
      expect(new Set(labelCalls.map((c) => c.body.idempotency_key)).size).toBe(1);
      expect(stub.conversations.get(`${accountId}:${conv['id']}`)).toMatchObject({ labels: ['billing'], priority: 'high' });
      const runs = await waitFor(async () => {
        const r = await runsOf(api, rule.id);
        return r.length === 1 ? r : null;
      });
      expect(runs[0].actions).toEqual([
        { action_name: 'add_label', status: 'duplicate' },
        { action_name: 'change_priority', status: 'done' },
      ]);
    } finally {
      stub.failCommand = null;
    }
  });

  it('when one event of a batch fails mid-rule, then the batch is handled again one by one and no other event records a duplicate', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    convSeq += 1;
    const other = conversation(accountId, convSeq);
    stub.addConversation(other);
    const rule = await createRule(api, refundRule);
    let failed = false;
    stub.failCommand = ({ accountId: a, conversationId, body }) => {
      if (a !== accountId || conversationId !== other['id'] || body.command.type !== 'change_priority' || failed) return null;
      failed = true;
      return 503;
    };
    try {
      const first = envelope('message.created', accountId, message(conv, { content: 'refund' }));
      const second = envelope('message.created', accountId, message(other, { content: 'refund' }));
      await bus.publish(first, second);
      const runs = await waitFor(async () => {
        const r = await runsOf(api, rule.id);
        return r.length === 2 ? r : null;
      });
      const byEvent = new Map(runs.map((r) => [r.event_id, r.actions]));
      // The first event finished before the batch rolled back: its commands are not asked again.
      expect(byEvent.get(first.id)).toEqual([
        { action_name: 'add_label', status: 'done' },
        { action_name: 'change_priority', status: 'done' },
      ]);
      expect(commandsOf().filter((c) => c.body.causation_id === first.id).map((c) => c.applied)).toEqual([true, true]);
      // The failing one is retried as before: what ran before the failure comes back a duplicate.
      expect(byEvent.get(second.id)).toEqual([
        { action_name: 'add_label', status: 'duplicate' },
        { action_name: 'change_priority', status: 'done' },
      ]);
      expect(stub.conversations.get(`${accountId}:${conv['id']}`)).toMatchObject({ labels: ['billing'], priority: 'high' });
      expect(stub.conversations.get(`${accountId}:${other['id']}`)).toMatchObject({ labels: ['billing'], priority: 'high' });

      // The whole batch delivered again: nothing runs, nothing more is recorded.
      const calls = commandsOf().length;
      await bus.publish(first, second);
      const later = envelope('message.created', accountId, message(conv, { content: 'no match here' }));
      await bus.publish(later);
      await waitFor(async () => (await runsOf(api, rule.id)).some((r) => r.event_id === later.id), { what: 'later run' });
      expect(commandsOf()).toHaveLength(calls);
      expect(await runsOf(api, rule.id)).toHaveLength(3);
    } finally {
      stub.failCommand = null;
    }
  });

  it('when the conversations service refuses an action, then it is recorded and the next action still runs', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const rule = await createRule(api, {
      ...refundRule,
      actions: [
        { action_name: 'assign_agent', action_params: [424242] },
        { action_name: 'resolve_conversation', action_params: [] },
      ],
    });
    stub.failCommand = ({ accountId: a, body }) => (a === accountId && body.command.type === 'assign_agent' ? 422 : null);
    try {
      await bus.publish(envelope('message.created', accountId, message(conv, { content: 'refund' })));
      const runs = await waitFor(async () => {
        const r = await runsOf(api, rule.id);
        return r.length === 1 ? r : null;
      });
      expect(runs[0].actions).toEqual([
        { action_name: 'assign_agent', status: 'failed', error: 'failing on purpose' },
        { action_name: 'resolve_conversation', status: 'done' },
      ]);
      expect(runs[0].errors).toEqual([{ action_name: 'assign_agent', message: 'failing on purpose', code: 'invalid' }]);
      expect(commandsOf().map((c) => c.body.command)).toEqual([{ type: 'change_status', status: 'resolved' }]);
    } finally {
      stub.failCommand = null;
    }
  });

  it('when conditions read contact attributes, then the projection (fed by contact events) or the contacts service answers', async () => {
    const { accountId, conv, api, commandsOf } = setup({ contact_id: 501 });
    const rule = await createRule(api, {
      name: 'VIP from Portugal',
      event_name: 'conversation_created',
      conditions: [
        { attribute_key: 'email', filter_operator: 'contains', values: ['@vip.example'], query_operator: 'AND' },
        { attribute_key: 'country_code', filter_operator: 'equal_to', values: ['pt'], query_operator: 'and' },
        { attribute_key: 'tier', custom_attribute_type: 'contact_attribute', filter_operator: 'equal_to', values: ['gold'], query_operator: null },
      ],
      actions: [{ action_name: 'assign_team', action_params: [3] }],
    });
    // Projection: a contact event first, then the conversation.
    await bus.publish(envelope('contact.created', accountId, contact(accountId, 501, { email: 'ana@vip.example', custom_attributes: { tier: 'Gold' } })));
    await waitFor(async () => (await svc.deps.pool.query("SELECT 1 FROM projections WHERE account_id = $1 AND kind = 'contact' AND id = 501", [accountId])).rowCount === 1, { what: 'projected contact' });
    const lookups = stub.lookups.contacts;
    await bus.publish(envelope('conversation.created', accountId, conv));
    await waitFor(() => commandsOf().length === 1, { what: 'assign_team from the projected contact' });
    expect(commandsOf()[0]?.body.command).toEqual({ type: 'assign_team', team_id: 3 });
    expect(stub.lookups.contacts).toBe(lookups);

    // Read-through: a contact the projection has not seen yet.
    const other = setup({ contact_id: 502 });
    await createRule(other.api, { ...rule, name: 'VIP 2' });
    stub.addContact(other.accountId, contact(other.accountId, 502, { email: 'bo@vip.example', custom_attributes: { tier: 'gold' } }));
    await bus.publish(envelope('conversation.created', other.accountId, other.conv));
    await waitFor(() => other.commandsOf().length === 1, { what: 'assign_team via read-through' });
    expect(stub.lookups.contacts).toBeGreaterThan(lookups);

    // A contact that does not match: no action, and the run shows which condition failed.
    const third = setup({ contact_id: 503 });
    const r3 = await createRule(third.api, { ...rule, name: 'VIP 3' });
    stub.addContact(third.accountId, contact(third.accountId, 503, { email: 'cy@vip.example', additional_attributes: { country_code: 'ES' }, custom_attributes: { tier: 'gold' } }));
    await bus.publish(envelope('conversation.created', third.accountId, third.conv));
    const runs = await waitFor(async () => {
      const r = await runsOf(third.api, r3.id);
      return r.length === 1 ? r : null;
    });
    expect(runs[0]).toMatchObject({ matched: false, condition_results: [true, false, true] });
    expect(third.commandsOf()).toHaveLength(0);
  });

  it('when a status change is the trigger, then conversation_resolved and attribute_changed rules fire on it', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    await createRule(api, { name: 'on resolve', event_name: 'conversation_resolved', conditions: [], actions: [{ action_name: 'add_label', action_params: ['closed'] }] });
    await createRule(api, {
      name: 'changed',
      event_name: 'conversation_updated',
      conditions: [{ attribute_key: 'status', filter_operator: 'attribute_changed', values: { from: ['open'], to: ['resolved'] }, query_operator: null }],
      actions: [{ action_name: 'change_priority', action_params: ['nil'] }],
    });
    const resolved = { ...conv, status: 'resolved' };
    await bus.publish(
      envelope('conversation.resolved', accountId, resolved, { actor: userActor, changes: { status: ['open', 'resolved'] } }),
      envelope('conversation.updated', accountId, resolved, { actor: userActor, changes: { status: ['open', 'resolved'] } }),
      envelope('conversation.updated', accountId, resolved, { actor: userActor, changes: { priority: [null, 'low'] } }),
    );
    await waitFor(() => commandsOf().length === 2, { what: 'two commands' });
    expect(commandsOf().map((c) => c.body.command).sort((a, b) => a.type.localeCompare(b.type))).toEqual([
      { type: 'add_labels', labels: ['closed'] },
      { type: 'change_priority', priority: null },
    ]);
  });

  it('when a rule changes through one replica, then another replica\'s cache sees it at the next event', async () => {
    const { accountId, api } = setup();
    const otherReplica = new RuleCache(10);
    const pool = svc.deps.pool;
    const rule = await createRule(api, refundRule);
    expect((await otherReplica.rulesFor(pool, accountId, 'message_created')).map((r) => r.rule.id)).toEqual([rule.id]);
    await api('PATCH', `/automation_rules/${rule.id}`, { active: false });
    expect(await otherReplica.rulesFor(pool, accountId, 'message_created')).toEqual([]);
    await api('PATCH', `/automation_rules/${rule.id}`, { active: true, event_name: 'conversation_created' });
    expect(await otherReplica.rulesFor(pool, accountId, 'message_created')).toEqual([]);
    expect((await otherReplica.rulesFor(pool, accountId, 'conversation_created')).map((r) => r.rule.id)).toEqual([rule.id]);
  });

  it('when an account has hundreds of rules, then one event evaluates them all and records one run each', async () => {
    const { accountId, conv, api, commandsOf } = setup();
    const ids: number[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await createRule(api, { ...refundRule, name: `r${i}`, conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: [`<w${i}>`], query_operator: null }], actions: [{ action_name: 'add_label', action_params: [`l${i}`] }] });
      ids.push(r.id);
    }
    await bus.publish(envelope('message.created', accountId, message(conv, { content: 'this has <w7> and <W123>' })));
    await waitFor(() => commandsOf().length === 2, { what: 'two matching rules' });
    expect(commandsOf().map((c) => labelsOf(c.body.command)[0]).sort()).toEqual(['l123', 'l7']);
    await waitFor(async () => (await runsOf(api, ids[199] as number)).length === 1, { what: 'last rule run' });
    expect((await runsOf(api, ids[7] as number))[0]).toMatchObject({ matched: true });
    expect((await runsOf(api, ids[8] as number))[0]).toMatchObject({ matched: false });
  });
});
