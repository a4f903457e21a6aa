import { randomUUID } from 'node:crypto';
import { buildEnvelope, type Actor, type Changes, type EventEnvelope, type EventType } from '@parley/shared';

export { createBus, type TestBus } from '@parley/testkit';

export const userActor: Actor = { type: 'user', id: 7, name: 'Ada Admin', email: 'ada@example.com' };
export const contactActor: Actor = { type: 'contact', id: 1, name: 'Jane Doe' };

/** An envelope as a producer's `writeEvent` would build it. */
export function envelope(type: EventType, accountId: number, data: Record<string, unknown>, opts: { changes?: Changes | null; actor?: Actor } = {}): EventEnvelope {
  return buildEnvelope(
    { requestId: randomUUID(), accountId, actor: opts.actor ?? contactActor, role: null, features: {}, ip: '203.0.113.9', issuedAt: Date.now() },
    { type, accountId, data, changes: opts.changes ?? null },
  );
}
