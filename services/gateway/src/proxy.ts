import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { signContext, UNAVAILABLE_RETRY_AFTER_SECONDS, type Logger, type ServiceMetrics } from '@parley/shared';
import type { GatewayConfig } from './config';

/** Headers that belong to one connection (RFC 9110 7.6.1), never forwarded; and the caller's token. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'api_access_token', 'api-access-token']);
/** Hop-by-hop headers of the upstream's answer; Node frames the client's answer itself. */
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

type Outcome = 'upstream_timeout' | 'bad_gateway' | 'unavailable' | 'busy';

function send(res: Response, outcome: Outcome): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (outcome === 'unavailable' || outcome === 'busy') res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  const [status, description] =
    outcome === 'upstream_timeout'
      ? [504, 'The service took too long to answer']
      : outcome === 'bad_gateway'
        ? [502, 'The service dropped the connection before answering; the request may or may not have been applied']
        : outcome === 'busy'
          ? [503, 'The gateway has as many requests in flight as it takes, retry later']
          : [503, 'The service is unavailable, retry later'];
  // A refusal for load is `unavailable` to clients as well: same status, same retry.
  res.status(status).json({ description, errors: [{ field: '', message: description, code: outcome === 'busy' ? 'unavailable' : outcome }] });
}

function appendForwarded(headers: OutgoingHttpHeaders, name: string, value: string): void {
  const prior = headers[name];
  headers[name] = prior === undefined ? value : `${Array.isArray(prior) ? prior.join(',') : String(prior)},${value}`;
}

/** The request's headers as the upstream gets them: hop-by-hop and the token gone, X-Forwarded-* added, the signed context on. */
function upstreamHeaders(req: Request, secret: string): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const incoming: IncomingHttpHeaders = req.headers;
  for (const name in incoming) if (!NOT_FORWARDED.has(name)) headers[name] = incoming[name];
  // Before the context: its headers must be the gateway's, whatever the client sent (also stripped earlier).
  appendForwarded(headers, 'x-forwarded-for', req.socket.remoteAddress ?? '');
  appendForwarded(headers, 'x-forwarded-port', String(req.socket.localPort ?? ''));
  appendForwarded(headers, 'x-forwarded-proto', 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http');
  if (incoming.host !== undefined) appendForwarded(headers, 'x-forwarded-host', incoming.host);
  for (const [k, v] of Object.entries(signContext(req.ctx, secret))) headers[k.toLowerCase()] = v;
  return headers;
}

/**
 * The upstream's answer headers onto the client's answer: each replaces one the gateway set
 * (x-request-id), repeats (Set-Cookie) are kept, hop-by-hop ones dropped.
 */
function copyAnswerHeaders(raw: string[], res: Response): void {
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (NOT_RETURNED.has(lower)) continue;
    if (seen.has(lower)) res.appendHeader(name, raw[i + 1] as string);
    else {
      seen.add(lower);
      res.setHeader(name, raw[i + 1] as string);
    }
  }
}

/**
 * Forwards a request whose `req.upstream` was set by routing over keep-alive sockets: a plain
 * `node:http` pipe (http-proxy-middleware cost a third of the gateway's CPU per proxied request,
 * docs/benchmarks.md). The caller's token is removed and the signed context added. A service
 * that is down (connection refused) answers 503 `unavailable` with Retry-After; one that
 * hangs past PROXY_TIMEOUT_MS, 504 `upstream_timeout`; one that drops the connection
 * mid-request (a crash), 502 `bad_gateway`: the request may or may not have been applied.
 * An answer that breaks off after its headers went out ends the client's connection, so the
 * client sees a truncated answer, never a complete-looking one.
 *
 * At most PROXY_MAX_IN_FLIGHT requests are proxied at once (from the request leaving for the
 * service to the client's answer ending); one more is answered 503 `unavailable` with
 * Retry-After at once and never reaches the service. Under a backlog the gateway then holds a
 * bounded number of requests and their sockets' buffers (the native memory a backlog of 1,000
 * took and kept), and the client learns at once that it should come back, instead of after a
 * queue's worth of waiting.
 */
export function upstreamProxy(config: GatewayConfig, log: Logger, metrics?: ServiceMetrics): RequestHandler {
  // Idle sockets close after 60 s, before the services' 65 s keep-alive timeout (runtime.ts), so
  // the gateway never sends a request on a socket the service is closing at that moment.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000, timeout: 60_000 });
  const targets = new Map<string, URL>();
  const targetOf = (base: string): URL => {
    let u = targets.get(base);
    if (!u) targets.set(base, (u = new URL(base)));
    return u;
  };

  let inFlight = 0;

  return (req, res, next) => {
    const upstream = req.upstream;
    if (typeof upstream !== 'string') return next();
    if (inFlight >= config.PROXY_MAX_IN_FLIGHT) {
      metrics?.upstreamErrors.inc({ upstream, code: 'busy' });
      return send(res, 'busy');
    }
    inFlight++;
    res.once('close', () => inFlight--);
    const target = targetOf(upstream);
    let timedOut = false;
    let failed = false;
    let clientGone = false;
    const proxyReq = http.request({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.originalUrl,
      headers: upstreamHeaders(req, config.INTERNAL_SECRET),
      agent,
    });
    const fail = (err: NodeJS.ErrnoException): void => {
      if (failed) return;
      failed = true;
      // The client left first (we ended the upstream request for it): nothing failed upstream.
      if (clientGone) return;
      const outcome: Outcome = timedOut ? 'upstream_timeout' : err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'EHOSTUNREACH' ? 'unavailable' : 'bad_gateway';
      log.warn({ err: err.message, code: err.code, upstream, requestId: req.requestId, outcome }, 'upstream error');
      metrics?.upstreamErrors.inc({ upstream, code: outcome });
      send(res, outcome);
    };
    proxyReq.setTimeout(config.PROXY_TIMEOUT_MS, () => {
      timedOut = true;
      proxyReq.destroy(Object.assign(new Error('upstream timed out'), { code: 'ETIMEDOUT' }));
    });
    proxyReq.on('error', fail);
    proxyReq.on('response', (answer) => {
      answer.on('error', () => res.destroy());
      answer.on('aborted', () => res.destroy());
      copyAnswerHeaders(answer.rawHeaders, res);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage);
      answer.pipe(res);
    });
    // A client that goes away mid-request: the upstream request goes too (the service sees a reset).
    res.on('close', () => {
      if (res.writableFinished) return;
      clientGone = true;
      proxyReq.destroy();
    });
    req.pipe(proxyReq);
  };
}
