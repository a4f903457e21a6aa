import {
  assertTopology,
  parseEnvelope,
  PoisonMessageError,
  withTransaction,
  type AmqpConnection,
  type Logger,
  type Pool,
  type PoolClient,
  type ServiceMetrics,
  type Worker,
} from '@parley/shared';
import { entryFromEvent } from './mapping';
import { AUDIT_QUEUE, recordBatch, type IngestItem } from './ingest';

export interface BatchIngestOptions {
  bindings: string[];
  pool: Pool;
  amqp: AmqpConnection;
  log: Logger;
  /** Most messages written in one transaction. */
  batchSize: number;
  /** How long the first message of a batch waits for more before the batch is written. */
  maxWaitMs: number;
  /** Attempts before a failing message is dead-lettered. */
  maxAttempts: number;
  /** Base delay before a failed message is retried (doubles each attempt). */
  retryDelayMs?: number;
  metrics?: ServiceMetrics;
  /** The batch writer (tests swap it to inject failures). */
  write?: (tx: PoolClient, items: IngestItem[]) => Promise<number>;
}

// amqplib's types, taken from the kernel's connection (this package does not depend on amqplib).
type ChannelModel = Parameters<Parameters<AmqpConnection['onConnect']>[0]>[0];
type Channel = Awaited<ReturnType<ChannelModel['createChannel']>>;
type ConsumeMessage = NonNullable<Parameters<Parameters<Channel['consume']>[1]>[0]>;

/** The same header the kernel's EventConsumer counts attempts in. */
const ATTEMPTS_HEADER = 'x-parley-attempts';

interface Pending {
  ch: Channel;
  msg: ConsumeMessage;
  item: IngestItem;
}

/**
 * The audit queue's consumer. Unlike the kernel's EventConsumer (one transaction per
 * message), it gathers up to `batchSize` messages (or what arrives within `maxWaitMs`)
 * and writes them in one transaction: one processed_events insert, one version upsert,
 * one entries insert, one count upsert. It keeps the kernel's guarantees and topology
 * (the same durable queue `audit.events` with its dead-letter queue, the same
 * processed_events table and attempt header): messages are acked only after the commit;
 * poison (not JSON, a bad envelope, an unknown type, an auditable event that names no
 * record or account) is dead-lettered alone at once; when a batch fails, its messages are
 * written one by one so a bad one cannot hold the others back, and a message that keeps
 * failing is retried with backoff, then dead-lettered. A crash mid-batch leaves the whole
 * batch unacked and uncommitted: the broker redelivers it and nothing is doubled.
 */
export class BatchIngest implements Worker {
  private channel: Channel | null = null;
  private consumerTag: string | null = null;
  private buffer: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private stopping = false;
  private readonly setup = (conn: ChannelModel) => this.attach(conn);
  private readonly write: (tx: PoolClient, items: IngestItem[]) => Promise<number>;

  constructor(private readonly opts: BatchIngestOptions) {
    this.write = opts.write ?? recordBatch;
  }

  get queue(): string {
    return this.opts.amqp.queueName(AUDIT_QUEUE);
  }

  async start(): Promise<void> {
    await this.opts.amqp.onConnect(this.setup);
  }

