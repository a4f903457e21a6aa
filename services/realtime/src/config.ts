import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

export const realtimeConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('realtime'),
  /** Attempts before an event is dead-lettered: high, so a Redis outage of minutes delays events instead of dropping them. */
  CONSUMER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(50),
  /** Events the fan-out handles per transaction, in arrival order. */
  REALTIME_FANOUT_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  /** How long the first event of a batch waits for more (a bound on the latency it adds). */
  REALTIME_FANOUT_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(2),
  /**
   * Least time between two reads of the streams that bring entries: what arrives meanwhile goes
   * out together, one write per socket (a lone event after a quiet window is not held; one that
   * follows another waits at most this long).
   */
  REALTIME_FLUSH_MS: z.coerce.number().int().min(0).max(1000).default(20),
  /** ActionCable's server ping (the JS client counts a connection stale after two missed). */
  REALTIME_PING_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  /** Largest client frame; a bigger one closes the socket (1009). */
  REALTIME_MAX_FRAME_BYTES: z.coerce.number().int().min(256).max(1024 * 1024).default(16 * 1024),
  /** Client frames per connection per 10 s; beyond it the connection is closed (`invalid_request`). */
  REALTIME_MAX_FRAMES_PER_10S: z.coerce.number().int().min(1).max(100_000).default(200),
  /** Subscriptions one connection may hold; more are rejected. */
  REALTIME_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(1000).default(20),
  /** Queued outgoing bytes beyond which a socket that does not read is closed. */
  REALTIME_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).default(4 * 1024 * 1024),
  /** Events kept per stream for resume (XADD MAXLEN ~). */
  REALTIME_STREAM_MAX_EVENTS: z.coerce.number().int().min(10).default(10_000),
  /** How long events are kept for resume (XTRIM MINID ~). */
  REALTIME_RETENTION_MS: z.coerce.number().int().min(1000).default(24 * 3600 * 1000),
  /** Events one replay reads from the log at a time. */
  REALTIME_REPLAY_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  /** How long a token check is cached (events revoke it sooner). */
  REALTIME_TOKEN_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /** Chatwoot's PRESENCE_DURATION: a subscriber is online this long after its last `update_presence`. */
  REALTIME_PRESENCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(20),
});

export type RealtimeConfig = z.infer<typeof realtimeConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): RealtimeConfig {
  return loadConfig(realtimeConfigSchema, process.env, overrides);
}
