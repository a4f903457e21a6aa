import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

export const reportsConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('reports'),
});

export type ReportsConfig = z.infer<typeof reportsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ReportsConfig {
  return loadConfig(reportsConfigSchema, process.env, overrides);
}
