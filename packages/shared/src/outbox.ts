import { Client, type Pool, type QueryConfig } from 'pg';
import type { Logger } from './logger';
import { afterCommit, atCommit, begin, commit, prepared, rollback, sqlPrepared, type Executor } from './db';
import type { AmqpConnection } from './amqp';
import type { RequestContext } from './context';
import type { ServiceMetrics } from './metrics';
import { withTraceparent } from './tracing';
import { buildEnvelope, BUNDLE_CONTENT_TYPE, MESSAGE_HEADER_TYPES, MESSAGE_TYPE_HEADER, ROUTED_HEADER, ROUTED_VALUE, SENDER_TYPE_HEADER, TYPE_HEADER, type EventEnvelope, type NewEvent } from './events/envelope';

const insertOutboxNotify = prepared(
  `WITH w AS (INSERT INTO outbox (event_id, routing_key, payload) VALUES ($1, $2, $3) RETURNING 1) SELECT pg_notify('outbox_' || current_schema(), '') FROM w`,
);
/**
 * The insert sent with the COMMIT (`atCommit`): prepared once per connection, so Postgres does not
 * plan it again for every event (planning was ~0.025 ms of each insert's ~0.08, pg_stat_statements
 * on message create, 2026-12-01).
 */
const insertOutboxAtCommit = sqlPrepared('INSERT INTO outbox (event_id, routing_key, payload) VALUES ($1, $2, $3)');
const withSender = MESSAGE_HEADER_TYPES.map((t) => `'${t}'`).join(', ');

/**
 * Claims the oldest unpublished rows and marks them published in one statement: the mark holds
 * only if the transaction commits, which the relay does after the broker confirmed every row (a
 * failed publish rolls it back). The payload comes as the text Postgres stores, published as is
 * (no parse and re-serialisation in the relay), in id order (RETURNING alone has none).
 *
 * The batch size is a literal, one prepared statement a size: Postgres plans a `LIMIT $1` without
 * its value (the generic plan) as 10% of the rows it expects, which on an outbox of 43,000 rows
 * made the generic plan look dearer than the custom ones, so every claim was planned again
 * (0.25 ms of planning a claim on the large benchmark account, `pg_stat_statements`, 2026-11-30).
 */
const claims = new Map<number, ReturnType<typeof prepared>>();
/** @internal The relay's claim of up to `batchSize` rows (exported for the kernel's tests): one prepared statement a size, so sizes are few and fixed (configuration), never adaptive. */
export function claimOutbox(batchSize: number): QueryConfig {
  let claim = claims.get(batchSize);
  if (!claim) {
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new TypeError(`outbox batch size: ${batchSize}`);
    claim = prepared(
      `WITH claimed AS (
         UPDATE outbox o SET published_at = now(), attempts = o.attempts + 1
           FROM (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ${batchSize} FOR UPDATE SKIP LOCKED) c
          WHERE o.id = c.id
         RETURNING o.id, o.event_id, o.routing_key, o.payload::text AS payload, o.payload->>'traceparent' AS traceparent,
                   CASE WHEN o.routing_key IN (${withSender}) THEN o.payload->'data'->>'sender_type' END AS sender_type,
                   CASE WHEN o.routing_key IN (${withSender}) THEN o.payload->'data'->>'message_type' END AS message_type,
                   concat(o.payload->>'account_id', ':', coalesce(o.payload->'data'->>'conversation_id', o.payload->'data'->>'id')) AS entity
       )
       SELECT * FROM claimed ORDER BY id`,
    );
    claims.set(batchSize, claim);
  }
  return claim([]);
}

/**
 * Set in the relay's transaction, before its claim is planned (and in the webhook sender's, whose
 * claim has the same shape). Each claim marks its rows published, so the waiting index (`published_at IS NULL`) keeps
 * an entry for every row published since the table's last VACUUM until an index scan finds the row
 * dead to every transaction and marks the entry dead; later scans then skip it without reading the
 * row. A bitmap scan never marks entries, and the planner took one for the claim (it expects a few
 * waiting rows): every claim read the rows of every event published since the last VACUUM, 5,000
 * to 5,800 after a benchmark run on the small account, 1,500 buffers and 4.5 ms a claim, where an
 * index scan reads those of the last few claims (docs/architecture.md, "Outbox").
 */
export const CLAIM_SETTINGS = 'SET LOCAL enable_bitmapscan = off';

