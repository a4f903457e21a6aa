import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Pool } from 'pg';

/**
 * Prometheus metrics (prom-client), one registry per service so that several services booted
 * in one process (tests) keep theirs apart, plus one process-wide registry for Node's own
 * metrics (CPU, memory, event loop lag, GC, handles), which belong to the process.
 *
 * Labels are bounded: routes are templates (`/api/v1/accounts/:account_id/conversations/:id`),
 * never raw paths; event types come from the catalogue; queues and upstreams from config;
 * webhook attempts stop at WEBHOOK_MAX_ATTEMPTS. Per request the cost is one histogram observe
 * in the response's existing `finish` listener.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  /** Requests by method, route template and status: rate, errors (status >= 500) and latency. */
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Events a consumer finished: `handled`, `duplicate` (already processed), `failed` (will be retried), `dead_lettered`. */
  readonly events: Counter<'queue' | 'type' | 'outcome'>;
  readonly eventDuration: Histogram<'queue' | 'type'>;
  readonly outboxPublished: Counter;
  readonly outboxPublishFailures: Counter;
  /** Rows the kernel's retention deleted (`outbox`, `processed_events`, a service's timed tables: KernelPruner). */
  readonly kernelPruned: Counter<'table'>;
  /** Webhook delivery attempts by outcome (`succeeded`, `retrying`, `failed`, `dead`) and attempt number. */
  readonly webhookDeliveries: Counter<'outcome' | 'attempt'>;
  /** Gateway: requests the upstream service did not answer (`unavailable`, `upstream_timeout`). */
  readonly upstreamErrors: Counter<'upstream' | 'code'>;
  /** Gateway: requests refused by a rate limit (`ip`, `token`). */
  readonly rateLimited: Counter<'limit'>;

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'HTTP requests served, by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.events = new Counter({ name: 'parley_consumer_events_total', help: 'Events a consumer finished with, by queue, event type and outcome', labelNames: ['queue', 'type', 'outcome'], registers });
    this.eventDuration = new Histogram({
      name: 'parley_consumer_event_duration_seconds',
      help: 'Time to handle one event (its transaction included), by queue and event type',
      labelNames: ['queue', 'type'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.outboxPublished = new Counter({ name: 'parley_outbox_published_total', help: 'Outbox rows published to RabbitMQ (confirmed by the broker)', registers });
    this.outboxPublishFailures = new Counter({ name: 'parley_outbox_publish_failures_total', help: 'Outbox batches that failed to publish and will be retried', registers });
    this.kernelPruned = new Counter({ name: 'parley_kernel_pruned_rows_total', help: 'Rows past their retention deleted from the outbox, processed_events and the service\'s timed tables, by table', labelNames: ['table'], registers });
    this.webhookDeliveries = new Counter({ name: 'parley_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome and attempt number', labelNames: ['outcome', 'attempt'], registers });
    this.upstreamErrors = new Counter({ name: 'parley_gateway_upstream_errors_total', help: 'Proxied requests the upstream service did not answer, by upstream and error code', labelNames: ['upstream', 'code'], registers });
    this.rateLimited = new Counter({ name: 'parley_gateway_rate_limited_total', help: 'Requests refused by a rate limit, by limit', labelNames: ['limit'], registers });
  }

  /**
   * Outbox depth, read from the service's schema at scrape time (not per write): rows waiting
   * to be published and the age of the oldest. A scrape while Postgres is away reports -1.
   */
  watchOutbox(pool: Pool): void {
    let last: Promise<{ pending: number; age: number }> | null = null;
    // One query serves both gauges of a scrape.
    const read = () => {
      last ??= pool
        .query<{ pending: string; age: string | null }>(
          `SELECT (SELECT count(*) FROM (SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT 1000000) w) AS pending,
                  (SELECT extract(epoch FROM now() - created_at) FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT 1) AS age`,
        )
        .then((r) => ({ pending: Number(r.rows[0]?.pending ?? 0), age: Number(r.rows[0]?.age ?? 0) }))
        .catch(() => ({ pending: -1, age: -1 }))
        .finally(() => setImmediate(() => (last = null)));
      return last;
    };
    new Gauge({
      name: 'parley_outbox_pending_rows',
      help: 'Outbox rows not yet published (-1: the database did not answer)',
      registers: [this.registry],
      async collect() {
        this.set((await read()).pending);
      },
    });
    new Gauge({
      name: 'parley_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest unpublished outbox row (0 when none; -1: the database did not answer)',
      registers: [this.registry],
      async collect() {
        this.set((await read()).age);
      },
    });
  }

  /** The exposition text: this service's metrics and the process's. */
  async render(): Promise<string> {
    const [own, proc] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return `${own}\n${proc}`;
  }
}

let processRegistryInstance: Registry | null = null;
/** Node's process metrics, collected once per process whichever services it runs. */
function processRegistry(): Registry {
  if (!processRegistryInstance) {
    processRegistryInstance = new Registry();
    collectDefaultMetrics({ register: processRegistryInstance });
  }
  return processRegistryInstance;
}

/**
 * Serves `GET /metrics` on its own port, apart from the service's HTTP port: the gateway's
 * public port never exposes it, and network policies can admit only Prometheus to it.
 */
export function startMetricsServer(metrics: ServiceMetrics, port: number, host = '0.0.0.0'): Promise<Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ description: 'Not found', errors: [{ field: '', message: 'Only GET /metrics is served here', code: 'not_found' }] }));
      return;
    }
    metrics.render().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export function serverPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

