import { z } from 'zod';
import { baseConfigSchema, batchWaitSetting, loadConfig, OFF_PATH_BATCH_WAIT_MS, portSetting } from '@parley/shared';

/** `true`/`false`/`1`/`0` from env; z.coerce.boolean would read "false" as true. */
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

export const automationConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('automation'),
  /**
   * More attempts than the kernel's default: a rule event whose commands cannot reach the
   * conversations service is retried with backoff (capped at 30 s) for about two and a half
   * minutes before it is dead-lettered (`automation.rules.dead`, replayable).
   */
  CONSUMER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(12),
  /**
   * Lets webhooks target private, loopback and link-local addresses. Off in production so an
   * administrator cannot make the service call into the internal network (SSRF).
   */
  WEBHOOK_ALLOW_PRIVATE: flag.default(false),
  /** Per-request timeout of a webhook delivery (Chatwoot's WEBHOOK_TIMEOUT, 5 s). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  /**
   * Retry schedule: attempt n waits about BASE * 2^(n-1) (half of it jittered), capped at
   * MAX_DELAY. Defaults give 13 attempts over roughly a day before a delivery goes dead.
   */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(20_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(1).default(12 * 3600_000),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(13),
  /** Deliveries in flight per process, and per target URL (one slow receiver cannot take every slot). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  WEBHOOK_PER_URL_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(5),
  /** The webhooks fan-out's batch wait: off every request's path, unlike the rules' (`CONSUMER_BATCH_WAIT_MS`, whose effects users wait for). */
  WEBHOOKS_BATCH_WAIT_MS: batchWaitSetting(OFF_PATH_BATCH_WAIT_MS),
  /** How often the sender looks for due deliveries when idle. */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(500),
  /**
   * Timeout of one read-through to a peer (a contact, agent, team, bot or inbox the local copy
   * lacks). After a lookup fails other than by 404, payloads stop asking that kind of record for
   * PEER_LOOKUP_BACKOFF_MS and go out with the part minimal, so a hung peer costs one timeout per
   * backoff window, not one per delivery.
   */
  PEER_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3000),
  PEER_LOOKUP_BACKOFF_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * Batches of the rules queue handled at once. A batch waits on the conversations service for
   * its commands; with one at a time, the events that arrive meanwhile wait for its slowest
   * command. The events of one conversation are never in two of them (arrival order kept).
   */
  RULES_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Timeout of one command call to the conversations service. */
  COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** How long rule runs and finished webhook deliveries are kept (the maintenance job prunes older ones). */
  RULE_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).default(14),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).default(14),
  /** Rule-cache entries (accounts) kept in memory. */
  RULE_CACHE_ACCOUNTS: z.coerce.number().int().min(1).default(10_000),
});

export type AutomationConfig = z.infer<typeof automationConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): AutomationConfig {
  return loadConfig(automationConfigSchema, process.env, overrides);
}
