import http from 'node:http';
import type { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { signContext, UNAVAILABLE_RETRY_AFTER_SECONDS, type Logger, type ServiceMetrics } from '@parley/shared';
import type { GatewayConfig } from './config';

function send(res: Response | Socket, status: number, code: string, description: string): void {
  if (!('setHeader' in res) || res.headersSent) {
    if ('destroy' in res) res.destroy();
    return;
  }
  if (status === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  res.status(status).json({ description, errors: [{ field: '', message: description, code }] });
}

/**
 * Forwards a request whose `req.upstream` was set by routing, with keep-alive sockets,
 * bounded timeouts, the caller's token removed and the signed context added. A service
 * that is down (connection refused) answers 503 `unavailable` with Retry-After; one that
 * hangs past PROXY_TIMEOUT_MS, 504 `upstream_timeout`; one that drops the connection
 * mid-request (a crash), 502 `bad_gateway`: the request may or may not have been applied.
 */
export function upstreamProxy(config: GatewayConfig, log: Logger, metrics?: ServiceMetrics): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });
  const proxy = createProxyMiddleware<Request, Response>({
    target: 'http://127.0.0.1',
    router: (req) => req.upstream as string,
    pathFilter: (_path, req) => typeof req.upstream === 'string',
    agent,
    changeOrigin: false,
    xfwd: true,
    proxyTimeout: config.PROXY_TIMEOUT_MS,
    timeout: config.PROXY_TIMEOUT_MS,
    on: {
      proxyReq: (proxyReq, req) => {
        // http-proxy aborts a request that outlives proxyTimeout, which surfaces as the same
        // ECONNRESET as a crashed upstream: remember which one it was.
        proxyReq.once('timeout', () => {
          (req as Request).upstreamTimedOut = true;
        });
      },
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        const r = req as Request;
        const outcome = r.upstreamTimedOut ? 'upstream_timeout' : code === 'ECONNRESET' || code === 'EPIPE' ? 'bad_gateway' : 'unavailable';
        log.warn({ err: err.message, code, upstream: r.upstream, requestId: r.requestId, outcome }, 'upstream error');
        metrics?.upstreamErrors.inc({ upstream: String(r.upstream), code: outcome });
        if (outcome === 'upstream_timeout') send(res as Response, 504, outcome, 'The service took too long to answer');
        else if (outcome === 'bad_gateway') send(res as Response, 502, outcome, 'The service dropped the connection before answering; the request may or may not have been applied');
        else send(res as Response, 503, 'unavailable', 'The service is unavailable, retry later');
      },
    },
  });
  // The caller's token goes and the signed context comes on the incoming request's headers, which
  // http-proxy copies into the upstream request. Setting them on the upstream request in `proxyReq`
  // threw ERR_HTTP_HEADERS_SENT under load (200 posts/s, keep-alive sockets in use: the request's
  // headers were already written; http-party/node-http-proxy#1478), an uncaught error that took the
  // gateway down.
  return (req, res, next) => {
    if (typeof req.upstream === 'string') {
      delete req.headers['api_access_token'];
      delete req.headers['api-access-token'];
      for (const [k, v] of Object.entries(signContext(req.ctx, config.INTERNAL_SECRET))) req.headers[k.toLowerCase()] = v;
    }
    return proxy(req, res, next);
  };
}
