import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '@parley/shared';
import { GrantRefused, type Grant, type Grants } from '../auth/grants';
import type { Presence } from '../presence';
import type { StreamHub } from '../streams/hub';
import type { StreamLog } from '../streams/log';
import type { RealtimeConfig } from '../config';
import type { RealtimeMetrics } from '../metrics';
import { frames, parseAction, parseCommand, parseIdentifier, SUBPROTOCOL, type DisconnectReason, type RoomIdentifier } from './protocol';
import { Subscription } from './subscription';

export interface CableDeps {
  config: RealtimeConfig;
  log: Logger;
  grants: Grants;
  hub: StreamHub;
  streamLog: StreamLog;
  presence: Presence;
  metrics: RealtimeMetrics;
}

/** A data frame's end, after its `message` (`}`). */
const FRAME_END = 0x7d;
/** Frames are text (JSON), bytes included. */
const TEXT = { binary: false } as const;

/** Bytes of the header of a WebSocket frame of `length` payload bytes sent by a server (unmasked). */
export const headerLength = (length: number): number => (length < 126 ? 2 : length < 65536 ? 4 : 10);

/**
 * Writes at `o` the header of a final, unmasked text frame of `length` payload bytes (RFC 6455
 * 5.2, byte for byte what `ws` sends); answers the offset after it.
 */
export function writeTextHeader(out: Buffer, o: number, length: number): number {
  out[o] = 0x81;
  if (length < 126) {
    out[o + 1] = length;
    return o + 2;
  }
  if (length < 65536) {
    out[o + 1] = 126;
    out.writeUInt16BE(length, o + 2);
    return o + 4;
  }
  out[o + 1] = 127;
  out.writeUInt32BE(Math.floor(length / 2 ** 32), o + 2);
  out.writeUInt32BE(length >>> 0, o + 6);
  return o + 10;
}

/** One socket: its subscriptions by identifier, and its frame budget. */
class Connection {
  readonly subs = new Map<string, Subscription>();
  /** Identifiers being subscribed (checks in flight). */
  readonly pending = new Set<string>();
  frames = 0;
  windowStart = Date.now();
  closed = false;
  /** Event frames of this tick not written yet, as pairs: the subscription's head, the entry's message. */
  queued: Buffer[] = [];
  /** Their bytes once framed. */
  queuedBytes = 0;
  constructor(readonly ws: WebSocket) {}
}

/** The TCP socket under a `ws` WebSocket (not in its typings). */
export type RawSocket = { write(data: Buffer): boolean; readonly writableLength: number };
const socketOf = (ws: WebSocket): RawSocket | undefined => (ws as unknown as { _socket?: RawSocket })._socket;

/**
 * The memory a tick's event frames are framed in before their socket's one write. A write the
 * kernel takes whole at once (the socket's `writableLength` is back to 0 after it: Node keeps no
 * reference to the bytes) frees its region for the next socket, so a tick's writes to a thousand
 * sockets reuse one region; a write that stays queued keeps its region (the next one starts
 * after it) until the slab is replaced, and a socket with writes queued already gets a buffer of
 * its own. This rests on `ws`'s socket being a `net.Socket` (the HTTP server's upgrade): Node
 * counts a write in `writableLength` until no part of it is referenced any more (a stream that
 * kept a chunk and answered at once, an in-memory pipe, would break it). A fresh buffer a socket
 * a tick, past Node's 4 KB pool, cost its allocation and its garbage collection: about 3 of 9 µs
 * of JavaScript a write (docs/benchmarks.md, issue 14).
 */
export class FrameSlab {
  private slab: Buffer;
  private used = 0;
  /** The region `take` lent out last, until `sent` says whether its socket kept it. */
  private lent: Buffer | null = null;

  constructor(private readonly bytes = 256 * 1024) {
    this.slab = Buffer.allocUnsafe(bytes);
  }

