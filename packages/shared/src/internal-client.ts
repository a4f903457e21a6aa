import { AppError, UnavailableError } from './errors';
import { signContext, type RequestContext } from './context';

export interface CallOptions {
  method?: string;
  body?: unknown;
  timeoutMs?: number;
}

/**
 * Calls another service's `/internal/...` API with a signed context. Error bodies from the
 * peer come back as AppErrors with the same status and code; an unreachable peer is 503.
 */
export async function callService<T = unknown>(baseUrl: string, path: string, ctx: RequestContext, secret: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...signContext({ ...ctx, issuedAt: Date.now() }, secret), accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(new URL(path, baseUrl), {
      method: opts.method ?? 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
    });
  } catch (err) {
    throw new UnavailableError(`Upstream ${new URL(baseUrl).host} is unavailable: ${(err as Error).message}`);
  }
  const text = await res.text();
  let json: unknown = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!res.ok) {
    const body = json as { description?: string; errors?: Array<{ field: string; message: string; code: string }> } | null;
    const code = body?.errors?.[0]?.code ?? (res.status === 404 ? 'not_found' : 'upstream_error');
    throw new AppError(res.status >= 500 ? 503 : res.status, res.status >= 500 ? 'unavailable' : code, body?.description ?? `Upstream answered ${res.status}`, body?.errors ?? []);
  }
  return json as T;
}
