import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { buildEnvelope, type Actor, type EventEnvelope, type EventType, type Inbox, type RunningService } from '@parley/shared';
import { asCaller, createBus, createTestEnv, inboxFixture, startPeerStub, startTestService, waitFor, type CtxInput, type PeerStub, type TestBus, type TestEnv } from '@parley/testkit';
import { contactsConfigSchema, contactsService, type ContactsConfig } from '../src';

let inboxSeq = 0;
/** An Inbox as the conversations service publishes it, with an id unique to this process. */
export function makeInbox(accountId: number, extra: Partial<Inbox> = {}): Inbox {
  inboxSeq += 1;
  return inboxFixture(accountId, 50_000 + Math.floor(Math.random() * 1_000_000) * 10 + (inboxSeq % 10), extra);
}

export interface ContactsHarness {
  env: TestEnv;
  /** The conversations service's internal API (the testkit's peer stub). */
  stub: PeerStub;
  svc: RunningService<ContactsConfig>;
  bus: TestBus;
  db: Client;
  call: Caller;
  close(): Promise<void>;
}

export const PUBLIC_BASE = 'https://chat.example.test';

/** The contacts service on a fresh database, pointed at a conversations stub. */
export async function startContacts(extra: Record<string, unknown> = {}): Promise<ContactsHarness> {
  const env = await createTestEnv();
  const stub = await startPeerStub();
  const svc = await startTestService(contactsService, contactsConfigSchema.parse({ ...env.config, CONVERSATIONS_URL: stub.url, PUBLIC_BASE_URL: PUBLIC_BASE, ...extra }));
  const bus = createBus(env.namespace);
  const db = new Client({ connectionString: env.db.url });
  await db.connect();
  return {
    env,
    stub,
    svc,
    bus,
    db,
    call: caller(svc.url),
    async close() {
      await db.end().catch(() => undefined);
      await bus.close();
      await svc.stop();
      await stub.close();
      await env.close();
    },
  };
}

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOpts {
  /** Who calls (signed like the gateway does); `false` sends no context. */
  as?: CtxInput | false;
  body?: unknown;
  raw?: string;
  form?: FormData;
}

export type Caller = <T = any>(method: string, path: string, opts?: CallOpts) => Promise<Res<T>>;

export function caller(baseUrl: string): Caller {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = opts.as === false ? {} : asCaller(opts.as ?? {});
    let body: string | FormData | undefined;
    if (opts.form) body = opts.form;
    else if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] = 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
}

/** An administrator / agent of `accountId`, or the anonymous public caller the gateway signs. */
export const admin = (accountId: number, userId = 1): CtxInput => ({ accountId, role: 'administrator', actor: { type: 'user', id: userId, name: 'Ada Admin' } });
export const agent = (accountId: number, userId = 2): CtxInput => ({ accountId, role: 'agent', actor: { type: 'user', id: userId, name: 'Al Agent' } });
export const anonymous: CtxInput = { accountId: null, role: null, actor: { type: 'anonymous', id: null } };
export const service: CtxInput = { accountId: null, role: null, actor: { type: 'service', id: 'conversations' } };

export function expectError(res: Res, status: number, code?: string, field?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status });
  expect(typeof res.body?.description).toBe('string');
  expect(Array.isArray(res.body?.errors)).toBe(true);
  expect(res.body.errors.length).toBeGreaterThan(0);
  if (code) expect(res.body.errors.map((e: any) => e.code)).toContain(code);
  // A field names itself or something inside it (`labels` covers `labels.0`).
  if (field) expect(res.body.errors.map((e: any) => (e.field.startsWith(`${field}.`) ? field : e.field))).toContain(field);
}

/** Events the service wrote to its outbox for an account, oldest first. */
export async function outboxEvents(db: Client, accountId: number, type?: string): Promise<EventEnvelope[]> {
  const { rows } = await db.query<{ payload: EventEnvelope }>(
    `SELECT payload FROM contacts.outbox WHERE (payload->>'account_id')::int = $1 AND ($2::text IS NULL OR routing_key = $2) ORDER BY id`,
    [accountId, type ?? null],
  );
  return rows.map((r) => r.payload);
}

/** Waits until the contacts consumer has committed the effect of this event. */
export async function processed(db: Client, eventId: string): Promise<void> {
  await waitFor(async () => (await db.query('SELECT 1 FROM contacts.processed_events WHERE event_id = $1', [eventId])).rowCount === 1, { what: `event ${eventId} processed` });
}

export function envelope(type: EventType, accountId: number, data: Record<string, unknown>, opts: { occurredAt?: Date; actor?: Actor } = {}): EventEnvelope {
  const ev = buildEnvelope(
    { requestId: randomUUID(), accountId, actor: opts.actor ?? { type: 'service', id: 'conversations' }, role: null, features: {}, ip: null, issuedAt: Date.now() },
    { type, accountId, data },
  );
  if (opts.occurredAt) ev.occurred_at = opts.occurredAt.toISOString();
  return ev;
}

/** A tiny valid PNG (1x1). */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
