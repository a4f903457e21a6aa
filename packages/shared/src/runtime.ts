import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Pool } from 'pg';
import { createLogger, type Logger } from './logger';
import type { BaseConfig } from './config';
import { createPool, serviceDatabaseUrl } from './db';
import { migrateService } from './migrate';
import { AmqpConnection } from './amqp';
import { OutboxRelay } from './outbox';
import { EventConsumer, type BatchOptions, type EventHandler, type HeaderBinding } from './consumer';
import type { EventEnvelope } from './events/envelope';
import { createRedis, type Redis, type RedisClientOptions } from './redis';
import { healthRouter } from './health';
import { createAppServer, createBaseApp, finishApp, jsonBody, requireInternalContext } from './http';
import { installRouteTemplateHook, serverPort, ServiceMetrics, startMetricsServer } from './metrics';
import { shutdownTracing } from './tracing';
import { KernelPruner, type TimedTable } from './retention';
import { retainHeapTrimmer } from './heap-trim';
import type { Worker } from './worker';

export { PeriodicWorker, type Worker } from './worker';

export interface ServiceDeps<C extends BaseConfig = BaseConfig> {
  service: string;
  config: C;
  log: Logger;
  pool: Pool;
  amqp: AmqpConnection;
  redis: Redis;
  /** This service's Prometheus metrics (served on METRICS_PORT). */
  metrics: ServiceMetrics;
}

export type ConsumerSpec = {
  /** Queue suffix; the queue is `<service>.<name>`. */
  name: string;
  bindings: string[];
  /** Types bound only for events whose headers match (EventConsumer's `headerBindings`). */
  headerBindings?: HeaderBinding[];
  /** Routing keys an earlier version bound and this one no longer handles (EventConsumer's `retiredBindings`). */
  retiredBindings?: string[];
  /** Events that need no handling at all are acked without a transaction (EventConsumer's `wants`). */
  wants?: (event: EventEnvelope) => boolean;
} & ({ handle: EventHandler; batch?: never } | { batch: BatchOptions; handle?: never });

export interface ServiceDefinition<C extends BaseConfig = BaseConfig> {
  /** Service name; also its schema and the prefix of its queues. */
  name: string;
  migrationsDir: string;
  createApp(deps: ServiceDeps<C>): Express;
  consumers?(deps: ServiceDeps<C>): ConsumerSpec[];
  workers?(deps: ServiceDeps<C>): Worker[];
  /**
   * Takes over what the express app cannot: the HTTP server's `upgrade` requests (WebSockets:
   * the realtime service's `/cable`, the gateway's proxy of it). Called once the server listens;
   * `close()` runs first on shutdown, before the server stops taking requests.
   */
  attach?(server: Server, deps: ServiceDeps<C>): ServerAttachment;
  /** Options of the service's Redis client (`createRedis`). */
  redis?: RedisClientOptions;
  /** Tables of the service's own kept for a time, pruned with the kernel's (src/retention.ts). */
  timedTables?(config: C): TimedTable[];
}

export interface ServerAttachment {
  close(): Promise<void>;
}

export interface RunningService<C extends BaseConfig = BaseConfig> {
  url: string;
  port: number;
  /** `http://host:port/metrics` of the service's Prometheus endpoint. */
  metricsUrl: string;
  deps: ServiceDeps<C>;
  relay: OutboxRelay;
  consumers: EventConsumer[];
  stop(): Promise<void>;
}

/**
 * An app with what every service needs: health endpoints (no auth), the signed-context
 * check on everything else, JSON bodies, and the Error-body tail.
 */
export function createServiceApp(deps: Pick<ServiceDeps, 'service' | 'log' | 'pool' | 'redis' | 'amqp' | 'config'> & { metrics?: ServiceMetrics }, mount: (app: Express) => void): Express {
  const app = createBaseApp(deps.log, deps.metrics);
  app.use(healthRouter({ service: deps.service, pool: deps.pool, redis: deps.redis, amqp: deps.amqp, log: deps.log }));
  app.use(requireInternalContext(deps.config.INTERNAL_SECRET));
  app.use(jsonBody());
  mount(app);
  return finishApp(app);
}