/**
 * The headers an event is published with, which a queue may bind on through a headers exchange
 * (`on(type, handler, { headers })`) so that the broker never sends it events it would only
 * ack: the event's type (also its routing key), for a message its sender's type (`Contact`,
 * `User`, `AgentBot`...) and its message type (`'0'`-`'3'`), and the mark that they are all
 * there (ROUTED_HEADER). Read by the claim from the stored payload.
 */
export function routingHeaders(routingKey: string, senderType: string | null, messageType: string | null = null): Record<string, string> {
  const headers: Record<string, string> = { [TYPE_HEADER]: routingKey, [ROUTED_HEADER]: ROUTED_VALUE };
  if (senderType) headers[SENDER_TYPE_HEADER] = senderType;
  if (messageType) headers[MESSAGE_TYPE_HEADER] = messageType;
  return headers;
}

/** `routingHeaders` of an envelope (what the relay publishes it with; for test publishers). */
export function headersOf(event: Pick<EventEnvelope, 'type' | 'data'>): Record<string, string> {
  if (!MESSAGE_HEADER_TYPES.includes(event.type)) return routingHeaders(event.type, null);
  const sender = event.data['sender_type'];
  const messageType = event.data['message_type'];
  return routingHeaders(event.type, typeof sender === 'string' ? sender : null, typeof messageType === 'number' || typeof messageType === 'string' ? String(messageType) : null);
}

/**
 * Records an event in the service's outbox, inside the caller's transaction: the event
 * exists if and only if the change committed. Never publish from a request handler.
 * In a transaction of `withTransaction` or the consumer kit the insert goes to Postgres with
 * the COMMIT (`atCommit`: one round trip for both, and a write's events in one message);
 * if it fails, nothing commits.
 */
export async function writeEvent(tx: Executor, ctx: RequestContext, ev: NewEvent): Promise<EventEnvelope> {
  const envelope = buildEnvelope(ctx, ev);
  const payload = JSON.stringify(envelope);
  if (atCommit(tx, insertOutboxAtCommit([envelope.id, envelope.type, payload]))) {
    afterCommit(tx, kickLocalRelays);
  } else {
    // A transaction this process cannot see end (or none: the insert commits at once): the relays
    // listening for the schema are told at its commit, as by anything else that writes here.
    await tx.query(insertOutboxNotify([envelope.id, envelope.type, payload]));
  }
  return envelope;
}

/** A claimed outbox row, as the relay publishes it. */
export interface ClaimedRow {
  id: string;
  event_id: string;
  routing_key: string;
  payload: string;
  traceparent: string | null;
  sender_type: string | null;
  message_type: string | null;
  /** What the event is about, for its order (the account and the conversation, or the record's id). */
  entity: string;
}

/** Most payload bytes a bundle takes (one larger event still goes, alone). */
const BUNDLE_MAX_BYTES = 256 * 1024;

/**
 * A claim's rows in the messages the relay publishes: rows with the same routing (type and routing
 * headers) together, up to `max` events and BUNDLE_MAX_BYTES a message, each group in id order and
 * the groups in the order they were started. Every queue gets from a bundle exactly the events it
 * would have been routed one by one, and the events of one entity (a conversation with its messages,
 * or one record) in id order: a row joins a group only if no row of its entity went to a group
 * started after it (else it starts a new one). Events of different entities may reach a queue in
 * another order than their ids, which no consumer relies on (docs/reliability.md, "Ordering").
 */