const ROUTE_BASE = Symbol('parley.routeBase');
const ROUTE_PARAMS = Symbol('parley.routeParams');
type RoutedRequest = Request & { [ROUTE_BASE]?: string; [ROUTE_PARAMS]?: Record<string, string>; upstream?: string };

let routeHookInstalled = false;
/**
 * Express 5 keeps only the matched route's own path (`/:id`) and the matched prefix's actual
 * value (`/api/v1/accounts/42`), and resets the prefix when an error unwinds the routers. So
 * when a route is dispatched we note the prefix and the params (two property writes); the
 * template is rebuilt only when the response finishes. Installed once per process.
 */
export function installRouteTemplateHook(): void {
  if (routeHookInstalled) return;
  routeHookInstalled = true;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    type Dispatch = (this: unknown, req: RoutedRequest, res: unknown, done: unknown) => unknown;
    const Route = require(require.resolve('router/lib/route', { paths: [require.resolve('express')] })) as { prototype: { dispatch: Dispatch } };
    const dispatch = Route.prototype.dispatch;
    if (typeof dispatch !== 'function') return;
    // router's own signature, (req, res, done): no rest array per dispatch.
    Route.prototype.dispatch = function (this: unknown, req: RoutedRequest, res: unknown, done: unknown) {
      req[ROUTE_BASE] = req.baseUrl;
      req[ROUTE_PARAMS] = req.params as Record<string, string>;
      return dispatch.call(this, req, res, done);
    };
  } catch {
    // Another router: route labels fall back to the matched route's own path.
  }
}

/** The route template of a finished request, bounded: `none` when no route matched. */
export function routeLabel(req: Request): string {
  const r = req as RoutedRequest;
  const leaf = r.route?.path;
  if (typeof leaf === 'string') {
    const base = r[ROUTE_BASE];
    if (!base) return leaf;
    const params = r[ROUTE_PARAMS] ?? {};
    const names = Object.keys(params);
    const prefix = base
      .split('/')
      .map((seg) => {
        if (seg === '') return seg;
        const name = names.find((n) => params[n] === seg || encodeURIComponent(params[n] ?? '') === seg);
        return name ? `:${name}` : seg;
      })
      .join('/');
    return leaf === '/' ? prefix : `${prefix}${leaf}`;
  }
  if (typeof r.upstream === 'string') return `proxy ${r.upstream}`;
  return 'none';
}
