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
