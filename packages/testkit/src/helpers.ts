import { randomBytes, randomUUID } from 'node:crypto';
import { signContext, type Actor, type RequestContext, type Role } from '@parley/shared';

export const TEST_SECRET = 'parley-test-internal-secret-0123456789';

export function uniq(prefix = 'x'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

let accountSeq = 0;
/** A random account id, unique within this process (services trust the gateway's ids). */
export function randomAccountId(): number {
  accountSeq += 1;
  return 100_000 + Math.floor(Math.random() * 1_000_000) * 10 + (accountSeq % 10);
}

export interface CtxInput {
  accountId?: number | null;
  role?: Role | null;
  actor?: Actor;
  features?: Record<string, boolean>;
}

export function makeContext(input: CtxInput = {}): RequestContext {
  return {
    requestId: randomUUID(),
    accountId: input.accountId ?? null,
    actor: input.actor ?? { type: 'user', id: 1, name: 'Test Admin', email: 'admin@example.com' },
    role: input.role === undefined ? 'administrator' : input.role,
    features: input.features ?? {},
    ip: '127.0.0.1',
    issuedAt: Date.now(),
  };
}

/** The signed headers the gateway would send for this caller. */
export function asCaller(input: CtxInput = {}, secret = TEST_SECRET): Record<string, string> {
  return signContext(makeContext(input), secret);
}

/** Polls until `fn` returns a truthy value (or stops throwing), or fails after the deadline. */
export async function waitFor<T>(fn: () => Promise<T> | T, { timeoutMs = 15_000, intervalMs = 50, what = 'condition' } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}${lastErr ? `: ${(lastErr as Error).message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface JsonResponse<T = any> {
  status: number;
  /** The parsed JSON body; undefined when the body is empty or not JSON (see `text`). */
  body: T;
  text: string;
  headers: Headers;
}

/**
 * One HTTP call the way the tests make them: a body that is not a string is sent as JSON (a
 * string is sent as is, for malformed-JSON tests), and the answer is read once, parsed when
 * it is JSON.
 */
export async function fetchJson<T = any>(url: string, method: string, headers: Record<string, string> = {}, body?: unknown): Promise<JsonResponse<T>> {
  const h: Record<string, string> = { accept: 'application/json', ...headers };
  let payload: string | undefined;
  if (body !== undefined) {
    h['content-type'] ??= 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(url, { method, headers: h, body: payload });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}
