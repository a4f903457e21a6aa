import amqp, { type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { Logger } from './logger';
import { DEAD_LETTER_EXCHANGE, EXCHANGE } from './events/envelope';

type SetupFn = (conn: ChannelModel) => Promise<void>;

/** Longest `close` waits for the broker (see `close`). */
const CLOSE_WAIT_MS = 3000;

/**
 * One RabbitMQ connection per process that reconnects with backoff. Consumers register a
 * setup function that runs again after every reconnect; publishers ask for a confirm
 * channel, which fails fast while the broker is away (the outbox keeps the events).
 */
export class AmqpConnection {
  private conn: ChannelModel | null = null;
  private connecting: Promise<ChannelModel> | null = null;
  private confirm: ConfirmChannel | null = null;
  private readonly setups = new Set<SetupFn>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = 1000;

  readonly exchange: string;
  readonly deadLetterExchange: string;

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    /** Prefix of every exchange and queue name (see config NAMESPACE). */
    readonly namespace = '',
    /** Idle queues expire after this many ms (tests). */
    readonly queueExpiresMs?: number,
  ) {
    this.exchange = `${namespace}${EXCHANGE}`;
    this.deadLetterExchange = `${namespace}${DEAD_LETTER_EXCHANGE}`;
  }

  queueName(name: string): string {
    return `${this.namespace}${name}`;
  }

  get connected(): boolean {
    return this.conn !== null;
  }

  /** Connects (once; concurrent callers share the attempt). Throws if the broker is unreachable. */
  async connect(): Promise<ChannelModel> {
    if (this.conn) return this.conn;
    if (this.closed) throw new Error('amqp connection closed');
    if (!this.connecting) {
      this.connecting = (async () => {
        const conn = await amqp.connect(this.url, { timeout: 5000 });
        conn.on('error', (err: Error) => this.log.warn({ err: err.message }, 'amqp connection error'));
        let lost = false;
        conn.on('close', () => {
          lost = true;
          // An earlier connection's late close leaves the current one alone.
          if (this.conn !== null && this.conn !== conn) return;
          this.conn = null;
          this.confirm = null;
          if (!this.closed) {
            this.log.warn('amqp connection closed; reconnecting');
            this.scheduleReconnect();
          }
        });
        // Before each step: `close` came while this attempt was under way (the connection it made
        // must not outlive it), or the connection was lost (its close has scheduled the next attempt).
        const stillWanted = (): void => {
          if (this.closed) throw new Error('amqp connection closed');
          if (lost) throw new Error('amqp connection lost during set-up');
        };
        try {
          stillWanted();
          const ch = await conn.createChannel();
          await assertTopology(ch, this.exchange, this.deadLetterExchange);
          await ch.close();
          // The connection is handed out (`connected`, `connect`, `confirmChannel`) only once every
          // set-up ran on it: one registered meanwhile (`onConnect`) is run by this loop, once.
          for (const setup of this.setups) {
            stillWanted();
            await setup(conn);
          }
          stillWanted();
          this.conn = conn;
        } catch (err) {
          // A set-up that failed (a consumer not attached, and every one after it) must not leave a
          // connection that looks ready: it is closed, and the next one runs them all again.
          this.abandon(conn, err);
          throw err;
        }
        this.reconnectDelayMs = 1000;
        return conn;
      })().finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  /** Connects now if possible, and keeps trying in the background if not. */
  start(): void {
    this.connect().catch((err: Error) => {
      this.log.warn({ err: err.message }, 'amqp unreachable; will retry');
      this.scheduleReconnect();
    });
  }

  /**
   * The next attempt, after 1 s, doubling to 10 s while attempts fail (whichever path schedules
   * it: a failed attempt, or the close of a connection whose set-up failed); a connection made
   * with every set-up resets it.
   */
  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, 10_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, delay);
    this.retryTimer.unref();
  }

  /**
   * Registers a setup to run on the current and every future connection. If it fails on the
   * current one, that connection is closed (the next runs every set-up again, as `connect` does
   * when a set-up fails), so it never stays ready without this set-up; the error is thrown, and the
   * set-up stays registered (`offConnect` removes it).
   */
  async onConnect(setup: SetupFn): Promise<void> {
    this.setups.add(setup);
    const conn = this.conn;
    if (!conn) return;
    try {
      await setup(conn);
    } catch (err) {
      if (this.conn === conn) {
        this.conn = null;
        this.confirm = null;
        this.abandon(conn, err);
        // Its close event finds another connection or none: the reconnect is scheduled here.
        this.scheduleReconnect();
      }
      throw err;
    }
  }

  /**
   * Closes a connection a set-up failed on. Not awaited: a close whose CloseOk never comes (the
   * link lost meanwhile) must not hold up the caller, and with it every later `connect`.
   */
  private abandon(conn: ChannelModel, err: unknown): void {
    if (!this.closed) this.log.warn({ err: (err as Error).message }, 'amqp set-up failed; reconnecting');
    conn.close().catch(() => undefined);
  }

  offConnect(setup: SetupFn): void {
    this.setups.delete(setup);
  }

  async confirmChannel(): Promise<ConfirmChannel> {
    if (this.confirm) return this.confirm;
    const conn = await this.connect();
    const ch = await conn.createConfirmChannel();
    ch.on('error', () => undefined);
    // The connection was given up while the channel was being opened (a set-up failed on it): not handed out.
    if (this.conn !== conn) {
      ch.close().catch(() => undefined);
      throw new Error('amqp connection closed');
    }
    ch.on('close', () => {
      if (this.confirm === ch) this.confirm = null;
    });
    this.confirm = ch;
    return ch;
  }

  /**
   * The broker's confirms of everything published on `ch` (a channel of `confirmChannel`). Fails
   * when the channel closes first, and after `timeoutMs` gives the channel up (closed, and no
   * longer handed out: its close may wait for a broker that does not answer) and fails. The close
   * is watched here because amqplib (0.10) fails a closing channel's waiting confirms only up to
   * the first slot of its window that holds no callback: once the broker has confirmed out of
   * order (a message routed to one queue before an earlier one routed to several) and a
   * `multiple` ack has moved the window up to such a slot, a connection lost before the last
   * confirm leaves `waitForConfirms` pending for ever (the outbox relay held its claimed rows,
   * which every other relay skips: the likely cause of a fault-suite CI run in which one event
   * stayed unpublished after RabbitMQ stopped).
   */
  async confirmsOf(ch: ConfirmChannel, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onClose: (() => void) | undefined;
    const failed = new Promise<never>((_, reject) => {
      onClose = () => reject(new Error('channel closed before the broker confirmed every publish'));
      ch.once('close', onClose);
      timer = setTimeout(() => {
        if (this.confirm === ch) this.confirm = null;
        ch.close().catch(() => undefined);
        reject(new Error(`no confirms from the broker within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      await Promise.race([ch.waitForConfirms(), failed]);
    } finally {
      clearTimeout(timer);
      if (onClose) ch.removeListener('close', onClose);
    }
  }

  /**
   * Closes the connection, and one being made once its attempt sees `closed`. Waits for either at
   * most `CLOSE_WAIT_MS`: over a link gone silent, a close or an attempt's next step is answered
   * only when the heartbeat gives up (minutes), and a process stopping must not wait for that.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const conn = this.conn;
    this.conn = null;
    this.confirm = null;
    const closing = Promise.all([conn?.close().catch(() => undefined), this.connecting?.catch(() => undefined)]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }
}

export async function assertTopology(ch: Channel, exchange = EXCHANGE, deadLetterExchange = DEAD_LETTER_EXCHANGE): Promise<void> {
  await ch.assertExchange(exchange, 'topic', { durable: true });
  await ch.assertExchange(deadLetterExchange, 'direct', { durable: true });
}
