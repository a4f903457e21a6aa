import { randomUUID } from 'node:crypto';
import { AmqpConnection, buildEnvelope, createLogger, type Actor, type Changes, type EventEnvelope, type EventType } from '@parley/shared';
import { infra } from '@parley/testkit';

/**
 * Test publisher: puts envelopes straight on the file's `domain.events` exchange, the way
 * the outbox relay does, so the audit consumer can be driven without the producers.
 */
export interface TestBus {
  publish(...events: EventEnvelope[]): Promise<void>;
  /** Messages waiting in a queue of this namespace (e.g. `audit.events.dead`). */
  messageCount(queue: string): Promise<number>;
  close(): Promise<void>;
}

export function createBus(namespace: string): TestBus {
  const conn = new AmqpConnection(infra().amqpUrl, createLogger('audit-test-bus', 'silent'), namespace);
  return {
    async publish(...events) {
      const ch = await conn.confirmChannel();
      for (const ev of events) {
        ch.publish(conn.exchange, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true, contentType: 'application/json', messageId: ev.id, type: ev.type });
      }
      await ch.waitForConfirms();
    },
    async messageCount(queue) {
      const c = await conn.connect();
      const ch = await c.createChannel();
      try {
        return (await ch.checkQueue(conn.queueName(queue))).messageCount;
      } finally {
        await ch.close().catch(() => undefined);
      }
    },
    close: () => conn.close(),
  };
}

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

/** A conversation snapshot good enough for the catalogue's conversation schema. */
export function conversationSnapshot(accountId: number, id: number): Record<string, unknown> {
  return {
    id,
    display_id: id,
    account_id: accountId,
    inbox_id: 1,
    status: 'open',
    priority: null,
    labels: [],
    assignee_id: null,
    team_id: null,
    contact_id: 1,
    custom_attributes: {},
    additional_attributes: {},
  };
}
