import { z } from 'zod';
import { baseConfigSchema, loadConfig, portSetting } from '@parley/shared';

export const contactsConfigSchema = baseConfigSchema.extend({
  PORT: portSetting('contacts'),
  /** Where clients reach the gateway; uploaded avatars are linked from there. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** Largest avatar upload accepted (bytes). */
  AVATAR_MAX_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(5 * 1024 * 1024),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ContactsConfig {
  return loadConfig(contactsConfigSchema, process.env, overrides);
}
