import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@parley/shared';

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Token of the platform app allowed on `/platform/api/v1` (Chatwoot's PlatformApp). */
  PLATFORM_API_TOKEN: z.string().min(16).default('parley-dev-platform-token-change-me'),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /** Requests per window per client IP (Chatwoot's Rack::Attack default is 3000/min). */
  RATE_LIMIT_PER_IP: z.coerce.number().int().positive().default(3000),
  /** Requests per window per access token. */
  RATE_LIMIT_PER_TOKEN: z.coerce.number().int().positive().default(3000),
  PROXY_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  PRINCIPAL_CACHE_TTL_SECONDS: z.coerce.number().int().positive().default(300),
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
