import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@parley/shared';

export const helpcenterConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3003),
});

export type HelpcenterConfig = z.infer<typeof helpcenterConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): HelpcenterConfig {
  return loadConfig(helpcenterConfigSchema, process.env, overrides);
}
