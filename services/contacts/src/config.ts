import { z } from 'zod';
import { baseConfigSchema, batchWaitSetting, loadConfig, OFF_PATH_BATCH_WAIT_MS, portSetting } from '@parley/shared';

export const contactsConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('contacts'),
  /** Where clients reach the gateway; uploaded avatars are linked from there. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** Largest avatar upload accepted (bytes). */
  AVATAR_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(5 * 1024 * 1024),
  /**
   * How long a batch of contacts' activity alone (their messages' `message.created`) waits for more:
   * off every request's path, as reports' events. A batch with any other event (an inbox's copy, a
   * membership, which requests read) goes at `CONSUMER_BATCH_WAIT_MS`.
   */
  CONTACTS_ACTIVITY_BATCH_WAIT_MS: batchWaitSetting(OFF_PATH_BATCH_WAIT_MS),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ContactsConfig {
  return loadConfig(contactsConfigSchema, process.env, overrides);
}
