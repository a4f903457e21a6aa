import { Client } from 'pg';
import type { z } from 'zod';
import type { RunningService } from '@parley/shared';
import { asCaller, createTestEnv, fetchJson, startPeerStub, startTestService, type CtxInput, type JsonResponse, type PeerStub, type TestEnv } from '@parley/testkit';
import { helpcenterConfigSchema, helpcenterService, type HelpcenterConfig } from '../src';

export function startHelpcenter(env: TestEnv, stub: PeerStub, overrides: Record<string, unknown> = {}): Promise<RunningService<HelpcenterConfig>> {
  return startTestService(helpcenterService, helpcenterConfigSchema.parse({ ...env.config, GATEWAY_INTERNAL_URL: stub.url, ...overrides }));
}

/** What a service-level test file works with: its database, the identity stub (the testkit's peer stub), the service. */
export interface Harness {
  env: TestEnv;
  stub: PeerStub;
  svc: RunningService<HelpcenterConfig>;
  /** The file's database as the admin (outbox, raw rows). */
  db: Client;
}

/**
 * Registers the file's set-up and tear-down (a database, the identity stub, the service, an
 * admin connection) and returns the harness they fill in; read its fields inside tests.
 */
export function useHelpcenter(overrides: Record<string, unknown> = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    h.env = await createTestEnv();
    h.stub = await startPeerStub();
    h.svc = await startHelpcenter(h.env, h.stub, overrides);
    h.db = await connectDb(h.env);
  });
  afterAll(async () => {
    await h.db?.end();
    await h.svc?.stop();
    await h.stub?.close();
    await h.env?.close();
  });
  return h;
}

export type ApiResult = JsonResponse;

export type Api = (method: string, path: string, body?: unknown, caller?: CtxInput) => Promise<ApiResult>;

/**
 * Calls `/api/v1/accounts/{accountId}{path}` as the gateway would: an administrator
 * (user `userId`) unless `caller` says otherwise. A string body is sent as is.
 */
export function apiFor(svc: { url: string }, accountId: number, userId: number): Api {
  return (method, path, body, caller = {}) =>
    fetchJson(`${svc.url}/api/v1/accounts/${accountId}${path}`, method, asCaller({ accountId, role: 'administrator', actor: { type: 'user', id: userId, name: 'Ada', email: 'ada@example.com' }, ...caller }), body);
}

/** Anonymous reads of `/public/api/v1/portals{path}`, as the gateway forwards them. */
export function publicFor(svc: { url: string }): (path: string) => Promise<ApiResult> {
  return (path) => fetchJson(`${svc.url}/public/api/v1/portals${path}`, 'GET', asCaller({ accountId: null, role: null, actor: { type: 'anonymous', id: null } }), undefined);
}

/** SPEC's Error body with this status, naming `field` when given. */
export function expectError(res: ApiResult, status: number, field?: string, code?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status });
  expect(typeof res.body?.description).toBe('string');
  expect(Array.isArray(res.body?.errors)).toBe(true);
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const e of res.body.errors) expect([typeof e.field, typeof e.message, typeof e.code]).toEqual(['string', 'string', 'string']);
  if (field !== undefined) expect(res.body.errors.map((e: any) => e.field)).toContain(field);
  if (code !== undefined) expect(res.body.errors.map((e: any) => e.code)).toContain(code);
}

/**
 * The answer is exactly what the response schema (the one in openapi.ts) describes: it
 * parses, and parsing drops nothing (no field the schema does not know about).
 */
export function expectSchema(schema: z.ZodType, value: unknown): void {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`answer does not match its schema: ${JSON.stringify(r.error.issues.slice(0, 5))}\n${JSON.stringify(value).slice(0, 2000)}`);
  expect(r.data).toEqual(value);
}

/** The file's database, read as the admin (events in the outbox, raw rows). */
export async function connectDb(env: TestEnv): Promise<Client> {
  const db = new Client({ connectionString: env.db.url });
  await db.connect();
  return db;
}

/** Envelopes the service wrote to its outbox for this type and record id, oldest first. */
export async function outboxEvents(db: Client, type: string, id: number): Promise<any[]> {
  const { rows } = await db.query(`SELECT payload FROM helpcenter.outbox WHERE routing_key = $1 AND (payload->'data'->>'id')::int = $2 ORDER BY id`, [type, id]);
  return rows.map((r) => r.payload);
}