export function bundleRows<R extends Pick<ClaimedRow, 'routing_key' | 'sender_type' | 'message_type' | 'payload' | 'entity'>>(rows: readonly R[], max: number): R[][] {
  const groups: R[][] = [];
  const open = new Map<string, { rows: R[]; bytes: number; at: number }>();
  /** The latest group (its index) holding a row of each entity. */
  const latest = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.routing_key}\u0000${row.sender_type ?? ''}\u0000${row.message_type ?? ''}`;
    const bytes = Buffer.byteLength(row.payload);
    const g = open.get(key);
    let at: number;
    if (g && g.rows.length < max && g.bytes + bytes <= BUNDLE_MAX_BYTES && (latest.get(row.entity) ?? -1) <= g.at) {
      g.rows.push(row);
      g.bytes += bytes;
      at = g.at;
    } else {
      at = groups.length;
      const fresh = { rows: [row], bytes, at };
      groups.push(fresh.rows);
      open.set(key, fresh);
    }
    // Never behind what it held: a row joins only a group at or after its entity's latest.
    latest.set(row.entity, at);
  }
  return groups;
}

/** The relays running in this process (one a service; a test may run several). */
const localRelays = new Set<OutboxRelay>();

/** Wakes this process's relays: a transaction that wrote events has committed. */
function kickLocalRelays(): void {
  for (const relay of localRelays) relay.kick();
}

export async function writeEvents(tx: Executor, ctx: RequestContext, events: NewEvent[]): Promise<EventEnvelope[]> {
  const out: EventEnvelope[] = [];
  for (const ev of events) out.push(await writeEvent(tx, ctx, ev));
  return out;
}

export interface RelayOptions {
  pool: Pool;
  /** Connection string for the LISTEN client (the service role's URL). */
  listenUrl: string;
  schema: string;
  amqp: AmqpConnection;
  log: Logger;
  batchSize?: number;
  pollMs?: number;
  /**
   * Least time between two publishes (ms; 0: none). What commits within it after a publish goes
   * out together when it ends, so a steady flow leaves in bursts every `flushMs` instead of one
   * event at a time, and every consumer downstream handles a burst in one transaction and one
   * ack; an event after a quiet spell goes at once. Adds at most `flushMs` to an event's way.
   */
  flushMs?: number;
  /**
   * Longest wait for the broker's confirms of a batch (ms) before its channel is closed and the
   * batch rolled back, to go again: the claim's row locks are never held longer than this,
   * whatever the broker or the network does (a silent partition is otherwise seen only by the
   * heartbeat, a minute or two later). A batch that was delivered after all is published twice,
   * which consumers dedupe.
   */
  confirmTimeoutMs?: number;
  /**
   * Most events in one message (default 1: one an event). Above 1 a claim's events with the same
   * routing (type and routing headers) go as bundles (`bundleRows`), each stored and delivered
   * once by the broker instead of once an event.
   */
  bundleMax?: number;
  /** First pause after a failure (ms; 250), doubling up to `maxBackoffMs` (5,000) while failures go on. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  metrics?: ServiceMetrics;
}

/**
 * Publishes outbox rows in id order with publisher confirms and marks them sent. Rows are
 * claimed with FOR UPDATE SKIP LOCKED so N replicas share the work. A commit that wrote events
 * wakes the relay of its own process (`afterCommit`), with no round trip; a NOTIFY on
 * `outbox_<schema>` wakes every replica's (what `writeEvent` sends for a transaction it cannot
 * see end, and what a tool that inserts rows itself sends); a slow poll covers what neither
 * woke (a replica that died between its commit and its publish). There is no NOTIFY trigger:
 * Postgres signals every backend LISTENing in the database at each NOTIFY, whatever its channel,
 * so one would wake all services' listeners at every write (kernel migration 003). A row is
 * marked only after the broker confirmed it, so a crash can publish twice (consumers dedupe)
 * but never lose one. After a failure the relay backs off (up to 5 s); commits meanwhile do not
 * cut the pause short (each would claim rows only to roll them back), a broker connection or a
 * LISTEN made again does.
 */
export class OutboxRelay {
  private listener: Client | null = null;
  private running = false;
  private wake: (() => void) | null = null;
  /** A kick that came while a drain was running: look again before sleeping. */
  private kicked = false;
  private loop: Promise<void> | null = null;
  private backoffMs = 0;
  /** When the last publish that left nothing behind ended (the flush window starts there). */
  private lastPublishAt = -Infinity;
  /** Ends a flush window's pause early (stop). */
  private stopWait: (() => void) | null = null;
  /** A broker connection was made (again): the backoff after a failure ends. */
  private readonly onAmqpConnect = async () => this.resume();

  constructor(private readonly opts: RelayOptions) {
    // Its claim made (and the batch size checked) here, not at the first claim, where a bad size
    // would be a publish failure retried for ever.
    claimOutbox(this.batchSize);
  }

  private get batchSize(): number {
    return this.opts.batchSize ?? 200;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    localRelays.add(this);
    void this.opts.amqp.onConnect(this.onAmqpConnect).catch(() => undefined);
    void this.listen();
    this.loop = this.run();
  }

  private async listen(): Promise<void> {
    while (this.running && !this.listener) {
      const client = new Client({ connectionString: this.opts.listenUrl });
      try {
        await client.connect();
        client.on('notification', () => this.kick());
        client.on('error', () => {
          this.listener = null;
          client.end().catch(() => undefined);
          if (this.running) setTimeout(() => void this.listen(), 1000).unref();
        });
        await client.query(`LISTEN outbox_${this.opts.schema}`);
        this.listener = client;
        // A change that committed before LISTEN took effect sent its NOTIFY to nobody: look now
        // rather than a poll interval later (Postgres is back, if it was away: no backoff).
        this.resume();
      } catch {
        await client.end().catch(() => undefined);
        await sleep(1000);
      }
    }
  }

  /** Asks the relay to look at the outbox now (after its backoff, if the last look failed). */
  kick(): void {
    const w = this.wake;
    if (!w || this.backoffMs > 0) {
      this.kicked = true;
      return;
    }
    this.wake = null;
    w();
  }

  /** What failed may work now (the broker or Postgres is back): look at once, no backoff. */
  private resume(): void {
    this.backoffMs = 0;
    this.kick();
  }

  private async run(): Promise<void> {
    const pollMs = this.opts.pollMs ?? 1000;
    const flushMs = this.opts.flushMs ?? 0;
    while (this.running) {
      // Within the flush window of the last publish: let more commit and send them together.
      const wait = this.lastPublishAt + flushMs - performance.now();
      if (wait > 0) await this.pause(wait);
      if (!this.running) break;
      let published = 0;
      // What kicked so far has committed: this look takes it (a kick during it asks for another).
      this.kicked = false;
      try {
        published = await this.drainOnce();
        if (published > 0) this.opts.metrics?.outboxPublished.inc(published);
        // A full batch left a backlog: that goes at once, whatever the window.
        if (published > 0) this.lastPublishAt = published >= this.batchSize ? -Infinity : performance.now();
        this.backoffMs = 0;
      } catch (err) {
        this.opts.metrics?.outboxPublishFailures.inc();
        this.backoffMs = Math.min(Math.max(this.backoffMs * 2, this.opts.minBackoffMs ?? 250), this.opts.maxBackoffMs ?? 5000);
        this.opts.log.warn({ err: (err as Error).message, backoffMs: this.backoffMs }, 'outbox publish failed; will retry');
      }
      if (!this.running) break;
      // A full batch may have left more behind; a smaller one took everything committed before
      // it began, and what committed since has kicked (NOTIFY): no empty look in between.
      if ((published >= this.batchSize || this.kicked) && this.backoffMs === 0) {
        this.kicked = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.wake = null;
          resolve();
        }, this.backoffMs || pollMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  /** Sleeps `ms`, or less if the relay stops (a kick meanwhile is kept for the next look). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.stopWait = null;
        resolve();
      }, ms);
      this.stopWait = () => {
        clearTimeout(t);
        this.stopWait = null;
        resolve();
      };
    });
  }

  /** Publishes one batch; returns how many rows were sent. */
  async drainOnce(): Promise<number> {
    const { amqp } = this.opts;
    // The channel first: while the broker is away, no rows are claimed only to be rolled back.
    // With nothing to publish the relay does not try to connect (AmqpConnection reconnects on
    // its own back-off, and its connection ends the relay's).
    if (!amqp.connected && (await this.opts.pool.query('SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT 1')).rowCount === 0) return 0;
    const ch = await amqp.confirmChannel();
    const client = await this.opts.pool.connect();
    try {
      // The claim stays a prepared statement of its own: planning it on every look (were it sent
      // with the BEGIN as text) costs Postgres more than the round trip saves. Its settings go
      // with the BEGIN (CLAIM_SETTINGS).
      await begin(client, CLAIM_SETTINGS);
      const { rows } = await client.query<ClaimedRow>(claimOutbox(this.batchSize));
      if (rows.length === 0) {
        await commit(client);
        return 0;
      }
      const timestamp = Math.floor(Date.now() / 1000);
      for (const group of bundleRows(rows, this.opts.bundleMax ?? 1)) {
        const row = group[0] as ClaimedRow;
        const one = group.length === 1;
        // In the trace of the request that wrote the (first) event (tracing on: the amqplib
        // instrumentation's publish span joins it and passes it on in the message headers; each
        // event of a bundle carries its own traceparent, which its consumer span joins).
        withTraceparent(row.traceparent, () =>
          ch.publish(amqp.exchange, row.routing_key, Buffer.from(one ? row.payload : `[${group.map((r) => r.payload).join(',')}]`), {
            persistent: true,
            contentType: one ? 'application/json' : BUNDLE_CONTENT_TYPE,
            messageId: row.event_id,
            type: row.routing_key,
            headers: routingHeaders(row.routing_key, row.sender_type, row.message_type),
            timestamp,
          }),
        );
      }
      await amqp.confirmsOf(ch, this.opts.confirmTimeoutMs ?? 30_000);
      await commit(client);
      return rows.length;
    } catch (err) {
      await rollback(client).catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    localRelays.delete(this);
    this.opts.amqp.offConnect(this.onAmqpConnect);
    this.resume();
    this.stopWait?.();
    await this.loop?.catch(() => undefined);
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => undefined);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