/** Serves the app on `port` (through `createAppServer`: express without its per-request prototype swap). */
export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createAppServer(app);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Stops accepting, lets in-flight requests finish, drops idle keep-alive sockets. */
export function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, timeoutMs);
    t.unref();
    server.close(() => {
      clearTimeout(t);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Composition of a service process: migrate (unless MIGRATE_ON_START is off), connect, start the outbox relay, the
 * consumers and workers, then HTTP. `stop()` undoes it in reverse for SIGTERM.
 */
export async function bootService<C extends BaseConfig>(def: ServiceDefinition<C>, config: C, opts: { port: number; host?: string; log?: Logger; migrate?: boolean }): Promise<RunningService<C>> {
  const log = opts.log ?? createLogger(def.name, config.LOG_LEVEL);
  // Read by V8 at every full GC's limit computation, so it takes effect when set at start-up.
  if (config.HEAP_GROWING_PERCENT > 0) setFlagsFromString(`--heap-growing-percent=${config.HEAP_GROWING_PERCENT}`);
  if (opts.migrate ?? config.MIGRATE_ON_START) {
    await migrateService({ adminUrl: config.DATABASE_URL, service: def.name, rolePassword: config.DB_ROLE_PASSWORD, migrationsDir: def.migrationsDir, log });
  }
  const roleUrl = serviceDatabaseUrl(config.DATABASE_URL, def.name, config.DB_ROLE_PASSWORD);
  const pool = createPool(roleUrl, def.name, config.DB_POOL_MAX, {}, log);
  const amqp = new AmqpConnection(config.AMQP_URL, log, config.NAMESPACE, config.QUEUE_EXPIRES_MS);
  const redis = createRedis(config.REDIS_URL, log, def.redis);
  const metrics = new ServiceMetrics(def.name);
  installRouteTemplateHook();
  metrics.watchOutbox(pool);
  const deps: ServiceDeps<C> = { service: def.name, config, log, pool, amqp, redis, metrics };

  // The relay's own connection, not one of the pool's: its claim holds a connection while it waits
  // for the broker's confirms, and under load it queued behind the requests for the pool (50-115 ms a
  // claim at 200 rule messages/s, more than the claim, publish and confirms together).
  // Its own application_name makes it a kind of connection of its own (db.ts, kindOf), so its BEGIN does
  // not prepare the statements the service's connections prepared (prepareKnown), and it is named in
  // pg_stat_activity.
  const relayPool = createPool(roleUrl, def.name, 1, { application_name: `${def.name}-relay` }, log);
  const relay = new OutboxRelay({ pool: relayPool, listenUrl: roleUrl, schema: def.name, amqp, log, metrics, flushMs: config.OUTBOX_FLUSH_MS, bundleMax: config.OUTBOX_BUNDLE_MAX });
  const consumers = (def.consumers?.(deps) ?? []).map(
    (spec) =>
      new EventConsumer({
        queue: `${def.name}.${spec.name}`,
        bindings: spec.bindings,
        headerBindings: spec.headerBindings,
        retiredBindings: spec.retiredBindings,
        pool,
        amqp,
        log,
        handle: spec.handle,
        batch: spec.batch,
        wants: spec.wants,
        prefetch: config.CONSUMER_PREFETCH,
        maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
        metrics,
      }),
  );
  for (const c of consumers) await c.start();
  // Wait for the broker at start-up when it is there; otherwise run and keep retrying
  // (the outbox holds events meanwhile and /readyz says not ready).
  await amqp.connect().catch(() => amqp.start());
  relay.start();
  const retention = { outboxHours: config.OUTBOX_RETENTION_HOURS, processedEventsHours: config.PROCESSED_EVENTS_RETENTION_HOURS };
  const workers = def.workers?.(deps) ?? [];
  if (config.KERNEL_PRUNE_INTERVAL_MS > 0) workers.push(new KernelPruner({ pool, log, metrics }, retention, config.KERNEL_PRUNE_INTERVAL_MS, def.timedTables?.(config)));
  for (const w of workers) await w.start();

  const app = def.createApp(deps);
  const server = await listen(app, opts.port, opts.host);
  const port = (server.address() as AddressInfo).port;
  const attachment = def.attach?.(server, deps);
  const metricsServer = await startMetricsServer(metrics, config.METRICS_PORT, opts.host);
  const metricsPort = serverPort(metricsServer);
  log.info({ port, metricsPort }, `${def.name} listening`);
  const releaseTrimmer = config.HEAP_TRIM_IDLE_MS > 0 ? retainHeapTrimmer(config.HEAP_TRIM_IDLE_MS) : () => undefined;

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      log.info('shutting down');
      releaseTrimmer();
      await attachment?.close().catch((err: unknown) => log.warn({ err }, 'closing upgraded connections failed'));
      await closeServer(server, config.SHUTDOWN_TIMEOUT_MS);
      await Promise.allSettled(consumers.map((c) => c.stop()));
      await Promise.allSettled(workers.map((w) => w.stop()));
      await relay.stop();
      await amqp.close();
      redis.disconnect();
      await relayPool.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
      metricsServer.closeAllConnections();
      await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      log.info('stopped');
    })();
    return stopping;
  };
  return { url: `http://127.0.0.1:${port}`, port, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, deps, relay, consumers, stop };
}

/** SIGTERM/SIGINT run `stop` once, then exit; a second signal exits at once. */
export function exitOnSignals(stop: () => Promise<void>, log: Logger): void {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    log.info({ signal }, 'signal received');
    stop()
      .then(() => shutdownTracing())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
