import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Pool, PoolClient } from 'pg';
import { begin, commit, escapeLiteral, rollback } from './db';
import type { Logger } from './logger';
import type { AmqpConnection } from './amqp';
import { BUNDLE_CONTENT_TYPE, eventsOfMessage, MESSAGE_HEADER_TYPES, MESSAGE_TYPE_HEADER, NOT_ACTIVITY_MESSAGES, parseEnvelope, ROUTED_HEADER, ROUTED_VALUE, SENDER_TYPE_HEADER, TYPE_HEADER, type EventEnvelope } from './events/envelope';
import { assertTopology } from './amqp';
import type { ServiceMetrics } from './metrics';
import { inSpan, tracingEnabled } from './tracing';
import { AppError, isOutageError } from './errors';

export type EventHandler = (tx: PoolClient, event: EventEnvelope) => Promise<void>;

/**
 * Handles a batch of events, in arrival order, in one transaction (events seen before are already
 * left out). `each` runs the work of one event in that event's consumer span (its trace, while
 * tracing is on), as per-message mode does for the whole message.
 */
export type BatchHandler = (tx: PoolClient, events: EventEnvelope[], each: <T>(event: EventEnvelope, fn: () => Promise<T>) => Promise<T>) => Promise<void>;

export interface BatchOptions {
  handle: BatchHandler;
  /** Most messages handled in one transaction. */
  size: number;
  /**
   * How long the first message of a batch waits for more before the batch is handled. Or each
   * event's own wait: the batch goes at the earliest its events allow, so an event no one waits
   * for (a contact's activity) can wait long for company while one that someone does (an inbox's
   * copy) takes the whole batch with it at its own short wait.
   */
  maxWaitMs: number | ((event: EventEnvelope) => number);
  /**
   * Most batches handled at once (default 1: one after the other). Above 1, what arrives while
   * batches are being handled starts a batch of its own (after `maxWaitMs`) instead of waiting
   * for them: for handlers that spend their time waiting on another service.
   */
  concurrency?: number;
  /**
   * The order key of an event (say its conversation), with `concurrency` above 1: events with
   * the same key are never in two batches handled at once, and go in arrival order (an event
   * whose key is busy waits for the next batch, and so do the later events with its key).
   * Null: the event's id (a redelivered copy waits for the first).
   */
  key?: (event: EventEnvelope) => string | null;
}

export interface ConsumerOptions {
  /** Queue name, e.g. `audit.events`; also the idempotency key in processed_events. */
  queue: string;
  /** Routing-key patterns to bind (`conversation.*`, `#`). */
  bindings: string[];
  /**
   * Event types bound only for the events whose published headers match (`routingHeaders`, e.g.
   * a contact's messages): through a headers exchange of the queue's own (`<queue>.filter`), so
   * the broker never delivers the others; an event published without the routed mark
   * (ROUTED_HEADER: by an older version, which may lack a header a binding tests) is still
   * delivered. A type here is not also in `bindings` (its plain binding, left by an earlier
   * version, is removed). The sender and message type headers exist for MESSAGE_HEADER_TYPES only.
   */
  headerBindings?: HeaderBinding[];
  /**
   * Routing keys an earlier version bound and this one no longer handles: unbound at every
   * channel setup, so the broker stops routing them here (a stale binding costs a delivery each,
   * acked unread). Exact keys: a pattern in `bindings` that covers one still delivers it. During
   * a rolling upgrade an old replica that reconnects binds them again until a new one reconnects.
   */
  retiredBindings?: string[];
  pool: Pool;
  amqp: AmqpConnection;
  log: Logger;
  /** One transaction per message (messages handled concurrently, up to `prefetch`)... */
  handle?: EventHandler;
  /** ...or batch mode: up to `size` messages per transaction, batches in arrival order (`concurrency` at once, by `key`). */
  batch?: BatchOptions;
  /**
   * Whether an event needs handling at all (false: the handler would do nothing with it, say a
   * contacts consumer given an agent's reply). Such an event is acked at once, with no
   * transaction and no processed_events row: it has no effect, so a redelivery has none either.
   */
  wants?: (event: EventEnvelope) => boolean;
  /** Unacked messages at once (per message mode; batch mode takes twice the batch size). */
  prefetch?: number;
  /** Attempts before a failing message is dead-lettered. */
  maxAttempts?: number;
  /** Base delay before a failed message is retried (doubles each attempt). */
  retryDelayMs?: number;
  metrics?: ServiceMetrics;
}

