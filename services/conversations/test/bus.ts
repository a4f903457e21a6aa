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

export { agentSnapshot as agentData } from '@parley/testkit';
