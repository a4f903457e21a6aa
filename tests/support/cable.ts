import WebSocket from 'ws';

/**
 * The real `@rails/actioncable` client (what Chatwoot's dashboard, mobile app and widget use),
 * run in Node over `ws`. The browser globals it touches (visibility events, `document` for
 * relative URLs) are stubbed; URLs must be absolute `ws://`.
 */
const g = globalThis as Record<string, unknown>;
g['addEventListener'] ??= () => undefined;
g['removeEventListener'] ??= () => undefined;
g['document'] ??= { visibilityState: 'visible' };

interface AcSubscription {
  identifier: string;
  unsubscribe(): void;
  perform(action: string, data?: Record<string, unknown>): boolean;
}
interface AcConsumer {
  subscriptions: { create(params: Record<string, unknown>, mixin: Record<string, unknown>): AcSubscription };
  connection: { isOpen(): boolean; webSocket?: { close(): void }; close(opts?: { allowReconnect: boolean }): void };
  disconnect(): void;
  connect(): boolean;
}
interface ActionCableModule {
  createConsumer(url: string): AcConsumer;
  adapters: { WebSocket: unknown; logger: unknown };
  logger: { enabled: boolean };
  ConnectionMonitor: { staleThreshold: number };
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const ActionCable = require('@rails/actioncable') as ActionCableModule;
ActionCable.adapters.WebSocket = WebSocket;
// Tests ping every few hundred ms: a dropped socket is noticed (and reopened) after a second, not six.
ActionCable.ConnectionMonitor.staleThreshold = 1;

export interface CableMessage {
  event: string;
  data: any;
  id?: string;
}

/** A subscription as a test sees it: its state, what it received, and ways to wait. */
export interface Watched {
  sub: AcSubscription;
  state: 'pending' | 'confirmed' | 'rejected';
  received: CableMessage[];
  /** Events (presence left out) in arrival order. */
  events(): CableMessage[];
  /** Waits for an event matching `pred`. */
  waitFor(pred: (m: CableMessage) => boolean, what?: string, ms?: number): Promise<CableMessage>;
  waitForState(state: 'confirmed' | 'rejected', ms?: number): Promise<void>;
  /** The id of the last event received (what a client resumes from). */
  lastId(): string | undefined;
}

export function cableUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws') + '/cable';
}

/** A consumer of `httpUrl`'s /cable, or of the ws:// URL a function gives each time it connects (a client that moves between replicas). */
export function createConsumer(httpUrl: string | (() => string)): AcConsumer {
  return ActionCable.createConsumer(typeof httpUrl === 'function' ? (httpUrl as unknown as string) : cableUrl(httpUrl));
}

/**
 * The consumers a test file opens, disconnected together in its afterAll: `open()` connects to
 * the gateway (or another URL), `keep()` adopts one made elsewhere.
 */
export function consumerPool(defaultUrl: () => string | (() => string)) {
  const all: AcConsumer[] = [];
  return {
    open(url: string | (() => string) = defaultUrl()): AcConsumer {
      return this.keep(createConsumer(url));
    },
    keep(c: AcConsumer): AcConsumer {
      all.push(c);
      return c;
    },
    disconnectAll(): void {
      for (const c of all.splice(0)) c.disconnect();
    },
  };
}

/** A user's realtime `pubsub_token`, as the profile answers it. */
export async function pubsubTokenOf(call: (method: string, path: string, opts: { token: string }) => Promise<{ body: any }>, token: string): Promise<string> {
  return (await call('GET', '/api/v1/profile', { token })).body.pubsub_token;
}

async function until(check: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Subscribes to RoomChannel with `params`. When `resume` is on, the subscription keeps the id
 * of the last event it got and, when the socket drops, puts it in its identifier as
 * `last_event_id`, so the client's automatic resubscribe resumes from there (the pattern
 * docs/architecture.md gives integrators).
 */
export function watch(consumer: AcConsumer, params: Record<string, unknown>, opts: { resume?: boolean } = {}): Watched {
  const w: Watched = {
    sub: undefined as unknown as AcSubscription,
    state: 'pending',
    received: [],
    events: () => w.received.filter((m) => m.event !== 'presence.update'),
    waitFor: async (pred, what = 'an event', ms = 15_000) => {
      let hit: CableMessage | undefined;
      await until(() => (hit = w.received.find(pred)) !== undefined, what, ms);
      return hit as CableMessage;
    },
    waitForState: (state, ms = 15_000) => until(() => w.state === state, `subscription ${state}`, ms),
    lastId: () => [...w.received].reverse().find((m) => m.id)?.id,
  };
  w.sub = consumer.subscriptions.create({ channel: 'RoomChannel', ...params }, {
    connected: () => (w.state = 'confirmed'),
    rejected: () => (w.state = 'rejected'),
    received: (m: CableMessage) => w.received.push(m),
    disconnected(this: AcSubscription) {
      const last = w.lastId();
      if (opts.resume && last) this.identifier = JSON.stringify({ channel: 'RoomChannel', ...params, last_event_id: last });
    },
  });
  return w;
}

/** A raw ActionCable socket, for protocol tests the client library would not send. */
export async function rawSocket(httpUrl: string): Promise<{ ws: WebSocket; frames: any[]; send(v: unknown): void; waitFor(pred: (f: any) => boolean, what?: string): Promise<any>; closed: Promise<number> }> {
  const ws = new WebSocket(cableUrl(httpUrl), ['actioncable-v1-json', 'actioncable-unsupported']);
  const frames: any[] = [];
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    frames,
    closed,
    send: (v) => ws.send(typeof v === 'string' ? v : JSON.stringify(v)),
    waitFor: async (pred, what = 'a frame') => {
      let hit: any;
      await until(() => (hit = frames.find(pred)) !== undefined, what, 15_000);
      return hit;
    },
  };
}
