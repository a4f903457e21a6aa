import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import type { Request, RequestHandler, Response } from 'express';
import { signContext, UNAVAILABLE_RETRY_AFTER_SECONDS, type Logger, type ServiceMetrics } from '@parley/shared';
import type { GatewayConfig } from './config';

/**
 * Headers that belong to one connection (RFC 9110 7.6.1), never forwarded; `expect` (the
 * gateway's own server answered any 100-continue); and the caller's token.
 */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect', 'api_access_token', 'api-access-token']);
/** Hop-by-hop headers of the upstream's answer; Node frames the client's answer itself. */
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Bodies up to this size (with a Content-Length) are read whole before they are forwarded. */
const BUFFERED_BODY_MAX = 64 * 1024;

type Outcome = 'upstream_timeout' | 'bad_gateway' | 'unavailable' | 'busy';
type DispatchController = Dispatcher.DispatchController;

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
function copyAnswerHeaders(headers: IncomingHttpHeaders, res: Response): void {
  for (const name in headers) {
    if (NOT_RETURNED.has(name)) continue;
    const value = headers[name];
    if (value !== undefined) res.setHeader(name, value);
  }
}

/**
 * Forwards a request whose `req.upstream` was set by routing, over keep-alive sockets: undici's
 * `dispatch` (Node's own HTTP client library) with the answer written straight to the client's
 * response, no stream in between. It cost the proxy a third less CPU per small answer than a
 * `node:http` request piped both ways, a fifth less per 64 KB answer (docs/architecture.md,
 * Gateway), and http-proxy-middleware cost a third of the gateway's CPU before that. A body of at
 * most 64 KB with a Content-Length (every JSON write) is read whole first and leaves with the
 * request's headers in one write (streamed, undici wrote it apart: about 0.05 CPU ms a message
 * create); one broken off never reaches the service. A larger or chunked one is streamed. The caller's
 * token is removed and the signed context added. A service that is down (connection refused)
 * answers 503 `unavailable` with Retry-After; one that hangs past PROXY_TIMEOUT_MS (no answer
 * headers, or no body data for that long), 504 `upstream_timeout`; one that drops the connection
 * mid-request (a crash), 502 `bad_gateway`: the request may or may not have been applied. An
 * answer that breaks off after its headers went out ends the client's connection, so the
 * client sees a truncated answer, never a complete-looking one.
 *
 * At most PROXY_MAX_IN_FLIGHT requests are proxied at once (from the proxy taking the request,
 * its body's upload included, to the client's answer ending); one more is answered 503 `unavailable` with
 * Retry-After at once and never reaches the service. Under a backlog the gateway then holds a
 * bounded number of requests and their sockets' buffers (the native memory a backlog of 1,000
 * took and kept), and the client learns at once that it should come back, instead of after a
 * queue's worth of waiting.
 */
export function upstreamProxy(config: GatewayConfig, log: Logger, metrics?: ServiceMetrics): RequestHandler {
  // Idle sockets close after 60 s, before the services' 65 s keep-alive timeout (runtime.ts), so
  // the gateway never sends a request on a socket the service is closing at that moment.
  const agent = new Agent({ connections: 512, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000, connect: { timeout: Math.min(10_000, config.PROXY_TIMEOUT_MS) } });
  let inFlight = 0;

  return (req, res, next) => {
    const upstream = req.upstream;
    if (typeof upstream !== 'string') return next();
    // The client left while the request was authenticated: its answer's 'close' has fired, so a
    // place taken now would never be given back, and there is no one to answer.
    if (req.socket.destroyed) return;
    if (inFlight >= config.PROXY_MAX_IN_FLIGHT) {
      metrics?.upstreamErrors.inc({ upstream, code: 'busy' });
      return send(res, 'busy');
    }
    inFlight++;
    res.once('close', () => inFlight--);
    let failed = false;
    let clientGone = false;
    let controller: DispatchController | null = null;
    const fail = (err: Error & { code?: string }): void => {
      if (failed) return;
      failed = true;
      // The client left first (we ended the upstream request for it): nothing failed upstream.
      if (clientGone) return;
      const code = err.code ?? '';
      const outcome: Outcome =
        code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
          ? 'upstream_timeout'
          : // Not connected: the request never left, so it is safe to send again.
            code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'UND_ERR_CONNECT_TIMEOUT'
            ? 'unavailable'
            : 'bad_gateway';
      log.warn({ err: err.message, code, upstream, requestId: req.requestId, outcome }, 'upstream error');
      metrics?.upstreamErrors.inc({ upstream, code: outcome });
      send(res, outcome);
    };
    // A client that goes away mid-request: the upstream request goes too (the service sees a reset).
    const gone = (): void => {
      clientGone = true;
      controller?.abort(new Error('the client went away'));
    };
    res.on('close', () => {
      if (!res.writableFinished) gone();
    });
    // Its upload broken off: undici's read of the body fails, which is the client's doing, not the service's.
    req.once('error', gone);
    // Only a request that says it has a body sends one (undici sends what the stream gives).
    // Built here, in the request's own context (its trace), and any error goes to express.
    const headers = upstreamHeaders(req, config.INTERNAL_SECRET) as Record<string, string | string[]>;
    const chunked = req.headers['transfer-encoding'] !== undefined;
    const length = req.headers['content-length'];
    const hasBody = chunked || (length !== undefined && length !== '0');
    if (hasBody && !chunked && Number(length) <= BUFFERED_BODY_MAX) {
      // A small body (a JSON write) is read whole first and leaves with the headers in one write.
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => {
        if (!clientGone) dispatch(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
      });
      return;
    }
    dispatch(hasBody ? req : null);

    function dispatch(body: Buffer | Request | null): void {
      agent.dispatch(
        {
          origin: upstream as string,
          method: req.method as Dispatcher.HttpMethod,
          path: req.originalUrl,
          headers,
          body,
          headersTimeout: config.PROXY_TIMEOUT_MS,
          bodyTimeout: config.PROXY_TIMEOUT_MS,
        },
        {
          onRequestStart(c) {
            controller = c;
            if (clientGone) c.abort(new Error('the client went away'));
          },
          onResponseStart(_c, statusCode, headers, statusMessage) {
            // 1xx informational answers are the hop's own.
            if (statusCode < 200) return;
            copyAnswerHeaders(headers, res);
            res.writeHead(statusCode, statusMessage);
          },
          onResponseData(c, chunk) {
            // undici hands over an empty chunk when it resumes after a pause for backpressure (a
            // body past 64 KB): written, it was a system call of its own that sent nothing.
            if (chunk.length === 0) return;
            if (!res.write(chunk)) {
              c.pause();
              res.once('drain', () => c.resume());
            }
          },
          onResponseEnd() {
            res.end();
          },
          onResponseError(_c, err) {
            // After the answer's headers went out, only a broken connection tells the client.
            if (res.headersSent) {
              failed = true;
              res.destroy();
              return;
            }
            fail(err as Error & { code?: string });
          },
        },
      );
    }
  };
}
