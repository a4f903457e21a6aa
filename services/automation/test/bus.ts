import { randomUUID } from 'node:crypto';
import { AmqpConnection, buildEnvelope, createLogger, type Actor, type Changes, type EventEnvelope, type EventType } from '@parley/shared';
import { infra } from '@parley/testkit';

/**
 * Test publisher: puts envelopes straight on the file's `domain.events` exchange, the way the
 * outbox relay does, so the automation consumers can be driven without the producers.
 */
export interface TestBus {
  publish(...events: EventEnvelope[]): Promise<void>;
  close(): Promise<void>;
}

export function createBus(namespace: string): TestBus {
  const conn = new AmqpConnection(infra().amqpUrl, createLogger('automation-test-bus', 'silent'), namespace);
  return {
    async publish(...events) {
      const ch = await conn.confirmChannel();
      for (const ev of events) {
        ch.publish(conn.exchange, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true, contentType: 'application/json', messageId: ev.id, type: ev.type });
      }
      await ch.waitForConfirms();
    },
    close: () => conn.close(),
  };
}

export const userActor: Actor = { type: 'user', id: 7, name: 'Ada Admin', email: 'ada@example.com' };
export const contactActor: Actor = { type: 'contact', id: 1, name: 'Jane Doe' };

/** An envelope as a producer's `writeEvent` would build it. */
export function envelope(type: EventType, accountId: number, data: Record<string, unknown>, opts: { changes?: Changes | null; actor?: Actor } = {}): EventEnvelope {
  return buildEnvelope(
    { requestId: randomUUID(), accountId, actor: opts.actor ?? contactActor, role: null, features: {}, ip: '203.0.113.9', issuedAt: Date.now() },
    { type, accountId, data, changes: opts.changes ?? null },
  );
}