/** An event type a queue takes only when the event's headers have these values (see `routingHeaders`). */
export interface HeaderBinding {
  type: string;
  headers: Record<string, string>;
}

/**
 * A queue's bindings for `types` that keep activity messages out: the message types among them
 * (MESSAGE_HEADER_TYPES) bound on every message type header but activity's (NOT_ACTIVITY_MESSAGES),
 * so the broker never sends those; the others bound plainly.
 */
export function bindingsWithoutActivity(types: readonly string[]): { bindings: string[]; headerBindings: HeaderBinding[] } {
  const messages = types.filter((t) => MESSAGE_HEADER_TYPES.includes(t));
  return {
    bindings: types.filter((t) => !messages.includes(t)),
    headerBindings: messages.flatMap((type) => NOT_ACTIVITY_MESSAGES.map((headers) => ({ type, headers }))),
  };
}

/** Thrown by a handler for a message that can never succeed: dead-lettered at once. */
export class PoisonMessageError extends Error {}

export const ATTEMPTS_HEADER = 'x-parley-attempts';

/** The dedupe rows of events (those not seen before come back), as SQL to send with the BEGIN. */
function recordEventsSql(ids: string[], consumer: string): string {
  // A VALUES list: cheaper for Postgres to plan than unnest of an array literal.
  const c = escapeLiteral(consumer);
  return `INSERT INTO processed_events (event_id, consumer) VALUES ${ids.map((id) => `(${escapeLiteral(id)}::uuid, ${c})`).join(', ')} ON CONFLICT DO NOTHING RETURNING event_id`;
}

/** Pause before a message that failed on an outage is tried again. */
const OUTAGE_RETRY_MS = 2000;

export interface RetryDecision {
  deadLetter: boolean;
  /** The attempt count the re-queued copy carries. */
  attempts: number;
  delayMs: number;
  outage: boolean;
}

/**
 * What to do with a message whose handling failed. A poison message, or one that failed
 * `maxAttempts` times, is dead-lettered; others are re-queued after a doubling backoff. A
 * failure because a dependency is away (isOutageError, or a peer's 503) spends no attempt: a
 * Postgres restart or a 15 s outage must not dead-letter the events that arrive meanwhile.
 */
export function retryDecision(err: unknown, headers: Record<string, unknown> | undefined, maxAttempts: number, retryDelayMs = 200): RetryDecision {
  const prior = Number(headers?.[ATTEMPTS_HEADER] ?? 0);
  const outage = !(err instanceof PoisonMessageError) && (isOutageError(err) || (err instanceof AppError && err.status === 503));
  if (outage) return { deadLetter: false, attempts: prior, delayMs: OUTAGE_RETRY_MS, outage };
  const attempts = prior + 1;
  if (err instanceof PoisonMessageError || attempts >= maxAttempts) return { deadLetter: true, attempts, delayMs: 0, outage };
  return { deadLetter: false, attempts, delayMs: Math.min(retryDelayMs * 2 ** (attempts - 1), 30_000), outage };
}

/**
 * The acks of one channel, coalesced: the messages settled in one turn of the event loop that
 * are the oldest unsettled ones go in one `basic.ack` with `multiple` (one frame, one socket
 * write, instead of one per message). A message still unsettled (a retry waiting for its
 * backoff) is never covered: the settled ones behind it are acked one by one at once, so a
 * waiting retry holds no other message's ack back. Nacks go out at once.
 */
class AckBatcher {
  /** Delivered and not yet acked or nacked, in delivery order; `true` once settled for an ack. */
  private readonly open = new Map<number, { msg: ConsumeMessage; done: boolean }>();
  private scheduled = false;

  constructor(private readonly ch: Channel) {}

  delivered(msg: ConsumeMessage): void {
    this.open.set(msg.fields.deliveryTag, { msg, done: false });
  }

