import { z } from 'zod';

export const MAX_INT = 2_147_483_647;

/** A record id in a body: a JSON number, or a numeric string (multipart and form clients send strings). */
export const idInput = z.union([
  z.number().int().positive().max(MAX_INT),
  z
    .string()
    .regex(/^[0-9]{1,10}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().positive().max(MAX_INT)),
]);

/** Free-form JSON object (additional/custom attributes). Bounded so a row stays reasonable. */
export const jsonObject = z
  .record(z.string().max(255), z.unknown())
  .refine((o) => JSON.stringify(o).length <= 64_000, 'is too large (at most 64,000 characters of JSON)');

/** A boolean that multipart bodies send as text. */
export const boolInput = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

/**
 * A point in time as clients send it: unix seconds (what toggle_status takes in Chatwoot), as a
 * number or numeric string, or an ISO-8601 date-time (what conversation create takes).
 */
export const instantInput = z.union([
  z.number().int().min(0).max(32_503_680_000).transform((s) => new Date(s * 1000)),
  z
    .string()
    .regex(/^[0-9]{1,11}$/)
    .transform((s) => Number(s))
    .pipe(z.number().max(32_503_680_000))
    .transform((s) => new Date(s * 1000)),
  z.iso.datetime({ offset: true }).transform((s) => new Date(s)),
]);

/** Path parameters, for the OpenAPI description (routes read them with idParam). */
export const conversationIdParams = z.object({ conversation_id: z.number().int().positive() });

/** Delete-style answers: an empty JSON object (project policy; Chatwoot sends an empty body). */
export const emptyObject = z.object({});
