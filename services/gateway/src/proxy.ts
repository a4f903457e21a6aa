import http from 'node:http';
import type { Socket } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { signContext, type Logger, type ServiceMetrics } from '@parley/shared';
import type { GatewayConfig } from './config';

function send(res: Response | Socket, status: number, code: string, description: string): void {
  if (!('setHeader' in res) || res.headersSent) {
    if ('destroy' in res) res.destroy();
    return;
  }
  res.status(status).json({ description, errors: [{ field: '', message: description, code }] });
}

/**
 * Forwards a request whose `req.upstream` was set by routing, with keep-alive sockets,
 * bounded timeouts, the caller's token removed and the signed context added. A service
 * that is down answers 503 `unavailable`; one that hangs, 504 `upstream_timeout`.
 */
export function upstreamProxy(config: GatewayConfig, log: Logger, metrics?: ServiceMetrics): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });
  return createProxyMiddleware<Request, Response>({
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
        proxyReq.removeHeader('api_access_token');
        proxyReq.removeHeader('api-access-token');
        for (const [k, v] of Object.entries(signContext(req.ctx, config.INTERNAL_SECRET))) proxyReq.setHeader(k, v);
      },
      error: (err, req, res) => {
        const code = (err as NodeJS.ErrnoException).code;
        const timedOut = code === 'ECONNRESET' && (req as Request).upstream !== undefined && /timeout|hang up/i.test(err.message);
        log.warn({ err: err.message, code, upstream: (req as Request).upstream, requestId: (req as Request).requestId }, 'upstream error');
        metrics?.upstreamErrors.inc({ upstream: String((req as Request).upstream), code: timedOut ? 'upstream_timeout' : 'unavailable' });
        if (timedOut) send(res as Response, 504, 'upstream_timeout', 'The service took too long to answer');
        else send(res as Response, 503, 'unavailable', 'The service is unavailable, retry later');
      },
    },
  });
}
