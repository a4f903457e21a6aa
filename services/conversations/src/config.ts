import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

export const conversationsConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('conversations'),
  /** How often the snooze worker reopens conversations whose snoozed_until has passed (Chatwoot: 5 min). */
  SNOOZE_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(30_000),
  /** How often the conversation count deltas are folded into the counts tables (readers sum both, so this only bounds the deltas a count reads). */
  COUNT_FOLD_MS: z.coerce.number().int().min(50).max(3_600_000).default(2_000),
  /** A `q` matching at least this many conversations has its pattern's matches kept in search_hits from then on (migration 009). */
  SEARCH_HITS_MIN_CONVERSATIONS: z.coerce.number().int().min(1).default(10),
  /** Most `q` patterns an account keeps hits for (each costs every message write one more ILIKE). */
  SEARCH_PATTERNS_MAX: z.coerce.number().int().min(0).max(1000).default(32),
  /** Largest attachment accepted on a message (bytes). */
  ATTACHMENT_MAX_BYTES: z.coerce.number().int().min(1).max(100 * 1024 * 1024).default(10 * 1024 * 1024),
});

export type ConversationsConfig = z.infer<typeof conversationsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ConversationsConfig {
  return loadConfig(conversationsConfigSchema, process.env, overrides);
}
