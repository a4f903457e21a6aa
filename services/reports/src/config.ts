import { z } from 'zod';
import { baseConfigSchema, batchWaitSetting, loadConfig, OFF_PATH_BATCH_WAIT_MS, portSetting } from '@parley/shared';

export const reportsConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('reports'),
  /** Its consumer is off every request's path: larger batches (`batchWaitSetting`). */
  CONSUMER_BATCH_WAIT_MS: batchWaitSetting(OFF_PATH_BATCH_WAIT_MS),
});

export type ReportsConfig = z.infer<typeof reportsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ReportsConfig {
  return loadConfig(reportsConfigSchema, process.env, overrides);
}
