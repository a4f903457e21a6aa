import fs from 'node:fs';
import path from 'node:path';
import { PoolClient } from 'pg';
import { accountOf, buildEnvelope, defineConsumer, eventCatalogue, eventTypes, parseEnvelope, systemContext, withGeneratedContracts, type EventData } from '../src';
import { agentSnapshot, conversationFixture, messageFixture, userFixture } from '@parley/testkit';

const ctx = systemContext('contract-test', 7, 'req-1');

describe('contracts and the event catalogue', () => {
  it('when docs/contracts.md is compared with the contracts, then it is current (run `pnpm docs:contracts` after changing a contract)', () => {
    const file = path.resolve(__dirname, '..', '..', '..', 'docs', 'contracts.md');
    const doc = fs.readFileSync(file, 'utf8');
    expect(withGeneratedContracts(doc)).toBe(doc);
  });

  it('when a producer writes data its contract does not describe, then writing fails naming the field', () => {
    const agent = agentSnapshot(7, 3);
    expect(() => buildEnvelope(ctx, { type: 'agent.added', accountId: 7, data: { ...agent, secret_sauce: 1 } })).toThrow(/agent.added data breaks its contract: data: Unrecognized key: "secret_sauce"/);
    const { email: _email, ...withoutEmail } = agent;
    expect(() => buildEnvelope(ctx, { type: 'agent.added', accountId: 7, data: withoutEmail })).toThrow(/data.email/);
    expect(() => buildEnvelope(ctx, { type: 'agent.added', accountId: 7, data: { ...agent, role: 'owner' } })).toThrow(/data.role/);
    expect(buildEnvelope(ctx, { type: 'agent.added', accountId: 7, data: agent }).data).toEqual(agent);
  });

  it('when events are built one after another, then their ids are time-ordered UUIDs (version 7) that sort in the order built and pass the envelope contract', async () => {
    const agent = agentSnapshot(7, 3);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const e = buildEnvelope(ctx, { type: 'agent.added', accountId: 7, data: agent });
      expect(parseEnvelope(JSON.parse(JSON.stringify(e)))).toMatchObject({ ok: true, envelope: { id: e.id } });
      ids.push(e.id);
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 2));
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Their first 48 bits are the millisecond they were made.
    const ms = parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('when a consumer reads an event from a newer producer, then unknown fields are dropped at any depth and the rest is checked', () => {
    const conv = conversationFixture(7, 12);
    const msg = messageFixture(conv);
    const wire = JSON.parse(JSON.stringify(buildEnvelope(ctx, { type: 'message.created', accountId: 7, data: msg })));
    wire.data.reactions = ['+1'];
    wire.data.conversation.sla_policy_id = 3;
    const parsed = parseEnvelope(wire);
    expect(parsed).toMatchObject({ ok: true });
    if (parsed.ok) expect(parsed.envelope.data).toEqual(msg);
    wire.data.content = 42;
    expect(parseEnvelope(wire)).toEqual({ ok: false, error: expect.stringContaining('data.content') });
  });

  it('when an envelope carries data that is not an object, then it is refused (poison), whatever its type', () => {
    const wire = JSON.parse(JSON.stringify(buildEnvelope(ctx, { type: 'message.created', accountId: 7, data: messageFixture(conversationFixture(7, 12)) })));
    for (const data of [null, 'text', 42, true, [], [{ id: 1 }]]) {
      expect(parseEnvelope({ ...wire, data })).toEqual({ ok: false, error: expect.stringContaining('data') });
      // The envelope's own check (it runs before the type is looked up): not the unknown type's error.
      expect(parseEnvelope({ ...wire, type: 'no.such.type', data })).toEqual({ ok: false, error: expect.stringMatching(/^data: .*expected object/) });
    }
    const { data: _gone, ...withoutData } = wire;
    expect(parseEnvelope(withoutData)).toEqual({ ok: false, error: expect.stringContaining('data') });
    // The data is the contract's own parse, not the object that came in.
    const parsed = parseEnvelope(wire);
    expect(parsed.ok && parsed.envelope.data !== wire.data).toBe(true);
  });

  it('when every event type is listed, then each has a schema and every snapshot names its id', () => {
    for (const type of eventTypes) expect(eventCatalogue[type].safeParse({}).success).toBe(false);
  });
});

describe('typed consumers (defineConsumer)', () => {
  it('when handlers are declared per type, then the queue binds exactly those types and each event reaches its handler with typed data', async () => {
    const seen: string[] = [];
    const spec = defineConsumer('test', (on) => {
      on('user.updated', async (_tx, user: EventData<'user.updated'>) => {
        seen.push(`user ${user.id} ${user.display_name ?? user.name}`);
      });
      on(['agent.added', 'agent.updated'], async (_tx, agent, event) => {
        seen.push(`${event.type} ${agent.available_name} in ${accountOf(event)}`);
      });
    });
    expect(spec.bindings).toEqual(['user.updated', 'agent.added', 'agent.updated']);
    const tx = {} as PoolClient;
    await spec.handle(tx, buildEnvelope(ctx, { type: 'agent.updated', accountId: 7, data: agentSnapshot(7, 3, { available_name: 'Ada' }) }));
    await spec.handle(tx, buildEnvelope(ctx, { type: 'user.updated', accountId: null, data: userFixture(3, { display_name: 'Ada L.' }) }));
    await spec.handle(tx, buildEnvelope(ctx, { type: 'team.created', accountId: 7, data: { id: 1, name: 'T', description: null, allow_auto_assign: true, account_id: 7 } }));
    expect(seen).toEqual(['agent.updated Ada in 7', 'user 3 Ada L.']);
  });

  it('when two handlers claim one type, then defining the consumer fails', () => {
    expect(() =>
      defineConsumer('dup', (on) => {
        on('team.created', async () => undefined);
        on(['team.updated', 'team.created'], async () => undefined);
      }),
    ).toThrow(/two handlers for team.created/);
  });

  it('when an event has no account, then accountOf makes it poison', () => {
    expect(() => accountOf({ type: 'user.updated', account_id: null, data: { id: 1 } })).toThrow(/without an account/);
    expect(accountOf({ type: 'agent_bot.created', account_id: null, data: { id: 1, account_id: 9 } })).toBe(9);
  });
});
