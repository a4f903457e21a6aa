import { randomUUID } from 'node:crypto';
import { eventTypes, type EventEnvelope } from '@parley/shared';
import { AUDIT_RULES, AUDITABLE_TYPES, AUDITED_EVENT_TYPES, auditRuleFor, entryFromEvent, NOT_AUDITED } from '../src/audit-logs/mapping';

/** What the audit log does with each event type: decided for the catalogue, derived for what comes later. */
describe('audit mapping', () => {
  it('when the catalogue is read, then every type is audited (listed, or a record change by its name) or deliberately skipped with a reason', () => {
    // A type in neither list is audited when it names a record change (see below); anything
    // else nobody decided on fails here.
    const undecided = eventTypes.filter((t) => !(t in AUDIT_RULES) && !(t in NOT_AUDITED) && auditRuleFor(t) === null);
    expect(undecided).toEqual([]);
    for (const [type, why] of Object.entries(NOT_AUDITED)) expect({ type, why: (why as string).length > 10 }).toEqual({ type, why: true });
    const both = Object.keys(AUDIT_RULES).filter((t) => t in NOT_AUDITED);
    expect(both).toEqual([]);
  });

  it('when the queue bindings are built, then they are exactly the audited catalogue types (no conversation or message activity)', () => {
    expect([...AUDITED_EVENT_TYPES].sort()).toEqual(eventTypes.filter((t) => !(t in NOT_AUDITED) && auditRuleFor(t) !== null).sort());
    expect(AUDITED_EVENT_TYPES).toEqual(expect.arrayContaining(Object.keys(AUDIT_RULES)));
    expect(AUDITED_EVENT_TYPES).toEqual(expect.arrayContaining(['custom_attribute_definition.created', 'custom_attribute_definition.updated', 'custom_attribute_definition.deleted']));
    expect(AUDITED_EVENT_TYPES.filter((t) => /^(message|assignee)\./.test(t) || (t.startsWith('conversation.') && t !== 'conversation.deleted'))).toEqual([]);
    expect([...AUDITABLE_TYPES]).toEqual(expect.arrayContaining(['Account', 'AccountUser', 'Webhook', 'AutomationRule', 'Article', 'Contact', 'Conversation']));
  });

  it('when a record type the list does not know arrives, then it is audited under its class name', () => {
    expect(auditRuleFor('macro.created')).toEqual({ auditableType: 'Macro', action: 'create' });
    expect(auditRuleFor('macro.updated')).toEqual({ auditableType: 'Macro', action: 'update' });
    expect(auditRuleFor('sla_policy.deleted')).toEqual({ auditableType: 'SlaPolicy', action: 'destroy' });
    expect(auditRuleFor('team_note.added')).toEqual({ auditableType: 'TeamNote', action: 'create' });
    expect(auditRuleFor('sla_policy.removed')).toEqual({ auditableType: 'SlaPolicy', action: 'destroy' });
    // Not the shape of a change to a record: not audited.
    expect(auditRuleFor('conversation.typing_on')).toBeNull();
    expect(auditRuleFor('campaign.triggered')).toBeNull();
    expect(auditRuleFor('nonsense')).toBeNull();
    // Listed names win over the derived ones; skipped types stay skipped.
    expect(auditRuleFor('agent.added')).toEqual({ auditableType: 'AccountUser', action: 'create' });
    expect(auditRuleFor('custom_attribute_definition.updated')).toEqual({ auditableType: 'CustomAttributeDefinition', action: 'update' });
    expect(auditRuleFor('contact.created')).toBeNull();
    expect(auditRuleFor('article.published')).toBeNull();
  });

  it('when an unlisted record event is mapped, then its entry is built from the envelope like any other', () => {
    const ev = {
      id: randomUUID(),
      type: 'custom_attribute_definition.created',
      version: 1,
      occurred_at: new Date().toISOString(),
      account_id: 12,
      actor: { type: 'user', id: 3, email: 'ada@example.com' },
      request_id: 'req-1',
      causation_id: null,
      data: { id: 9, attribute_key: 'plan', api_token: 'x' },
      changes: null,
      meta: { ip: '203.0.113.1' },
    } as unknown as EventEnvelope;
    expect(entryFromEvent(ev)).toMatchObject({
      accountId: 12,
      auditableType: 'CustomAttributeDefinition',
      auditableId: 9,
      action: 'create',
      auditedChanges: { id: 9, attribute_key: 'plan', api_token: '[REDACTED]' },
      userId: 3,
      userType: 'User',
      username: 'ada@example.com',
      requestUuid: 'req-1',
      remoteAddress: '203.0.113.1',
    });
  });
});
