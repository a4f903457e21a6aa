import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from './logger';
import type { AmqpConnection } from './amqp';
import { parseEnvelope, type EventEnvelope } from './events/envelope';
import { assertTopology } from './amqp';
import type { ServiceMetrics } from './metrics';
import { inSpan, tracingEnabled } from './tracing';

export type EventHandler = (tx: PoolClient, event: EventEnvelope) => Promise<void>;

export interface ConsumerOptions {
  /** Queue name, e.g. `audit.events`; also the idempotency key in processed_events. */
  queue: string;
  /** Routing-key patterns to bind (`conversation.*`, `#`). */
  bindings: string[];
  pool: Pool;
  amqp: AmqpConnection;
  log: Logger;
  handle: EventHandler;
  prefetch?: number;
  /** Attempts before a failing message is dead-lettered. */
  maxAttempts?: number;
  /** Base delay before a failed message is retried (doubles each attempt). */
  retryDelayMs?: number;
  metrics?: ServiceMetrics;
}

/** Thrown by a handler for a message that can never succeed: dead-lettered at once. */
export class PoisonMessageError extends Error {}

const ATTEMPTS_HEADER = 'x-parley-attempts';

/**
 * A durable queue per consuming service, bounded prefetch, manual ack after the effect's
 * transaction commits, idempotency on the event id (processed_events, same transaction),
 * retries with backoff, and a dead-letter queue (`<queue>.dead`) for poison messages and
 * messages that keep failing.
 */
export class EventConsumer {
  private channel: Channel | null = null;
  private consumerTag: string | null = null;
  private inFlight = new Set<Promise<void>>();
  private stopping = false;
  private readonly setup = (conn: ChannelModel) => this.attach(conn);

  constructor(private readonly opts: ConsumerOptions) {}

  /** The queue's name on the broker (namespaced). */
  get queue(): string {
    return this.opts.amqp.queueName(this.opts.queue);
  }

  get deadLetterQueue(): string {
    return `${this.queue}.dead`;
  }

  async start(): Promise<void> {
    await this.opts.amqp.onConnect(this.setup);
  }

  private async attach(conn: ChannelModel): Promise<void> {
    if (this.stopping) return;
    const ch = await conn.createChannel();
    ch.on('error', (err: Error) => this.opts.log.warn({ err: err.message, queue: this.opts.queue }, 'consumer channel error'));
    ch.on('close', () => {
      if (this.channel === ch) this.channel = null;
    });
    const { amqp } = this.opts;
    const expires = amqp.queueExpiresMs ? { 'x-expires': amqp.queueExpiresMs } : {};
    await assertTopology(ch, amqp.exchange, amqp.deadLetterExchange);
    await ch.assertQueue(this.deadLetterQueue, { durable: true, arguments: { ...expires } });
    await ch.bindQueue(this.deadLetterQueue, amqp.deadLetterExchange, this.queue);
    await ch.assertQueue(this.queue, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': amqp.deadLetterExchange, 'x-dead-letter-routing-key': this.queue, ...expires },
    });
    for (const key of this.opts.bindings) await ch.bindQueue(this.queue, amqp.exchange, key);
    await ch.prefetch(this.opts.prefetch ?? 20);
    this.channel = ch;
    const { consumerTag } = await ch.consume(this.queue, (msg) => {
      if (!msg) return;
      const p = this.onMessage(ch, msg).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    });
    this.consumerTag = consumerTag;
  }

  private async onMessage(ch: Channel, msg: ConsumeMessage): Promise<void> {
    const log = this.opts.log;
    let raw: unknown;
    try {
      raw = JSON.parse(msg.content.toString('utf8'));
    } catch {
      log.error({ queue: this.opts.queue }, 'poison message (not JSON); dead-lettering');
      this.count('invalid', 'dead_lettered');
      safe(() => ch.nack(msg, false, false));
      return;
    }
    const parsed = parseEnvelope(raw);
    if (!parsed.ok) {
      log.error({ queue: this.opts.queue, error: parsed.error }, 'poison message (invalid envelope); dead-lettering');
      this.count('invalid', 'dead_lettered');
      safe(() => ch.nack(msg, false, false));
      return;
    }
    const event = parsed.envelope;
    const timer = this.opts.metrics?.eventDuration.startTimer({ queue: this.opts.queue, type: event.type });
    try {
      const done = tracingEnabled()
        ? await inSpan(`${this.opts.queue} process`, { kind: 'consumer', parent: event.traceparent, attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': this.opts.queue, 'messaging.message.id': event.id, 'parley.event.type': event.type } }, () => this.process(event))
        : await this.process(event);
      timer?.();
      this.count(event.type, done ? 'handled' : 'duplicate');
      safe(() => ch.ack(msg));
    } catch (err) {
      timer?.();
      const attempts = Number(msg.properties.headers?.[ATTEMPTS_HEADER] ?? 0) + 1;
      const max = this.opts.maxAttempts ?? 5;
      if (err instanceof PoisonMessageError || attempts >= max) {
        log.error({ queue: this.opts.queue, eventId: event.id, type: event.type, attempts, err: (err as Error).message }, 'event failed for good; dead-lettering');
        this.count(event.type, 'dead_lettered');
        safe(() => ch.nack(msg, false, false));
        return;
      }
      log.warn({ queue: this.opts.queue, eventId: event.id, type: event.type, attempts, err: (err as Error).message }, 'event failed; will retry');
      this.count(event.type, 'failed');
      const delay = Math.min((this.opts.retryDelayMs ?? 200) * 2 ** (attempts - 1), 30_000);
      await new Promise((r) => setTimeout(r, delay));
      try {
        // Re-queue a copy at the tail with the attempt count, then drop the original.
        ch.sendToQueue(this.queue, msg.content, { ...msg.properties, headers: { ...msg.properties.headers, [ATTEMPTS_HEADER]: attempts }, persistent: true });
        ch.ack(msg);
      } catch {
        // Channel gone: the broker redelivers the unacked original.
      }
    }
  }

  private count(type: string, outcome: 'handled' | 'duplicate' | 'failed' | 'dead_lettered'): void {
    this.opts.metrics?.events.inc({ queue: this.opts.queue, type, outcome });
  }

  /** Runs the handler once per event id, in one transaction with the dedupe row. */
  async process(event: EventEnvelope): Promise<boolean> {
    const client = await this.opts.pool.connect();
    try {
      await client.query('BEGIN');
      const ins = await client.query('INSERT INTO processed_events (event_id, consumer) VALUES ($1, $2) ON CONFLICT DO NOTHING', [event.id, this.opts.queue]);
      if (ins.rowCount === 0) {
        await client.query('ROLLBACK');
        return false;
      }
      await this.opts.handle(client, event);
      await client.query('COMMIT');
      return true;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Stops taking messages, waits for in-flight ones (acked or left for redelivery). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.opts.amqp.offConnect(this.setup);
    const ch = this.channel;
    if (ch && this.consumerTag) await ch.cancel(this.consumerTag).catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    if (ch) await ch.close().catch(() => undefined);
    this.channel = null;
  }
}

function safe(fn: () => void): void {
  try {
    fn();
  } catch {
    // the channel closed under us; the broker will redeliver
  }
}
