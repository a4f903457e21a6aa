import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

export const helpcenterConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('helpcenter'),
});

export type HelpcenterConfig = z.infer<typeof helpcenterConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): HelpcenterConfig {
  return loadConfig(helpcenterConfigSchema, process.env, overrides);
}