  /** Room for `size` bytes to write to `socket`. */
  take(socket: RawSocket, size: number): Buffer {
    if (socket.writableLength !== 0 || size > this.bytes / 8) return Buffer.allocUnsafe(size);
    if (this.used + size > this.bytes) {
      this.slab = Buffer.allocUnsafe(this.bytes);
      this.used = 0;
    }
    this.lent = this.slab.subarray(this.used, this.used + size);
    return this.lent;
  }

  /** After `socket.write(out)`: a region the socket still holds is never lent again. */
  sent(socket: RawSocket, out: Buffer): void {
    if (out === this.lent && socket.writableLength !== 0) this.used += out.length;
    this.lent = null;
  }
}

/**
 * The `/cable` endpoint: Rails ActionCable's v1 JSON protocol over `ws`, with `RoomChannel` as
 * its one channel. Each connection gets `welcome`, a ping every REALTIME_PING_INTERVAL_MS, and
 * answers to its commands; frames that are not commands are ignored, and frames, their size,
 * their rate and the subscriptions per connection are bounded.
 */
export class CableServer {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private readonly pinger: NodeJS.Timeout;
  /** Connections with event frames queued this tick, and the frames delivered: settled once the tick's entries are all sent. */
  private readonly flushing: Connection[] = [];
  private delivered = 0;
  private settling = false;
  private readonly slab = new FrameSlab();

