import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@parley/shared';

export const conversationsConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3001),
});

export type ConversationsConfig = z.infer<typeof conversationsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ConversationsConfig {
  return loadConfig(conversationsConfigSchema, process.env, overrides);
}
