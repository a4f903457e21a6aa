import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@parley/shared';

export const automationConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3004),
});

export type AutomationConfig = z.infer<typeof automationConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): AutomationConfig {
  return loadConfig(automationConfigSchema, process.env, overrides);
}