  constructor(private readonly deps: CableDeps) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: deps.config.REALTIME_MAX_FRAME_BYTES,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    this.pinger = setInterval(() => this.pingAll(), deps.config.REALTIME_PING_INTERVAL_MS);
    this.pinger.unref();
  }

  /** Takes the HTTP server's upgrades at `/cable`; anything else is refused. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/cable' && path !== '/cable/') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.on('error', () => undefined);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws));
  }

  private connected(ws: WebSocket): void {
    const conn = new Connection(ws);
    this.connections.add(conn);
    this.deps.metrics.connections.inc();
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => this.onFrame(conn, isBinary ? null : data.toString()));
    ws.on('close', () => this.gone(conn));
    this.send(conn, frames.welcome());
  }

  private gone(conn: Connection): void {
    if (conn.closed) return;
    conn.closed = true;
    this.connections.delete(conn);
    this.deps.metrics.connections.dec();
    for (const sub of conn.subs.values()) sub.close(this.deps.hub);
    conn.subs.clear();
  }

  private onFrame(conn: Connection, raw: string | null): void {
    const now = Date.now();
    if (now - conn.windowStart >= 10_000) {
      conn.windowStart = now;
      conn.frames = 0;
    }
    if (++conn.frames > this.deps.config.REALTIME_MAX_FRAMES_PER_10S) return this.disconnect(conn, 'invalid_request', false);
    if (raw === null) return;
    const cmd = parseCommand(raw);
    if (!cmd) return;
    switch (cmd.command) {
      case 'subscribe':
        void this.subscribe(conn, cmd.identifier).catch((err: unknown) => {
          this.deps.log.error({ err }, 'subscribe failed');
          this.send(conn, frames.reject(cmd.identifier));
        });
        return;
      case 'unsubscribe': {
        const sub = conn.subs.get(cmd.identifier);
        if (sub) {
          sub.close(this.deps.hub);
          conn.subs.delete(cmd.identifier);
        }
        return;
      }
      case 'message': {
        const sub = conn.subs.get(cmd.identifier);
        if (sub && parseAction(cmd.data) === 'update_presence') void this.presence(conn, sub.identifier, sub.grantNow).catch(() => undefined);
        return;
      }
    }
  }

  private async subscribe(conn: Connection, identifier: string): Promise<void> {
    // Rails ignores a second subscribe to the same identifier.
    if (conn.subs.has(identifier) || conn.pending.has(identifier)) return;
    const room = parseIdentifier(identifier);
    if (!room || conn.subs.size + conn.pending.size >= this.deps.config.REALTIME_MAX_SUBSCRIPTIONS) {
      this.deps.metrics.subscriptions.inc({ outcome: 'rejected' });
      return this.send(conn, frames.reject(identifier));
    }
    conn.pending.add(identifier);
    try {
      await this.open(conn, identifier, room);
    } finally {
      conn.pending.delete(identifier);
    }
  }

  private async open(conn: Connection, identifier: string, room: RoomIdentifier): Promise<void> {
    const { grants, streamLog, hub, config } = this.deps;
    let grant: Grant;
    let stream: string;
    let grantedAt: string;
    try {
      // The stream's newest id before the check: control entries after it may postdate the
      // owner's answer, so the subscription applies them; those before are in the answer.
      if (room.user_id != null) {
        if (room.account_id == null) throw new GrantRefused('account_id is required with user_id');
        stream = streamLog.accountStream(room.account_id);
        grantedAt = await streamLog.lastId(stream);
        grant = await grants.user(room.pubsub_token, room.user_id, room.account_id);
      } else {
        grant = await grants.contact(room.pubsub_token);
        if (grant.kind !== 'contact') throw new GrantRefused('not a contact');
        stream = streamLog.contactStream(grant.accountId, grant.contactId);
        grantedAt = await streamLog.lastId(stream);
        // A contact's check ran before its stream was known: check again after reading its tail.
        grant = await grants.contact(room.pubsub_token);
      }
    } catch (err) {
      if (conn.closed) return;
      if (err instanceof GrantRefused) {
        this.deps.metrics.subscriptions.inc({ outcome: 'rejected' });
        return this.send(conn, frames.reject(identifier));
      }
      // An owner or Redis that cannot answer: the client comes back (ActionCable reconnects).
      this.deps.log.warn({ err: (err as Error).message }, 'subscription check failed; asking the client to reconnect');
      this.deps.metrics.subscriptions.inc({ outcome: 'unavailable' });
      return this.disconnect(conn, 'unavailable', true);
    }
    if (conn.closed) return;
    let cursor = grantedAt;
    let resync = false;
    if (room.last_event_id) {
      const from = await streamLog.resumeFrom(stream, room.last_event_id);
      // The stream started again after the client's id (Redis lost it): all the new one holds came
      // after that id, so it is replayed from its genesis entry, after the resync.required for what
      // the lost one held. Past retention or ahead of the log: the resync, then from now.
      if (from.kind === 'resume') cursor = room.last_event_id;
      else if (from.kind === 'restarted') cursor = from.at;
      resync = from.kind !== 'resume';
    }
    if (conn.closed) return;
    // Every data frame of this subscription begins with its identifier: encoded once.
    const head = Buffer.from(`{"identifier":${JSON.stringify(identifier)},"message":`);
    const sub = new Subscription(identifier, grant, stream, {
      message: (id, message) => {
        this.deps.metrics.delivered.inc();
        this.send(conn, frames.message(id, message));
      },
      event: (_id, e) => {
        // The entry's `message` is serialised once for every subscriber of every connection.
        e.message ??= Buffer.from(JSON.stringify({ event: e.body.event, data: e.body.data, id: e.id }));
        this.sendEvent(conn, head, e.message);
      },
      ended: (id) => {
        conn.subs.get(id)?.close(hub);
        conn.subs.delete(id);
        this.send(conn, frames.reject(id));
      },
    }, { cursor, grantedAt });
    conn.subs.set(identifier, sub);
    this.deps.metrics.subscriptions.inc({ outcome: 'confirmed' });
    this.send(conn, frames.confirm(identifier));
    // Past retention (or an id the log never gave): the client must refetch; live events follow.
    if (resync) this.send(conn, frames.message(identifier, { event: 'resync.required', data: { account_id: grant.accountId, last_event_id: room.last_event_id }, id: cursor }));
    try {
      await sub.start(hub, streamLog, config.REALTIME_REPLAY_BATCH);
    } catch (err) {
      // Confirmed, but the replay could not be read (Redis away or too slow): a reject would tell
      // the client it is refused for good; a disconnect brings it back to resume from its last id.
      this.deps.log.warn({ err: (err as Error).message }, 'replay failed; asking the client to reconnect');
      return this.disconnect(conn, 'unavailable', true);
    }
    await this.presence(conn, identifier, grant).catch(() => undefined);
  }

  private async presence(conn: Connection, identifier: string, grant: Grant | null): Promise<void> {
    if (!grant || conn.closed) return;
    const data = await this.deps.presence.touch(grant);
    if (!conn.closed && conn.subs.has(identifier)) this.send(conn, frames.message(identifier, { event: 'presence.update', data }));
  }

  /**
   * An event's data frame: the subscription's encoded head, the entry's message and a brace. The
   * entries a read brings reach every subscriber in one synchronous pass; each connection queues
   * its frames, and at the end of the tick they are framed into one buffer and leave in one write
   * (one system call, no buffer, header or write request per frame).
   */
  private sendEvent(conn: Connection, head: Buffer, message: Buffer): void {
    if (conn.closed) return;
    if (conn.queued.length === 0) this.flushing.push(conn);
    const length = head.length + message.length + 1;
    conn.queued.push(head, message);
    conn.queuedBytes += headerLength(length) + length;
    this.delivered++;
    if (!this.settling) {
      this.settling = true;
      process.nextTick(() => this.settle());
    }
  }

  private settle(): void {
    this.settling = false;
    for (const conn of this.flushing.splice(0)) this.flush(conn);
    this.deps.metrics.delivered.inc(this.delivered);
    this.delivered = 0;
  }

  /** Writes the connection's queued event frames (before any other frame, so the order is the calls'). */
  private flush(conn: Connection): void {
    if (conn.queued.length === 0) return;
    const queued = conn.queued;
    const size = conn.queuedBytes;
    conn.queued = [];
    conn.queuedBytes = 0;
    const socket = socketOf(conn.ws);
    if (!socket || !this.writable(conn)) return;
    const out = this.slab.take(socket, size);
    let o = 0;
    for (let i = 0; i < queued.length; i += 2) {
      const head = queued[i] as Buffer;
      const message = queued[i + 1] as Buffer;
      o = writeTextHeader(out, o, head.length + message.length + 1);
      // TypedArray#set: a builtin copy, without Buffer#copy's argument handling (40-60 ns a frame less).
      out.set(head, o);
      o += head.length;
      out.set(message, o);
      o += message.length;
      out[o++] = FRAME_END;
    }
    socket.write(out);
    this.slab.sent(socket, out);
  }

  /** Whether frames may go to the connection; a client that does not read is dropped. */
  private writable(conn: Connection): boolean {
    if (conn.closed || conn.ws.readyState !== conn.ws.OPEN) return false;
    if (conn.ws.bufferedAmount > this.deps.config.REALTIME_MAX_BUFFERED_BYTES) {
      // A client that does not read: drop it rather than hold its backlog; it resumes on reconnect.
      conn.ws.terminate();
      return false;
    }
    return true;
  }

  /** A text frame (JSON, as a string or its UTF-8 bytes). */
  private send(conn: Connection, frame: string | Buffer): void {
    this.flush(conn);
    if (!this.writable(conn)) return;
    conn.ws.send(frame, TEXT);
  }

  private disconnect(conn: Connection, reason: DisconnectReason, reconnect: boolean): void {
    this.send(conn, frames.disconnect(reason, reconnect));
    conn.ws.close();
    this.gone(conn);
  }

  private pingAll(): void {
    const ping = frames.ping();
    for (const conn of this.connections) this.send(conn, ping);
  }

  /** Shutdown: every client is told to come back (to another replica) and the sockets close. */
  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const conn of [...this.connections]) this.disconnect(conn, 'server_restart', true);
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
