import { createHmac, timingSafeEqual } from 'node:crypto';
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

function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Headers that carry a signed context to a service. */
export function signContext(ctx: Omit<RequestContext, 'issuedAt'> & { issuedAt?: number }, secret: string): Record<string, string> {
  const traceparent = currentTraceparent() ?? ctx.traceparent;
  const payload = Buffer.from(JSON.stringify({ ...ctx, issuedAt: ctx.issuedAt ?? Date.now(), ...(traceparent ? { traceparent } : {}) })).toString('base64url');
  return { [CONTEXT_HEADER]: payload, [SIGNATURE_HEADER]: sign(payload, secret), 'x-request-id': ctx.requestId };
}

/** The verified context, or null when the headers are absent, forged or stale. */
export function verifyContext(headers: Record<string, string | string[] | undefined>, secret: string, now = Date.now()): RequestContext | null {
  const payload = headers[CONTEXT_HEADER];
  const signature = headers[SIGNATURE_HEADER];
  if (typeof payload !== 'string' || typeof signature !== 'string') return null;
  const expected = Buffer.from(sign(payload, secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = requestContextSchema.safeParse(decoded);
  if (!parsed.success) return null;
  if (Math.abs(now - parsed.data.issuedAt) > MAX_AGE_MS) return null;
  return parsed.data;
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
