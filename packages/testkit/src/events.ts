import { randomUUID } from 'node:crypto';
import { AmqpConnection, createLogger, eventsOfMessage, headersOf, parseEnvelope, type EventEnvelope } from '@parley/shared';
import { infra } from './infra';
import { waitFor } from './helpers';

/** Collects the events a test's system publishes (a private, auto-deleted queue on the bus). */
export interface EventTap {
  events: EventEnvelope[];
  /** Waits for an event of this type matching `match`, and returns it. */
  next(type: string, match?: (e: EventEnvelope) => boolean, timeoutMs?: number): Promise<EventEnvelope>;
  close(): Promise<void>;
}

/** Binds an exclusive queue to the namespace's exchange for `patterns` (`#` for all). */
export async function tapEvents(namespace: string, patterns: string[] = ['#']): Promise<EventTap> {
  const conn = new AmqpConnection(infra().amqpUrl, createLogger('event-tap', 'silent'), namespace);
  const c = await conn.connect();
  const ch = await c.createChannel();
  const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true });
  for (const p of patterns) await ch.bindQueue(queue, conn.exchange, p);
  const events: EventEnvelope[] = [];
  await ch.consume(
    queue,
    (msg) => {
      if (!msg) return;
      // One event, or the relay's bundle of several.
      for (const raw of eventsOfMessage(msg.content, msg.properties.contentType) ?? []) {
        const parsed = parseEnvelope(raw);
        if (parsed.ok) events.push(parsed.envelope);
      }
    },
    { noAck: true },
  );
  return {
    events,
    next: (type, match = () => true, timeoutMs = 15_000) => waitFor(() => events.find((e) => e.type === type && match(e)), { timeoutMs, what: `event ${type}` }),
    async close() {
      await ch.close().catch(() => undefined);
      await conn.close();
    },
  };
}

/**
 * Test publisher: puts envelopes straight on the file's `domain.events` exchange, the way the
 * outbox relay does, so a service's consumers can be driven without the producers.
 */
export interface TestBus {
  publish(...events: EventEnvelope[]): Promise<void>;
  /** Messages waiting in a queue of this namespace (e.g. `audit.events.dead`). */
  messageCount(queue: string): Promise<number>;
  close(): Promise<void>;
}

export function createBus(namespace: string): TestBus {
  const conn = new AmqpConnection(infra().amqpUrl, createLogger('test-bus', 'silent'), namespace);
  return {
    async publish(...events) {
      const ch = await conn.confirmChannel();
      for (const ev of events) {
        // With the relay's headers: a queue bound on them (a contact's messages) gets what it would.
        ch.publish(conn.exchange, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true, contentType: 'application/json', messageId: ev.id, type: ev.type, headers: headersOf(ev) });
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

/**
 * An envelope whose data skips the contract check `writeEvent` makes: what a broken or foreign
 * producer could still put on the bus, for tests of dead-lettering.
 */
export function malformedEnvelope(type: string, accountId: number | null, data: Record<string, unknown>): EventEnvelope {
  return {
    id: randomUUID(),
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    account_id: accountId,
    actor: { type: 'system', id: 'test' },
    request_id: randomUUID(),
    causation_id: null,
    data,
    changes: null,
    meta: { ip: null },
  };
}