  private async attach(conn: ChannelModel): Promise<void> {
    if (this.stopping) return;
    const { amqp, log } = this.opts;
    const ch = await conn.createChannel();
    ch.on('error', (err: Error) => log.warn({ err: err.message, queue: AUDIT_QUEUE }, 'audit ingest channel error'));
    ch.on('close', () => {
      if (this.channel === ch) this.channel = null;
    });
    // Declared exactly as the kernel's EventConsumer declares its queues.
    const expires = amqp.queueExpiresMs ? { 'x-expires': amqp.queueExpiresMs } : {};
    await assertTopology(ch, amqp.exchange, amqp.deadLetterExchange);
    await ch.assertQueue(`${this.queue}.dead`, { durable: true, arguments: { ...expires } });
    await ch.bindQueue(`${this.queue}.dead`, amqp.deadLetterExchange, this.queue);
    await ch.assertQueue(this.queue, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': amqp.deadLetterExchange, 'x-dead-letter-routing-key': this.queue, ...expires },
    });
    for (const key of this.opts.bindings) await ch.bindQueue(this.queue, amqp.exchange, key);
    // Room for the next batch to gather while one is being written.
    await ch.prefetch(this.opts.batchSize * 2);
    this.channel = ch;
    const { consumerTag } = await ch.consume(this.queue, (msg) => {
      if (msg) this.receive(ch, msg);
    });
    this.consumerTag = consumerTag;
  }

  private receive(ch: Channel, msg: ConsumeMessage): void {
    const item = this.parse(ch, msg);
    if (!item) return;
    this.buffer.push({ ch, msg, item });
    if (this.buffer.length >= this.opts.batchSize) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.opts.maxWaitMs);
  }

  /** The message as an ingest item, or null after dead-lettering it as poison. */
  private parse(ch: Channel, msg: ConsumeMessage): IngestItem | null {
    const { log } = this.opts;
    let raw: unknown;
    try {
      raw = JSON.parse(msg.content.toString('utf8'));
    } catch {
      log.error({ queue: AUDIT_QUEUE }, 'poison message (not JSON); dead-lettering');
      this.count('invalid', 'dead_lettered');
      safe(() => ch.nack(msg, false, false));
      return null;
    }
    const parsed = parseEnvelope(raw);
    if (!parsed.ok) {
      log.error({ queue: AUDIT_QUEUE, error: parsed.error }, 'poison message (invalid envelope); dead-lettering');
      this.count('invalid', 'dead_lettered');
      safe(() => ch.nack(msg, false, false));
      return null;
    }
    try {
      return { event: parsed.envelope, entry: entryFromEvent(parsed.envelope) };
    } catch (err) {
      log.error({ queue: AUDIT_QUEUE, eventId: parsed.envelope.id, type: parsed.envelope.type, err: (err as Error).message }, 'poison event; dead-lettering');
      this.count(parsed.envelope.type, 'dead_lettered');
      safe(() => ch.nack(msg, false, false));
      return null;
    }
  }

  /** Queues the buffered messages as one batch; batches are written one after the other, in arrival order. */
  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return;
    this.chain = this.chain.then(() => this.writeBatch(batch)).catch((err: unknown) => this.opts.log.error({ err }, 'audit ingest batch failed unexpectedly'));
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      const written = await this.transaction(batch.map((p) => p.item));
      // Each event of the batch took the batch's time to record.
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      for (const p of batch) this.handled(p, seconds);
      for (const p of batch) safe(() => p.ch.ack(p.msg));
      this.opts.log.debug({ messages: batch.length, written }, 'audit batch recorded');
    } catch (err) {
      if (batch.length === 1) return this.failed(batch[0] as Pending, err);
      this.opts.log.warn({ messages: batch.length, err: (err as Error).message }, 'audit batch failed; writing its messages one by one');
      for (const p of batch) {
        const one = process.hrtime.bigint();
        try {
          await this.transaction([p.item]);
          this.handled(p, Number(process.hrtime.bigint() - one) / 1e9);
          safe(() => p.ch.ack(p.msg));
        } catch (one) {
          this.failed(p, one);
        }
      }
    }
  }

  private count(type: string, outcome: 'handled' | 'failed' | 'dead_lettered'): void {
    this.opts.metrics?.events.inc({ queue: AUDIT_QUEUE, type, outcome });
  }

  private handled(p: Pending, seconds: number): void {
    this.count(p.item.event.type, 'handled');
    this.opts.metrics?.eventDuration.observe({ queue: AUDIT_QUEUE, type: p.item.event.type }, seconds);
  }

  private transaction(items: IngestItem[]): Promise<number> {
    return withTransaction(this.opts.pool, (tx) => this.write(tx, items));
  }

  /** Retries a message that failed on its own (re-queued with its attempt count after a backoff), then dead-letters it. */
  private failed(p: Pending, err: unknown): void {
    const { log } = this.opts;
    const { event } = p.item;
    const attempts = Number(p.msg.properties.headers?.[ATTEMPTS_HEADER] ?? 0) + 1;
    if (err instanceof PoisonMessageError || attempts >= this.opts.maxAttempts) {
      log.error({ queue: AUDIT_QUEUE, eventId: event.id, type: event.type, attempts, err: (err as Error).message }, 'event failed for good; dead-lettering');
      this.count(event.type, 'dead_lettered');
      safe(() => p.ch.nack(p.msg, false, false));
      return;
    }
    log.warn({ queue: AUDIT_QUEUE, eventId: event.id, type: event.type, attempts, err: (err as Error).message }, 'event failed; will retry');
    this.count(event.type, 'failed');
    const delay = Math.min((this.opts.retryDelayMs ?? 200) * 2 ** (attempts - 1), 30_000);
    // The original stays unacked until its copy is queued: a crash meanwhile redelivers it.
    const t = setTimeout(() => {
      this.retryTimers.delete(t);
      try {
        p.ch.sendToQueue(this.queue, p.msg.content, { ...p.msg.properties, headers: { ...p.msg.properties.headers, [ATTEMPTS_HEADER]: attempts }, persistent: true });
        p.ch.ack(p.msg);
      } catch {
        // Channel gone: the broker redelivers the unacked original.
      }
    }, delay);
    this.retryTimers.add(t);
  }

  /** Stops taking messages, writes what was gathered, and leaves anything else for redelivery. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.opts.amqp.offConnect(this.setup);
    const ch = this.channel;
    if (ch && this.consumerTag) await ch.cancel(this.consumerTag).catch(() => undefined);
    this.flush();
    await this.chain;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
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
