import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { currentTraceparent } from './tracing';

export const roleSchema = z.enum(['administrator', 'agent']);
export type Role = z.infer<typeof roleSchema>;

export const actorSchema = z.object({
  type: z.enum(['user', 'agent_bot', 'platform', 'contact', 'anonymous', 'service', 'automation_rule', 'system']),
  id: z.union([z.number(), z.string()]).nullable(),
  name: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
});
export type Actor = z.infer<typeof actorSchema>;

/**
 * Who is calling and on whose behalf. The gateway builds it from the access token and
 * signs it; services trust nothing else about identity.
 */
export const requestContextSchema = z.object({
  requestId: z.string(),
  accountId: z.number().int().nullable(),
  actor: actorSchema,
  role: roleSchema.nullable(),
  features: z.record(z.string(), z.boolean()).default({}),
  ip: z.string().nullable().default(null),
  /** Epoch ms when signed; bounds replay of a captured header. */
  issuedAt: z.number(),
  /** W3C trace context of the caller's span (tracing on): the callee continues the trace from it. */
  traceparent: z.string().max(128).optional(),
});
export type RequestContext = z.infer<typeof requestContextSchema>;

export const CONTEXT_HEADER = 'x-parley-context';
export const SIGNATURE_HEADER = 'x-parley-signature';
const MAX_AGE_MS = 5 * 60 * 1000;

/** The secret as a key object, made once per secret (a string secret is re-imported by every HMAC). */
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 16) keys.clear();
    keys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  }
  return key;
}

function mac(payload: string, secret: string): Buffer {
  return createHmac('sha256', keyOf(secret)).update(payload).digest();
}

function sign(payload: string, secret: string): string {
  return mac(payload, secret).toString('hex');
}

/** Headers that carry a signed context to a service. */
export function signContext(ctx: Omit<RequestContext, 'issuedAt'> & { issuedAt?: number }, secret: string): Record<string, string> {
  const traceparent = currentTraceparent() ?? ctx.traceparent;
  // Object.assign, not an object spread given new properties (about 1.5 µs each on Node 20's V8): every request signs one.
  const payload = Buffer.from(JSON.stringify(Object.assign({}, ctx, { issuedAt: ctx.issuedAt ?? Date.now() }, traceparent ? { traceparent } : {}))).toString('base64url');
  return { [CONTEXT_HEADER]: payload, [SIGNATURE_HEADER]: sign(payload, secret), 'x-request-id': ctx.requestId };
}

const ACTOR_TYPES: ReadonlySet<unknown> = new Set(actorSchema.shape.type.options);
const ROLES: ReadonlySet<unknown> = new Set(roleSchema.options);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isOptionalText = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/**
 * `requestContextSchema.safeParse(v)`, by hand: every request a service serves checks one, and
 * zod's general machinery cost more than the HMAC. Same answer (packages/shared/test/context.test.ts
 * compares the two): unknown keys dropped, `features` defaults to `{}` and `ip` to null.
 */
export function parseRequestContext(v: unknown): RequestContext | null {
  if (!isRecord(v)) return null;
  const { requestId, accountId, actor, role, issuedAt, traceparent } = v;
  const features = v['features'] === undefined ? {} : v['features'];
  const ip = v['ip'] === undefined ? null : v['ip'];
  if (typeof requestId !== 'string') return null;
  if (accountId !== null && !Number.isSafeInteger(accountId)) return null;
  if (!isRecord(actor) || !ACTOR_TYPES.has(actor['type'])) return null;
  const actorId = actor['id'];
  if (actorId !== null && typeof actorId !== 'string' && !isNumber(actorId)) return null;
  if (!isOptionalText(actor['name']) || !isOptionalText(actor['email'])) return null;
  if (role !== null && !ROLES.has(role)) return null;
  if (!isRecord(features)) return null;
  const flags: Record<string, boolean> = {};
  for (const k of Object.keys(features)) {
    const f = features[k];
    if (typeof f !== 'boolean') return null;
    flags[k] = f;
  }
  if (ip !== null && typeof ip !== 'string') return null;
  if (!isNumber(issuedAt)) return null;
  if (traceparent !== undefined && (typeof traceparent !== 'string' || traceparent.length > 128)) return null;
  const a: Actor = { type: actor['type'] as Actor['type'], id: actorId as Actor['id'] };
  if ('name' in actor) a.name = actor['name'] as string | null | undefined;
  if ('email' in actor) a.email = actor['email'] as string | null | undefined;
  return {
    requestId,
    accountId: accountId as number | null,
    actor: a,
    role: role as Role | null,
    features: flags,
    ip: ip as string | null,
    issuedAt,
    ...('traceparent' in v ? { traceparent: traceparent as string | undefined } : {}),
  };
}

/** The verified context, or null when the headers are absent, forged or stale. */
export function verifyContext(headers: Record<string, string | string[] | undefined>, secret: string, now = Date.now()): RequestContext | null {
  const payload = headers[CONTEXT_HEADER];
  const signature = headers[SIGNATURE_HEADER];
  if (typeof payload !== 'string' || typeof signature !== 'string') return null;
  const expected = mac(payload, secret);
  const given = Buffer.from(signature, 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const ctx = parseRequestContext(decoded);
  if (!ctx) return null;
  if (Math.abs(now - ctx.issuedAt) > MAX_AGE_MS) return null;
  return ctx;
}

/** A context for work a service does on its own (consumers, schedulers, service-to-service calls). */
export function systemContext(service: string, accountId: number | null, requestId: string, actor?: Actor): RequestContext {
  return {
    requestId,
    accountId,
    actor: actor ?? { type: 'service', id: service },
    role: null,
    features: {},
    ip: null,
    issuedAt: Date.now(),
  };
}
