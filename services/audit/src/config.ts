import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

export const auditConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('audit'),
  /** Most events written in one ingest transaction. */
  AUDIT_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(200),
  /** How long the first event of a batch waits for more before the batch is written. */
  AUDIT_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(10_000).default(25),
});

export type AuditConfig = z.infer<typeof auditConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): AuditConfig {
  return loadConfig(auditConfigSchema, process.env, overrides);
}
