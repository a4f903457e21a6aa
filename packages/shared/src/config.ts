import { z } from 'zod';
import { serviceUrlSettings } from './registry';

/** `true`/`false`/`1`/`0` from env (z.coerce.boolean would read "false" as true). */
export const envFlag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

/**
 * How long a batch consumer's first event waits for more (ms). A service whose consumers are off
 * every request's path (reports, webhooks' fan-out) waits longer by default
 * (`OFF_PATH_BATCH_WAIT_MS`): at a steady rate its batches then hold more events, a transaction
 * and a wake-up for many (bench:ab rule: 2-9% less CPU a rule message), at the price of that much
 * staleness of what it keeps.
 */
export const batchWaitSetting = (ms: number) => z.coerce.number().int().min(0).max(1000).default(ms);
export const OFF_PATH_BATCH_WAIT_MS = 200;

/**
 * Settings every service shares. Each service extends this with its own keys and
 * parses `process.env` once in its `config.ts`; nothing else reads the environment.
 */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Superuser/owner URL: used only to create the service's schema and role, and to migrate. */
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/parley'),
  /** Password of the per-service login role (`svc_<name>`); with trust auth it is not checked. */
  DB_ROLE_PASSWORD: z.string().min(1).default('parley-dev-role'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  AMQP_URL: z.string().default('amqp://guest:guest@127.0.0.1:5672'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Shared secret the gateway signs the internal request context with. */
  INTERNAL_SECRET: z.string().min(16).default('parley-dev-internal-secret-change-me'),
  /**
   * Prefix for exchange, queue and Redis key names. Empty in production; tests give each
   * file its own so parallel files never see each other's events or counters.
   */
  NAMESPACE: z.string().regex(/^[a-z0-9_.-]*$/).default(''),
  /** When set, idle queues expire after this many ms (tests use it to leave nothing behind). */
  QUEUE_EXPIRES_MS: z.coerce.number().int().positive().optional(),
  CONSUMER_PREFETCH: z.coerce.number().int().min(1).max(1000).default(20),
  /**
   * Consumers run in batch mode (`inBatches`): at most this many events per transaction, and how
   * long the first event waits for more when the consumer is idle (under load, what arrives
   * while a batch is written goes as the next one, without waiting).
   */
  CONSUMER_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
  CONSUMER_BATCH_WAIT_MS: batchWaitSetting(5),
  /**
   * Least time between two publishes of the outbox relay (ms; 0: each as soon as it commits).
   * Under a steady flow events leave in bursts this far apart, which every consumer handles in
   * one transaction and one ack (docs/architecture.md, "Events"); after a quiet spell an event
   * goes at once. The most it adds to an event's way to its consumers.
   */
  OUTBOX_FLUSH_MS: z.coerce.number().int().min(0).max(1000).default(25),
  /**
   * Most events the relay puts in one message (1: one an event, as before bundles). A claim's
   * events with the same routing (type and routing headers) go as one bundle
   * (BUNDLE_CONTENT_TYPE), which the broker stores and delivers once to each queue. Set 1 while
   * consumers older than bundles still run (docs/deploy.md, "Bundled events"): they dead-letter one.
   * A consumer's prefetch counts messages, so it may hold up to prefetch x this many events.
   */
  OUTBOX_BUNDLE_MAX: z.coerce.number().int().min(1).max(500).default(20),
  /**
   * How long the kernel's tables keep a row (KernelPruner, src/retention.ts): a published outbox
   * row, and a consumer's dedupe record of an event (a copy of the event arriving later would be
   * handled again), and how often the pruner runs.
   */
  OUTBOX_RETENTION_HOURS: z.coerce.number().int().min(1).default(72),
  PROCESSED_EVENTS_RETENTION_HOURS: z.coerce.number().int().min(1).default(168),
  /** 0: no pruning in this process (another runs it, or an operator's job). At most 2^31 - 1, a timer's limit. */
  KERNEL_PRUNE_INTERVAL_MS: z.coerce.number().int().min(0).max(2_147_483_647).default(600_000),
  CONSUMER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Migrate the service's schema at start-up (one machine, compose). Off where a release
   * job migrates once (Kubernetes: `scripts/migrate.js` in the parley-migrate Job).
   */
  MIGRATE_ON_START: envFlag.default(true),
  /** Port of the Prometheus endpoint (`GET /metrics`), apart from the service's own; 0 picks a free one (tests). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Every service's base URL, so services can call each other (`GATEWAY_INTERNAL_URL`, `CONVERSATIONS_URL`, ...: src/registry.ts). */
  ...serviceUrlSettings(),
  /**
   * Timeout of one lookup on a peer's internal API (a read-through of a record the local
   * projection lacks). After a lenient lookup fails other than by 404, that kind of record is not
   * asked for again for PEER_LOOKUP_BACKOFF_MS (readers show it minimal), so a hung peer costs
   * one timeout per backoff window, not one per read.
   */
  PEER_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3000),
  PEER_LOOKUP_BACKOFF_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * How far V8 lets the old generation grow past what the last full GC kept before it collects
   * again (V8's --heap-growing-percent, set at start-up). V8's own factor goes up to 4x on a
   * large machine, so a service with 25 MB live held 90 MB of garbage under load; 50 keeps the
   * peak near 1.5x live for a few more concurrent full GCs. 0: V8's own heuristics.
   */
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1000).default(50),
  /**
   * Once the event loop has been idle this long (ms; also how often it is looked at), a scavenge;
   * a second one when V8's 5 s rate window has passed in quiet, at which V8 gives back the young
   * generation it grew under load (heap-trim.ts): a quiet service holds its resting memory, not
   * its peak's. 0: never.
   */
  HEAP_TRIM_IDLE_MS: z.coerce.number().int().min(0).default(1000),
});

export type BaseConfig = z.infer<typeof baseConfigSchema>;

/**
 * Parses config from an env-like object plus overrides (tests pass overrides instead of
 * mutating env). Throws a readable error naming every bad key.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
  overrides: Record<string, unknown> = {},
): Readonly<z.infer<S>> {
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') merged[k] = v;
  Object.assign(merged, overrides);
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data) as Readonly<z.infer<S>>;
}