  ack(msg: ConsumeMessage): void {
    const entry = this.open.get(msg.fields.deliveryTag);
    if (!entry) {
      safe(() => this.ch.ack(msg));
      return;
    }
    entry.done = true;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  nack(msg: ConsumeMessage): void {
    this.open.delete(msg.fields.deliveryTag);
    safe(() => this.ch.nack(msg, false, false));
  }

  /** Sends what is settled: the settled oldest ones in one frame, any others one by one. */
  flush(): void {
    this.scheduled = false;
    let last: ConsumeMessage | null = null;
    let n = 0;
    for (const [tag, e] of this.open) {
      if (!e.done) break;
      last = e.msg;
      n++;
      this.open.delete(tag);
    }
    if (last) {
      const upTo = last;
      safe(() => this.ch.ack(upTo, n > 1));
    }
    for (const [tag, e] of this.open) {
      if (!e.done) continue;
      this.open.delete(tag);
      safe(() => this.ch.ack(e.msg));
    }
  }
}

/**
 * A message off the queue and how many of its events are still to settle: one, or a bundle's
 * (BUNDLE_CONTENT_TYPE). It is acked once every one of its events is handled, seen before, or
 * re-queued or dead-lettered alone; until then a crash or a lost channel redelivers all of it,
 * and the events already handled are left out as seen before.
 */
interface Delivery {
  ch: Channel;
  msg: ConsumeMessage;
  left: number;
  bundle: boolean;
}

/** An event of a message as it came, parsed or not (an invalid one: null). */
interface Part {
  delivery: Delivery;
  event: EventEnvelope | null;
  /** The event as it came (a bundle's part), for a copy of it alone. */
  raw: unknown;
}

/** An event off the queue (batch mode: of a batch being gathered or run). */
interface Gathered extends Part {
  event: EventEnvelope;
}

/**
 * A durable queue per consuming service, bounded prefetch, manual ack after the effect's
 * transaction commits, idempotency on the event id (processed_events, same transaction),
 * retries with backoff, and a dead-letter queue (`<queue>.dead`) for poison messages and
 * messages that keep failing.
 *
 * Batch mode (`batch`) keeps every one of those guarantees and writes up to `batch.size`
 * messages in one transaction (one processed_events insert for all of them): acked only after
 * the commit, so a crash mid-batch leaves the whole batch for redelivery and nothing doubles.
 * When a batch fails, its messages are handled one by one, so a poison or failing message
 * cannot hold the others back; that message is then retried or dead-lettered as in per-message
 * mode.
 */
export class EventConsumer {
  private channel: Channel | null = null;
  private consumerTag: string | null = null;
  private inFlight = new Set<Promise<void>>();
  private stopping = false;
  private readonly setup = (conn: ChannelModel) => this.attach(conn);
  // Batch mode: messages gathered for the next batch, its timer, the batches being handled, pending retries.
  private buffer: Gathered[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires (performance.now() ms): an event with a shorter wait brings it forward. */
  private timerDue = 0;
  private readonly running = new Set<Promise<void>>();
  /** Order keys of the events in the batches being handled (with how many of each). */
  private readonly busyKeys = new Map<string, number>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly acks = new WeakMap<Channel, AckBatcher>();

  constructor(private readonly opts: ConsumerOptions) {
    if (!opts.handle === !opts.batch) throw new Error(`consumer ${opts.queue}: give exactly one of handle and batch`);
    // A binding on a header the relay never sets for its type would see every event of it dropped.
    for (const b of opts.headerBindings ?? []) {
      const messageHeaders = SENDER_TYPE_HEADER in b.headers || MESSAGE_TYPE_HEADER in b.headers;
      if (messageHeaders && !MESSAGE_HEADER_TYPES.includes(b.type)) throw new Error(`consumer ${opts.queue}: ${b.type} is not published with a message's headers`);
    }
  }

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
    // After the bindings (the queue is never left without those); unbinding one that is not there is a no-op.
    for (const key of this.opts.retiredBindings ?? []) if (!this.opts.bindings.includes(key)) await ch.unbindQueue(this.queue, amqp.exchange, key);
    const filtered = this.opts.headerBindings ?? [];
    if (filtered.length > 0) {
      // The queue's own headers exchange, fed the filtered types by the topic exchange: an event
      // whose headers match a binding goes to the queue; one of the type that matches none, from a
      // relay that publishes every routing header (ROUTED_HEADER), is taken by the drop exchange
      // (bound to nothing), and is gone. An event from an older publisher, which lacks a header a
      // binding tests (a rolling upgrade), matches neither and goes through the filter's alternate
      // exchange to the queue, whose `wants` decides as before: nothing is lost while old and new
      // versions run side by side.
      const filter = `${this.queue}.filter`;
      const drop = `${filter}.drop`;
      const unfiltered = `${filter}.unfiltered`;
      await ch.assertExchange(unfiltered, 'fanout', { durable: true, autoDelete: true });
      await ch.assertExchange(drop, 'fanout', { durable: true });
      await ch.assertExchange(filter, 'headers', { durable: true, autoDelete: true, alternateExchange: unfiltered });
      await ch.bindQueue(this.queue, unfiltered, '');
      // Every binding of the queue and the drops first, then the feed of each type, then what an
      // earlier version bound: at no moment does a type reach the filter before every header set
      // that lets its events in (a type's events matching only its drop would be gone).
      const types = [...new Set(filtered.map((b) => b.type))];
      for (const b of filtered) await ch.bindQueue(this.queue, filter, '', { 'x-match': 'all', [TYPE_HEADER]: b.type, ...b.headers });
      for (const type of types) await ch.bindExchange(drop, filter, '', { 'x-match': 'all', [TYPE_HEADER]: type, [ROUTED_HEADER]: ROUTED_VALUE });
      for (const type of types) await ch.bindExchange(filter, amqp.exchange, type);
      for (const type of types) {
        // An earlier version's drop of the type on its type alone (it would drop an older relay's events).
        await ch.unbindExchange(drop, filter, '', { 'x-match': 'all', [TYPE_HEADER]: type });
        // An earlier version's plain binding of the type (after the new one: no moment without either).
        await ch.unbindQueue(this.queue, amqp.exchange, type);
      }
    }
    // Batch mode: room for the next batch to gather while the ones being handled are written.
    await ch.prefetch(this.opts.batch ? this.opts.batch.size * (this.concurrency + 1) : (this.opts.prefetch ?? 20));
    this.channel = ch;
    const acks = new AckBatcher(ch);
    this.acks.set(ch, acks);
    const { consumerTag } = await ch.consume(this.queue, (msg) => {
      if (!msg) return;
      acks.delivered(msg);
      // After `stop` (which may have come during `consume`'s round trip): left unacked, for
      // redelivery. Known to the batcher as open, so no ack of later ones (`multiple`) covers it.
      if (this.stopping) return;
      this.receive(ch, msg);
    });
    this.consumerTag = consumerTag;
    // `stop` came while this attach ran (a reconnect's set-up): it had no consumer to cancel, so
    // this one goes at once, with its channel; what it was given stays unacked, for redelivery.
    if (this.stopping) {
      await ch.cancel(consumerTag).catch(() => undefined);
      await ch.close().catch(() => undefined);
      if (this.channel === ch) this.channel = null;
    }
  }

