import { checkContract } from './contract';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON tests). */
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * A small client for the gateway, the way an integrator calls it. A gateway's answers are
 * checked against the OpenAPI document (tests/support/contract.ts).
 */
export function client(baseUrl: string) {
  return async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
    if (opts.token) headers['api_access_token'] = opts.token;
    let body: string | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] ??= 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    await checkContract(baseUrl, { method, path, status: res.status, text, body: parsed, contentType: res.headers.get('content-type') });
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  };
}

/** Asserts SPEC's Error body. */
export function expectErrorBody(body: any, code?: string): void {
  expect(typeof body?.description).toBe('string');
  expect(Array.isArray(body?.errors)).toBe(true);
  expect(body.errors.length).toBeGreaterThan(0);
  for (const e of body.errors) {
    expect(typeof e.field).toBe('string');
    expect(typeof e.message).toBe('string');
    expect(typeof e.code).toBe('string');
  }
  if (code) expect(body.errors.map((e: any) => e.code)).toContain(code);
}
