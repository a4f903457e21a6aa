import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from './url-guard';

export interface PostResult {
  /** The HTTP status, or null when no answer came (network error, timeout, refused target). */
  statusCode: number | null;
  error: string | null;
  /** Seconds the receiver asked us to wait (429/503 Retry-After), when given. */
  retryAfterSeconds: number | null;
  /** True when nothing can make this target work (a private address that is not allowed). */
  permanent: boolean;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 32 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 32 }),
};

function retryAfter(v: string | string[] | undefined): number | null {
  const raw = Array.isArray(v) ? v[0] : v;
  if (!raw) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : null;
}

/**
 * One POST with a hard overall deadline (connect, send and the answer's head and body). The
 * socket connects through `guardedLookup`, so a name that resolves to a private address is
 * refused at the moment of connecting (no DNS-rebinding window). Redirects are not followed.
 * At most 4 KiB of the answer is read, for the delivery log.
 */
export function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number, allowPrivate: boolean): Promise<PostResult> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: PostResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: u.protocol === 'https:' ? agents.https : agents.http,
        lookup: guardedLookup(allowPrivate) as unknown as typeof import('node:dns').lookup,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < 4096) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8').slice(0, 500);
          finish({
            statusCode: status,
            error: status >= 200 && status < 300 ? null : `HTTP ${status}${text ? `: ${text}` : ''}`,
            retryAfterSeconds: retryAfter(res.headers['retry-after']),
            permanent: false,
          });
        });
        res.on('error', (err) => finish({ statusCode: res.statusCode ?? null, error: err.message, retryAfterSeconds: null, permanent: false }));
        res.on('close', () => finish({ statusCode: res.statusCode ?? null, error: 'connection closed before the answer ended', retryAfterSeconds: null, permanent: false }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ statusCode: null, error: err.message, retryAfterSeconds: null, permanent: err.code === 'EPRIVATETARGET' });
    });
    req.end(body);
  });
}