  /** Acks after commit (coalesced per channel, see AckBatcher). */
  private ack(ch: Channel, msg: ConsumeMessage): void {
    const acks = this.acks.get(ch);
    if (acks) acks.ack(msg);
    else safe(() => ch.ack(msg));
  }

  /** Dead-letters (a nack without requeue: the queue's dead-letter exchange takes it). */
  private nack(ch: Channel, msg: ConsumeMessage): void {
    const acks = this.acks.get(ch);
    if (acks) acks.nack(msg);
    else safe(() => ch.nack(msg, false, false));
  }

  /** One of the message's events is settled: the message is acked with its last. */
  private done(g: Part): void {
    const d = g.delivery;
    d.left--;
    if (d.left === 0) this.ack(d.ch, d.msg);
  }

  /**
   * Takes a message's events: each is parsed, and handled (batch mode: gathered) unless its
   * consumer wants none of it. A message that is not JSON, or a bundle that holds no events, is
   * dead-lettered whole; an invalid envelope alone.
   */
  private receive(ch: Channel, msg: ConsumeMessage): void {
    const log = this.opts.log;
    const raws = eventsOfMessage(msg.content, msg.properties.contentType);
    if (!raws) {
      log.error({ queue: this.opts.queue }, 'poison message (not JSON, or an empty bundle); dead-lettering');
      this.count('invalid', 'dead_lettered');
      this.nack(ch, msg);
      return;
    }
    const delivery: Delivery = { ch, msg, left: raws.length, bundle: msg.properties.contentType === BUNDLE_CONTENT_TYPE };
    // Per-message mode: a message's events one after the other, so no more handlers run at once
    // than messages are unacked (prefetch), whatever a bundle holds.
    const mine: Gathered[] = [];
    for (const raw of raws) {
      const parsed = parseEnvelope(raw);
      if (!parsed.ok) {
        log.error({ queue: this.opts.queue, error: parsed.error }, 'poison message (invalid envelope); dead-lettering');
        this.count('invalid', 'dead_lettered');
        this.deadLetter({ delivery, event: null, raw }, 0);
        continue;
      }
      const g: Gathered = { delivery, event: parsed.envelope, raw };
      if (this.skip(g)) continue;
      if (this.opts.batch) {
        this.gather(g);
        continue;
      }
      mine.push(g);
    }
    if (mine.length === 0) return;
    const p = (async () => {
      for (const g of mine) await this.onEvent(g);
    })().finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /**
   * The event alone as a message of its own (a bundle's part; a message of one event is sent as it
   * came), with `attempts`: the properties its original had, less the bundle's.
   */
  private copyOf(g: Part, attempts: number): { content: Buffer; options: Record<string, unknown> } {
    const { msg, bundle } = g.delivery;
    const headers = { ...msg.properties.headers, [ATTEMPTS_HEADER]: attempts };
    if (!bundle) return { content: msg.content, options: { ...msg.properties, headers, persistent: true } };
    // An invalid part is known by the id it claims, if any (not the bundle's, its first event's).
    const claimed = g.raw && typeof g.raw === 'object' ? (g.raw as Record<string, unknown>)['id'] : undefined;
    const options = { ...msg.properties, headers, persistent: true, contentType: 'application/json', messageId: g.event?.id ?? (typeof claimed === 'string' ? claimed : undefined) };
    return { content: Buffer.from(JSON.stringify(g.raw)), options };
  }

  /**
   * Dead-letters an event: its message, when it is the message's only one (a nack: the queue's
   * dead-letter exchange takes it); a bundle's part as a message of its own, published where the
   * queue dead-letters, before the part is settled (on the same channel: the broker takes the
   * publish before the ack; a lost channel redelivers the whole bundle).
   */
  private deadLetter(g: Part, attempts: number): void {
    const d = g.delivery;
    if (!d.bundle) {
      this.nack(d.ch, d.msg);
      return;
    }
    try {
      const { content, options } = this.copyOf(g, attempts);
      d.ch.publish(this.opts.amqp.deadLetterExchange, this.queue, content, options);
    } catch {
      return; // Channel gone: the broker redelivers the unacked bundle.
    }
    this.done(g);
  }

  /** An event the consumer has nothing to do for: settled now, no transaction (see `wants`). */
  private skip(g: Gathered): boolean {
    let wanted = true;
    try {
      wanted = this.opts.wants ? this.opts.wants(g.event) : true;
    } catch {
      // a predicate that cannot decide leaves the event to its handler
    }
    if (wanted) return false;
    this.count(g.event.type, 'handled');
    this.done(g);
    return true;
  }

  private async onEvent(g: Gathered): Promise<void> {
    const { event } = g;
    const timer = this.opts.metrics?.eventDuration.startTimer({ queue: this.opts.queue, type: event.type });
    try {
      const done = await this.inEventSpan(event, () => this.process(event));
      timer?.();
      this.count(event.type, done ? 'handled' : 'duplicate');
      this.done(g);
    } catch (err) {
      timer?.();
      const retry = this.failed(g, err);
      if (retry) await new Promise((r) => setTimeout(r, retry.delay)).then(retry.requeue);
    }
  }

  /**
   * An event whose handling failed: dead-lettered at once (poison, or its last attempt), else
   * what to do to retry it: after `delay`, re-queue a copy at the tail with the attempt count and
   * settle the original (left unacked until then, so a crash meanwhile redelivers it). A bundle's
   * part goes alone: the bundle's other events are not held back or tried again.
   */
  private failed(g: Gathered, err: unknown): { delay: number; requeue: () => void } | null {
    const log = this.opts.log;
    const { event, delivery } = g;
    const { deadLetter, attempts, delayMs: delay, outage } = retryDecision(err, delivery.msg.properties.headers, this.opts.maxAttempts ?? 5, this.opts.retryDelayMs);
    if (deadLetter) {
      log.error({ queue: this.opts.queue, eventId: event.id, type: event.type, attempts, err: (err as Error).message }, 'event failed for good; dead-lettering');
      this.count(event.type, 'dead_lettered');
      this.deadLetter(g, attempts);
      return null;
    }
    log.warn({ queue: this.opts.queue, eventId: event.id, type: event.type, attempts, outage, err: (err as Error).message }, 'event failed; will retry');
    this.count(event.type, 'failed');
    const requeue = () => {
      try {
        const { content, options } = this.copyOf(g, attempts);
        delivery.ch.sendToQueue(this.queue, content, options);
      } catch {
        return; // Channel gone: the broker redelivers the unacked original.
      }
      this.done(g);
    };
    return { delay, requeue };
  }

  private get concurrency(): number {
    return Math.max(1, this.opts.batch?.concurrency ?? 1);
  }

  /**
   * Batch mode: adds a message to the batch being gathered. A full batch starts at once (when
   * a slot is free); otherwise the earliest wait of the messages gathered while a slot is free
   * starts it, unless every slot is busy: then messages keep gathering and go as the next batch
   * as soon as a slot frees, so batches grow with the load (one transaction for what arrived
   * meanwhile) and add no wait when idle.
   */
  private gather(g: Gathered): void {
    const { event } = g;
    const batch = this.opts.batch as BatchOptions;
    this.buffer.push(g);
    if (this.buffer.length >= batch.size) this.flush();
    else if (this.running.size < this.concurrency) this.flushWithin(this.waitOf(batch, event));
  }

  /** An event's batch wait (ms); a wait function that throws or answers no sane number: none. */
  private waitOf(batch: BatchOptions, event: EventEnvelope): number {
    if (typeof batch.maxWaitMs === 'number') return batch.maxWaitMs;
    try {
      const ms = batch.maxWaitMs(event);
      return Number.isFinite(ms) && ms > 0 ? ms : 0;
    } catch (err) {
      this.opts.log.warn({ err, queue: this.opts.queue, eventId: event.id }, 'batch wait function failed; no wait');
      return 0;
    }
  }

  /** The gathered batch goes within `ms`: the timer is started, or brought forward (never put back). */
  private flushWithin(ms: number): void {
    // The monotonic clock: a step of the wall clock never moves a wait.
    const due = performance.now() + ms;
    if (this.timer) {
      if (this.timerDue <= due) return;
      clearTimeout(this.timer);
    }
    this.timerDue = due;
    this.timer = setTimeout(() => this.flush(), ms);
  }

  private keyOf(event: EventEnvelope): string {
    return this.opts.batch?.key?.(event) ?? event.id;
  }

  /**
   * Starts batches of the gathered messages while a slot is free, in arrival order. With
   * `concurrency` above 1, a message whose key is in a batch being handled stays for a later
   * batch, and so does every later message with that key.
   */
  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.opts.batch) return;
    const { size } = this.opts.batch;
    while (this.running.size < this.concurrency && this.buffer.length > 0) {
      // One at a time (no batch running) no key is busy: this takes the first `size` messages.
      const batch: Gathered[] = [];
      const keys: string[] = [];
      const held = new Set<string>();
      const rest: Gathered[] = [];
      for (const g of this.buffer) {
        const key = this.keyOf(g.event);
        if (batch.length >= size || held.has(key) || this.busyKeys.has(key)) {
          held.add(key);
          rest.push(g);
          continue;
        }
        batch.push(g);
        keys.push(key);
      }
      if (batch.length === 0) return;
      this.buffer = rest;
      for (const k of keys) this.busyKeys.set(k, (this.busyKeys.get(k) ?? 0) + 1);
      // Started a turn later, never inside the caller (a delivery, a timer, the batch before's
      // settling), as the one-at-a-time chain this replaced did. Nothing depends on it: the
      // resume.test.ts failure once blamed on a start at once was two replicas appending in
      // either order (competing consumers), which happens with this too.
      const done: Promise<void> = Promise.resolve()
        .then(() => this.runBatch(batch))
        .catch((err: unknown) => this.opts.log.error({ err, queue: this.opts.queue }, 'batch failed unexpectedly'))
        .finally(() => {
          this.running.delete(done);
          for (const k of keys) {
            const n = (this.busyKeys.get(k) ?? 1) - 1;
            if (n === 0) this.busyKeys.delete(k);
            else this.busyKeys.set(k, n);
          }
          // What gathered while this batch was written goes next, without waiting.
          if (this.buffer.length > 0) this.flush();
        });
      this.running.add(done);
    }
  }

