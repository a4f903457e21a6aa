import { z } from 'zod';

/**
 * Building blocks of the contracts. Every record is a strict object: a producer that writes a
 * field the contract does not name fails when it writes (`buildEnvelope`), so the contract is
 * exactly what owners publish. Consumers read tolerantly (`parseContract`): a field a newer
 * producer adds is dropped, not fatal.
 */
export const id = z.number().int();
/** Unix seconds (Chatwoot's timestamp unit). */
export const unixTime = z.number().int();
/** ISO-8601 with offset (`isoOrNull` of the kernel writes `...Z`). */
export const isoTime = z.iso.datetime({ offset: true });
export const jsonObject = z.record(z.string(), z.unknown());

/**
 * Parses `value` against a contract, ignoring keys the contract does not know (at any depth):
 * what a consumer does with a snapshot from a producer newer than itself.
 */
export function parseContract<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.infer<S>> {
  const first = schema.safeParse(value);
  if (first.success || !first.error.issues.every((i) => i.code === 'unrecognized_keys')) return first;
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const issue of first.error.issues) {
    let at: unknown = copy;
    for (const key of issue.path) at = (at as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
    if (at && typeof at === 'object' && issue.code === 'unrecognized_keys') for (const k of issue.keys) delete (at as Record<string, unknown>)[k];
  }
  return schema.safeParse(copy);
}

/** One line naming each offending field: `data.email: Invalid input`. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues.map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.')}: ${i.message}`).join('; ');
}
