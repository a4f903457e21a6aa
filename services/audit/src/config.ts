import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@parley/shared';

export const auditConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3005),
});

export type AuditConfig = z.infer<typeof auditConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): AuditConfig {
  return loadConfig(auditConfigSchema, process.env, overrides);
}
