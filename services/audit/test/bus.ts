import { randomUUID } from 'node:crypto';
import { buildEnvelope, type Actor, type Changes, type EventEnvelope, type EventType } from '@parley/shared';

export { createBus, type TestBus } from '@parley/testkit';

export interface EventInput {
  type: EventType;
  accountId: number;
  data: Record<string, unknown>;
  changes?: Changes | null;
  actor?: Actor;
  requestId?: string;
  ip?: string | null;
  occurredAt?: Date;
}

export const defaultActor: Actor = { type: 'user', id: 7, name: 'Ada Admin', email: 'ada@example.com' };

/** An envelope as a producer's `writeEvent` would build it, with test-chosen metadata. */
export function envelope(input: EventInput): EventEnvelope {
  const ev = buildEnvelope(
    {
      requestId: input.requestId ?? randomUUID(),
      accountId: input.accountId,
      actor: input.actor ?? defaultActor,
      role: 'administrator',
      features: {},
      ip: input.ip === undefined ? '203.0.113.9' : input.ip,
      issuedAt: Date.now(),
    },
    { type: input.type, accountId: input.accountId, data: input.data, changes: input.changes ?? null },
  );
  if (input.occurredAt) ev.occurred_at = input.occurredAt.toISOString();
  return ev;
}

/** A conversation snapshot (the testkit's contract-checked fixture). */
export { conversationFixture as conversationSnapshot } from '@parley/testkit';
