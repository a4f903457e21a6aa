import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

/**
 * Express's 'trust proxy' from `TRUST_PROXY`: `false` (the default: the gateway is the edge
 * and X-Forwarded-For is the client's to forge), `true`, a hop count, or addresses/subnets
 * (`loopback`, `10.0.0.0/8, 172.16.0.0/12`) of the proxies in front of it.
 */
export function trustProxySetting(raw: string): boolean | number | string {
  const v = raw.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^[0-9]+$/.test(v)) return Number(v);
  return v;
}

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('gateway'),
  /** Token of the platform app allowed on `/platform/api/v1` (Chatwoot's PlatformApp). */
  PLATFORM_API_TOKEN: z.string().min(16).default('parley-dev-platform-token-change-me'),
  /** See trustProxySetting: decides the client address used by the per-IP limit and passed on to the services. */
  TRUST_PROXY: z.string().default('false'),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /** Requests per window per client IP (Chatwoot's Rack::Attack default is 3000/min). */
  RATE_LIMIT_PER_IP: z.coerce.number().int().positive().default(3000),
  /** Requests per window per access token. */
  RATE_LIMIT_PER_TOKEN: z.coerce.number().int().positive().default(3000),
  /**
   * Most points a gateway process leases from Redis at once for one IP or token (1% of the limit,
   * at most this; src/ratelimit.ts): a client within its limit costs Redis a round trip in that
   * many requests. 1: a round trip a request, the limit exact across replicas.
   */
  RATE_LIMIT_LEASE_MAX: z.coerce.number().int().min(1).max(1000).default(50),
  PROXY_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * Most requests one gateway process proxies at once; beyond it a request is answered 503
   * `unavailable` with Retry-After without reaching a service (src/proxy.ts). Bounds what a
   * backlog costs the gateway in memory. Well above what the benchmark's 200 messages/s keep in
   * flight on a saturated two-core machine, so it sheds only a runaway backlog.
   */
  PROXY_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(1024),
  /** How long a cached principal may live if an invalidation were ever lost (each replica caches in process). */
  PRINCIPAL_CACHE_TTL_SECONDS: z.coerce.number().int().positive().default(300),
  /** Most tokens (and most accounts) one gateway replica keeps cached; the least recently used go first. */
  PRINCIPAL_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(20_000),
  /** Where clients reach the gateway; uploaded profile pictures are linked from there. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** Largest profile picture accepted (bytes). */
  AVATAR_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(5 * 1024 * 1024),
  /** Key of the profile's `hmac_identifier` (Chatwoot's CHATWOOT_INBOX_HMAC_KEY): HMAC-SHA256 of the user's email. */
  USER_HMAC_KEY: z.string().min(1).default('parley-dev-user-hmac-key'),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): GatewayConfig {
  const config = loadConfig(gatewayConfigSchema, process.env, overrides);
  if (config.NODE_ENV === 'production' && config.PLATFORM_API_TOKEN.startsWith('parley-dev-')) {
    throw new Error('PLATFORM_API_TOKEN must be set in production');
  }
  return config;
}
