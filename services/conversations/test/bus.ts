import { randomUUID } from 'node:crypto';
import { AmqpConnection, buildEnvelope, createLogger, type Actor, type EventEnvelope, type EventType } from '@parley/shared';
import { infra } from '@parley/testkit';

/** Publishes envelopes on the file's `domain.events` exchange, as a peer service's outbox relay would. */
export interface TestBus {
  publish(...events: EventEnvelope[]): Promise<void>;
  messageCount(queue: string): Promise<number>;
  close(): Promise<void>;
}

export function createBus(namespace: string): TestBus {
  const conn = new AmqpConnection(infra().amqpUrl, createLogger('conversations-test-bus', 'silent'), namespace);
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
