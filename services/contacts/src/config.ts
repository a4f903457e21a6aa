import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@parley/shared';

export const contactsConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3002),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export function readConfig(overrides: Record<string, unknown> = {}): ContactsConfig {
  return loadConfig(contactsConfigSchema, process.env, overrides);
}
