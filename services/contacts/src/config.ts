import { z } from 'zod';
import { baseConfigSchema, batchWaitSetting, loadConfig, OFF_PATH_BATCH_WAIT_MS, portSetting } from '@parley/shared';

export const contactsConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('contacts'),
  /** Its consumer is off every request's path: larger batches (`batchWaitSetting`). */
  CONSUMER_BATCH_WAIT_MS: batchWaitSetting(OFF_PATH_BATCH_WAIT_MS),
  /** Where clients reach the gateway; uploaded avatars are linked from there. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** Largest avatar upload accepted (bytes). */
  AVATAR_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(5 * 1024 * 1024),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ContactsConfig {
  return loadConfig(contactsConfigSchema, process.env, overrides);
}