  private async runBatch(batch: Gathered[]): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      const fresh = await this.processBatch(batch.map((p) => p.event));
      // Each event of the batch took the batch's time.
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      for (const p of batch) this.settled(p.event, fresh.has(p.event.id), seconds);
      for (const p of batch) this.done(p);
    } catch (err) {
      if (batch.length === 1) return this.retryLater(batch[0] as Gathered, err);
      // Postgres is away: one by one would fail the same way.
      if (isOutageError(err)) {
        for (const p of batch) this.retryLater(p, err);
        return;
      }
      this.opts.log.warn({ queue: this.opts.queue, messages: batch.length, err: (err as Error).message }, 'batch failed; handling its messages one by one');
      for (const p of batch) {
        const one = process.hrtime.bigint();
        try {
          const fresh = await this.processBatch([p.event]);
          this.settled(p.event, fresh.has(p.event.id), Number(process.hrtime.bigint() - one) / 1e9);
          this.done(p);
        } catch (e) {
          this.retryLater(p, e);
        }
      }
    }
  }

  /** Batch mode: dead-letters the message or re-queues it after its backoff, without holding up the batches behind it. */
  private retryLater(p: Gathered, err: unknown): void {
    const retry = this.failed(p, err);
    if (!retry) return;
    const t = setTimeout(() => {
      this.retryTimers.delete(t);
      retry.requeue();
    }, retry.delay);
    this.retryTimers.add(t);
  }

  private settled(event: EventEnvelope, fresh: boolean, seconds: number): void {
    this.count(event.type, fresh ? 'handled' : 'duplicate');
    this.opts.metrics?.eventDuration.observe({ queue: this.opts.queue, type: event.type }, seconds);
  }

  /** Batch mode: one transaction recording every event id and handling the ones not seen before; returns their ids. */
  async processBatch(events: EventEnvelope[]): Promise<Set<string>> {
    const client = await this.opts.pool.connect();
    try {
      const ids = [...new Set(events.map((e) => e.id))];
      // With the BEGIN, in one round trip (ids are uuids: the envelope schema checked them).
      const ins = await begin<{ event_id: string }>(client, recordEventsSql(ids, this.opts.queue));
      const fresh = new Set(ins.rows.map((r) => r.event_id));
      const seen = new Set<string>();
      // In arrival order, each event once (a duplicate within the batch is handled once).
      const todo = events.filter((e) => fresh.has(e.id) && !seen.has(e.id) && seen.add(e.id));
      if (todo.length > 0) await (this.opts.batch as BatchOptions).handle(client, todo, (event, fn) => this.inEventSpan(event, fn));
      await commit(client);
      return fresh;
    } catch (err) {
      await rollback(client).catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Runs `fn` in the event's consumer span, a child of the span that wrote the event (tracing on). */
  private inEventSpan<T>(event: EventEnvelope, fn: () => Promise<T>): Promise<T> {
    if (!tracingEnabled()) return fn();
    const q = this.opts.queue;
    return inSpan(`${q} process`, { kind: 'consumer', parent: event.traceparent, attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': q, 'messaging.message.id': event.id, 'parley.event.type': event.type } }, fn);
  }

  private count(type: string, outcome: 'handled' | 'duplicate' | 'failed' | 'dead_lettered'): void {
    this.opts.metrics?.events.inc({ queue: this.opts.queue, type, outcome });
  }

  /** Runs the handler once per event id, in one transaction with the dedupe row. */
  async process(event: EventEnvelope): Promise<boolean> {
    const client = await this.opts.pool.connect();
    try {
      const ins = await begin(client, recordEventsSql([event.id], this.opts.queue));
      if (ins.rowCount === 0) {
        await rollback(client);
        return false;
      }
      await (this.opts.handle as EventHandler)(client, event);
      await commit(client);
      return true;
    } catch (err) {
      await rollback(client).catch(() => undefined);
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
    // Batch mode: write what was gathered; retries not yet re-queued stay unacked for redelivery.
    do {
      this.flush();
      await Promise.allSettled([...this.running]);
    } while (this.buffer.length > 0 || this.running.size > 0);
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    // The acks of what finished go out before the channel closes.
    if (ch) this.acks.get(ch)?.flush();
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
