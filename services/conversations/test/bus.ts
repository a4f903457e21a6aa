import { randomUUID } from 'node:crypto';
import { buildEnvelope, type Actor, type EventEnvelope, type EventType } from '@parley/shared';

export { createBus, type TestBus } from '@parley/testkit';

export const adminActor: Actor = { type: 'user', id: 1, name: 'Ada Admin', email: 'ada@example.com' };

export function envelope(type: EventType, accountId: number | null, data: Record<string, unknown>, actor: Actor = adminActor): EventEnvelope {
  return buildEnvelope(
    { requestId: randomUUID(), accountId, actor, role: 'administrator', features: {}, ip: '203.0.113.7', issuedAt: Date.now() },
    { type, accountId, data },
  );
}

/** docs/contracts.md `Agent`. */
export function agentData(accountId: number, id: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    account_id: accountId,
    availability_status: 'online',
    auto_offline: true,
    confirmed: true,
    email: `agent${id}@example.com`,
    provider: 'email',
    available_name: `Agent ${id}`,
    name: `Agent ${id}`,
    role: 'agent',
    thumbnail: '',
    custom_role_id: null,
    ...fields,
  };
}
