import type { Logger, Redis } from '@parley/shared';
import { compareIds, toEntry, type StreamEntry } from './log';

/** Someone on this replica who wants a stream's new entries (a subscription). */
export interface StreamListener {
  push(stream: string, entries: StreamEntry[]): void;
}

interface Tail {
  /** The id of the last entry read from this stream. */
  cursor: string;
  listeners: Set<StreamListener>;
}

const BLOCK_MS = 200;
/** Entries one read takes per stream: a read that fills it has a backlog behind it. */
const READ_COUNT = 1000;

/**
 * One reader per replica: a single blocking XREAD over every stream its subscriptions follow,
 * each from the last id read, so an entry is read once per replica whatever the number of
 * subscribers, and none is skipped across reconnects (a Redis outage just delays the next read).
 * A stream joins with the cursor at its newest entry; what came before is the subscription's own
 * replay (`Subscription`).
 *
 * Reads are at least `flushMs` apart once one brought entries: the entries appended meanwhile
 * come in the next read together, and each socket gets them in one write (the cable server writes
 * a read's frames to a socket in one buffer). Under load that is one write per socket per window instead of one per event;
 * a lone entry after a quiet window is read at once (the blocking read is already waiting), so
 * only an entry that follows another within the window waits, at most `flushMs`. A read that
 * fills its COUNT has a backlog behind it and is followed at once, and so is a blocked read that
 * brought entries, without blocking: Redis 7.0 answers it with the stream that woke it, and the
 * entries the same append gave other streams (a contact's, with the agents') come with the next.
 */
export class StreamHub {
  private readonly tails = new Map<string, Tail>();
  private reader: Redis | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly redis: Redis, private readonly log: Logger, private readonly flushMs = 0) {}

  start(): void {
    if (this.running) return;
    this.reader = this.redis.duplicate();
    this.reader.on('error', () => undefined);
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.reader?.disconnect();
    this.wake?.();
    await this.running;
  }

  /** Ends the loop's pause at once when the hub stops. */
  private wake: (() => void) | null = null;
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Follows `stream` for the listener from `cursor` (the stream's newest id when it joins). */
  add(stream: string, listener: StreamListener, cursor: string): void {
    const tail = this.tails.get(stream);
    if (tail) tail.listeners.add(listener);
    else this.tails.set(stream, { cursor, listeners: new Set([listener]) });
  }

  remove(stream: string, listener: StreamListener): void {
    const tail = this.tails.get(stream);
    if (!tail) return;
    tail.listeners.delete(listener);
    if (tail.listeners.size === 0) this.tails.delete(stream);
  }

  get streamCount(): number {
    return this.tails.size;
  }

  private async loop(): Promise<void> {
    /** When the last read that brought entries returned (0: the next read may go at once). */
    let deliveredAt = 0;
    /**
     * What the next read is. `poll`: a window after the last delivery, without blocking; when it
     * brings nothing the stream is quiet and the next one `block`s until an append. A read that
     * blocked and brought entries is followed at once by a `drain` (Redis 7.0 answers a blocked
     * XREAD with the stream that woke it, so what the same append wrote to other streams, an
     * agent's and a contact's, comes with it, not a window later), then polls resume. A read that
     * merely could have blocked (entries were there) is not followed at once: that second read
     * would split the window's entries in two writes a socket.
     */
    let mode: 'poll' | 'block' | 'drain' = 'poll';
    while (!this.stopped) {
      const wait = deliveredAt + this.flushMs - Date.now();
      if (wait > 0 && mode !== 'drain') await this.pause(wait);
      if (this.stopped) return;
      const keys = [...this.tails.keys()];
      if (keys.length === 0) {
        mode = 'poll';
        await this.pause(BLOCK_MS);
        continue;
      }
      let res: Array<[string, Array<[string, string[]]>]> | null;
      try {
        const ids = keys.map((k) => (this.tails.get(k) as Tail).cursor);
        const reader = this.reader as Redis;
        res = (await (mode === 'block' ? reader.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...ids) : reader.xread('COUNT', READ_COUNT, 'STREAMS', ...keys, ...ids))) as typeof res;
      } catch (err) {
        mode = 'poll';
        if (this.stopped) return;
        this.log.warn({ err: (err as Error).message }, 'stream read failed; retrying');
        await this.pause(500);
        continue;
      }
      const brought: boolean = !!res && res.length > 0;
      if (brought) deliveredAt = (res as NonNullable<typeof res>).every(([, rows]) => rows.length < READ_COUNT) ? Date.now() : 0;
      mode = mode === 'block' ? (brought ? 'drain' : 'block') : mode === 'drain' || brought ? 'poll' : 'block';
      for (const [stream, rows] of res ?? []) {
        const tail = this.tails.get(stream);
        if (!tail || rows.length === 0) continue;
        const entries = rows.map(toEntry).filter((e) => compareIds(e.id, tail.cursor) > 0);
        if (entries.length === 0) continue;
        tail.cursor = (entries[entries.length - 1] as StreamEntry).id;
        for (const l of [...tail.listeners]) {
          try {
            l.push(stream, entries);
          } catch (err) {
            this.log.error({ err }, 'stream listener failed');
          }
        }
      }
    }
  }
}
