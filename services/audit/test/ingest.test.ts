import { randomUUID } from 'node:crypto';
import type { EventEnvelope, EventType, RunningService } from '@parley/shared';
import { accountFixture, asCaller, contactFixture, createTestEnv, eventFixture, inboxFixture, randomAccountId, startTestService, teamFixture, waitFor, type TestEnv } from '@parley/testkit';
import { auditConfigSchema, auditService, type AuditConfig } from '../src';
import { AUDITED_EVENT_TYPES, auditRuleFor, redact, REDACTED, type AuditRule } from '../src/audit-logs/mapping';
import { conversationSnapshot, createBus, envelope, type TestBus } from './bus';

/*
 * The consumer fed straight from the bus. The single ingest worker writes its batches one
 * after the other in arrival order, so once a marker published last is recorded, everything
 * published before it has been handled (recorded, skipped or dead-lettered).
 */
describe('audit consumer: one entry per auditable event', () => {
  let env: TestEnv;
  let svc: RunningService<AuditConfig>;
  let bus: TestBus;
  const markerAccount = randomAccountId();
  let markerSeq = 0;

  beforeAll(async () => {
    env = await createTestEnv();
    svc = await startTestService(auditService, auditConfigSchema.parse({ ...env.config, CONSUMER_MAX_ATTEMPTS: 2 }));
    bus = createBus(env.namespace);
  });
  afterAll(async () => {
    await bus?.close();
    await svc?.stop();
    await env?.close();
  });

  async function list(accountId: number, query = ''): Promise<any> {
    const res = await fetch(`${svc.url}/api/v1/accounts/${accountId}/audit_logs${query}`, {
      headers: asCaller({ accountId, role: 'administrator', features: { audit_logs: true } }),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  async function allEntries(accountId: number): Promise<any[]> {
    const out: any[] = [];
    for (let page = 1; ; page++) {
      const body = await list(accountId, `?page=${page}`);
      out.push(...body.audit_logs);
      if (body.audit_logs.length < body.per_page) return out;
    }
  }

  /** Publishes a marker last and waits until it is recorded: everything before it is done. */
  async function drain(): Promise<void> {
    markerSeq += 1;
    const id = markerSeq;
    await bus.publish(envelope({ type: 'label.created', accountId: markerAccount, data: { id, title: `marker-${id}` } }));
    await waitFor(async () => (await list(markerAccount, '?auditable_type=Label')).audit_logs.some((e: any) => e.auditable_id === id), { what: `marker ${id}` });
  }

  const dataFor = (type: string, accountId: number, id: number): Record<string, unknown> => eventFixture(type as EventType, accountId, id);

  it('when every auditable event type arrives once, then each yields exactly one entry with its action, changes, user, request id and address', async () => {
    const accountId = randomAccountId();
    const rules = AUDITED_EVENT_TYPES.map((t) => [t, auditRuleFor(t) as AuditRule] as const);
    const sent = new Map<string, { ev: EventEnvelope; auditableType: string; action: string }>();
    const events = rules.map(([type, rule], i) => {
      const changes = rule.action === 'update' ? { name: [`old ${i}`, `new ${i}`] as [unknown, unknown] } : null;
      const ev = envelope({ type: type as EventType, accountId, data: dataFor(type, accountId, 1000 + i), changes, ip: `198.51.100.${i}` });
      sent.set(ev.request_id as string, { ev, ...rule });
      return ev;
    });
    await bus.publish(...events);
    await waitFor(async () => (await list(accountId)).total_entries >= events.length, { what: 'all entries' });
    await drain();

    const entries = await allEntries(accountId);
    expect(entries).toHaveLength(events.length);
    for (const entry of entries) {
      const s = sent.get(entry.request_uuid);
      expect(s).toBeDefined();
      const { ev, auditableType, action } = s!;
      expect(entry).toEqual({
        id: expect.any(Number),
        auditable_id: ev.data['id'],
        auditable_type: auditableType,
        // Real snapshots carry secrets (an inbox's hmac_token); the redaction test below covers them.
        auditable: redact(ev.data),
        associated_id: accountId,
        associated_type: 'Account',
        user_id: 7,
        user_type: 'User',
        username: 'ada@example.com',
        action,
        audited_changes: action === 'update' ? ev.changes : redact(ev.data),
        version: 1,
        comment: '',
        request_uuid: ev.request_id,
        created_at: Math.floor(Date.parse(ev.occurred_at) / 1000),
        remote_address: ev.meta?.ip,
      });
      sent.delete(entry.request_uuid);
    }
    expect(sent.size).toBe(0);
  });

  it('when the same event is delivered twice, then it yields one entry', async () => {
    const accountId = randomAccountId();
    const ev = envelope({ type: 'webhook.created', accountId, data: { id: 5, url: 'https://example.com/hook' } });
    await bus.publish(ev);
    await bus.publish(ev);
    await drain();
    const body = await list(accountId);
    expect(body.total_entries).toBe(1);
    expect(body.audit_logs[0]).toMatchObject({ auditable_type: 'Webhook', auditable_id: 5, action: 'create', request_uuid: ev.request_id });
  });

  it('when an event is replayed after its processed_events row is gone, then the unique event id still keeps one entry', async () => {
    const accountId = randomAccountId();
    const ev = envelope({ type: 'team.created', accountId, data: teamFixture(accountId, 9, { name: 'Support' }) });
    await bus.publish(ev);
    await drain();
    // As after pruning the dedupe table, or a restore: only the entry's own key is left.
    await svc.deps.pool.query('DELETE FROM processed_events WHERE event_id = $1', [ev.id]);
    await bus.publish(ev);
    await drain();
    const again = await svc.deps.pool.query('SELECT 1 FROM processed_events WHERE event_id = $1', [ev.id]);
    expect(again.rowCount).toBe(1);
    const body = await list(accountId);
    expect(body.total_entries).toBe(1);
    expect(body.audit_logs[0]).toMatchObject({ auditable_type: 'Team', version: 1 });
  });

  it('when events are not auditable, then they yield no entry', async () => {
    const accountId = randomAccountId();
    await bus.publish(
      // `team.changed` is a conversation event, not a Team one.
      envelope({ type: 'team.changed', accountId, data: conversationSnapshot(accountId, 3) }),
      envelope({ type: 'contact.updated', accountId, data: contactFixture(accountId, 4, { name: 'Carol' }), changes: { name: ['C', 'Carol'] } }),
      envelope({ type: 'conversation.created', accountId, data: conversationSnapshot(accountId, 5) }),
      envelope({ type: 'account.created', accountId, data: accountFixture(accountId, { name: 'Acme' }) }),
    );
    // A real, auditable event after them, so the test sees the account's entries at all.
    const ok = envelope({ type: 'contact.deleted', accountId, data: contactFixture(accountId, 4, { name: 'Carol' }) });
    await bus.publish(ok);
    await drain();
    const body = await list(accountId);
    expect(body.audit_logs.map((e: any) => e.request_uuid)).toEqual([ok.request_id]);
    expect(body.total_entries).toBe(1);
  });

  it('when an event carries secrets, then they are redacted in the changes and the snapshot', async () => {
    const accountId = randomAccountId();
    // Secrets at any depth: an inbox's hmac_token, and keys inside a contact's free-form attributes.
    const inbox = inboxFixture(accountId, 11, { name: 'API', hmac_token: 'hm-123' });
    const contact = contactFixture(accountId, 13, { additional_attributes: { channel: { secret: 's3', webhook_url: 'https://x.test', api_token: 'tk' }, password_hint: 'p' } });
    const created = envelope({ type: 'inbox.created', accountId, data: inbox });
    const gone = envelope({ type: 'contact.deleted', accountId, data: contact });
    const updated = envelope({ type: 'webhook.updated', accountId, data: { id: 12, url: 'https://h.test', secret: 'new' }, changes: { secret: ['old', 'new'], url: ['https://a.test', 'https://h.test'] } });
    await bus.publish(created, gone, updated);
    await drain();
    const entries = await allEntries(accountId);
    const inboxEntry = entries.find((e) => e.auditable_type === 'Inbox');
    const contactEntry = entries.find((e) => e.auditable_type === 'Contact');
    const hook = entries.find((e) => e.auditable_type === 'Webhook');
    const redactedInbox = { ...inbox, hmac_token: REDACTED };
    expect(inboxEntry.audited_changes).toEqual(redactedInbox);
    expect(inboxEntry.auditable).toEqual(redactedInbox);
    expect(contactEntry.auditable.additional_attributes).toEqual({ channel: { secret: REDACTED, webhook_url: 'https://x.test', api_token: REDACTED }, password_hint: REDACTED });
    expect(hook.audited_changes).toEqual({ secret: [REDACTED, REDACTED], url: ['https://a.test', 'https://h.test'] });
    expect(hook.auditable).toEqual({ id: 12, url: 'https://h.test', secret: REDACTED });
    const raw = await svc.deps.pool.query('SELECT audited_changes::text || auditable::text AS t FROM audit_logs WHERE account_id = $1', [accountId]);
    for (const r of raw.rows) expect(r.t).not.toMatch(/hm-123|"s3"|"tk"|"old"|"new"/);
  });

  it('when one auditable is created, changed twice and deleted, then its versions run 1 to 4 while another auditable starts at 1', async () => {
    const accountId = randomAccountId();
    const id = 21;
    const steps = [
      envelope({ type: 'automation_rule.created', accountId, data: { id, name: 'r1' } }),
      envelope({ type: 'automation_rule.updated', accountId, data: { id, name: 'r2' }, changes: { name: ['r1', 'r2'] } }),
      envelope({ type: 'automation_rule.updated', accountId, data: { id, name: 'r2', active: false }, changes: { active: [true, false] } }),
      envelope({ type: 'automation_rule.deleted', accountId, data: { id, name: 'r2' } }),
      envelope({ type: 'automation_rule.created', accountId, data: { id: id + 1, name: 'other' } }),
    ];
    await bus.publish(...steps);
    await drain();
    const entries = await allEntries(accountId);
    const mine = entries.filter((e) => e.auditable_id === id).sort((a, b) => a.version - b.version);
    expect(mine.map((e) => [e.version, e.action, e.request_uuid])).toEqual(steps.slice(0, 4).map((s, i) => [i + 1, ['create', 'update', 'update', 'destroy'][i], s.request_id]));
    expect(entries.find((e) => e.auditable_id === id + 1)?.version).toBe(1);
  });

  it('when the actor is a bot or a service, then user_type and username say so, and what is unknown is 0 or "" (SPEC types no null)', async () => {
    const accountId = randomAccountId();
    const byBot = envelope({ type: 'label.created', accountId, data: { id: 31, title: 'a' }, actor: { type: 'agent_bot', id: 3, name: 'Botty' } });
    const byService = envelope({ type: 'label.created', accountId, data: { id: 32, title: 'b' }, actor: { type: 'service', id: 'gateway' }, ip: null });
    await bus.publish(byBot, byService);
    await drain();
    const entries = await allEntries(accountId);
    expect(entries.find((e) => e.auditable_id === 31)).toMatchObject({ user_id: 3, user_type: 'AgentBot', username: 'Botty' });
    expect(entries.find((e) => e.auditable_id === 32)).toMatchObject({ user_id: 0, user_type: 'service', username: 'gateway', remote_address: '' });
  });

  it('when an auditable event names no numeric record, then it is dead-lettered and later events still land', async () => {
    const accountId = randomAccountId();
    const before = await bus.messageCount('audit.events.dead');
    await bus.publish(envelope({ type: 'webhook.created', accountId, data: { id: 'not-a-number', url: 'https://x.test' } }));
    const good = envelope({ type: 'webhook.created', accountId, data: { id: 41, url: 'https://y.test' } });
    await bus.publish(good);
    await drain();
    await waitFor(async () => (await bus.messageCount('audit.events.dead')) === before + 1, { what: 'dead letter' });
    const body = await list(accountId);
    expect(body.audit_logs.map((e: any) => e.request_uuid)).toEqual([good.request_id]);
  });

  it('when anything tries to change or remove an entry, then the database refuses', async () => {
    const accountId = randomAccountId();
    const ev = envelope({ type: 'label.created', accountId, data: { id: 51, title: 'keep' } });
    await bus.publish(ev);
    await drain();
    await expect(svc.deps.pool.query('UPDATE audit_logs SET comment = $1 WHERE account_id = $2', ['tampered', accountId])).rejects.toThrow(/append-only/);
    await expect(svc.deps.pool.query('DELETE FROM audit_logs WHERE account_id = $1', [accountId])).rejects.toThrow(/append-only/);
    await expect(svc.deps.pool.query('TRUNCATE audit_logs')).rejects.toThrow(/append-only/);
    const body = await list(accountId);
    expect(body.audit_logs).toHaveLength(1);
    expect(body.audit_logs[0]).toMatchObject({ comment: '', request_uuid: ev.request_id });
  });

  it('when a request id is reused by another event, then both entries are kept (dedupe is by event id only)', async () => {
    const accountId = randomAccountId();
    const requestId = randomUUID();
    await bus.publish(
      envelope({ type: 'team_member.added', accountId, requestId, data: { id: 61, team_id: 1, user_id: 2 } }),
      envelope({ type: 'team_member.added', accountId, requestId, data: { id: 62, team_id: 1, user_id: 3 } }),
    );
    await drain();
    const body = await list(accountId);
    expect(body.total_entries).toBe(2);
    expect(body.audit_logs.every((e: any) => e.request_uuid === requestId && e.auditable_type === 'TeamMember')).toBe(true);
  });
});
