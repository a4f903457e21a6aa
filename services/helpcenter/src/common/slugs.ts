import { parameterize } from './validation';

/** The base slug for a generated one, with a fallback when the text has no usable characters. */
export function baseSlug(text: string, fallback: string): string {
  return parameterize(text) || fallback;
}

/** `base`, or `base-2`, `base-3`, ... whichever is not taken yet. */
export function firstFreeSlug(base: string, taken: Iterable<string>): string {
  const set = new Set(taken);
  if (!set.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!set.has(candidate)) return candidate;
  }
}

/** True for a unique violation of the named constraint (a lost race for a generated slug). */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === constraint;
}

/**
 * Runs `attempt` again (up to `times`) when it lost a race for a generated slug; the
 * second and later attempts are told so they can add a random suffix.
 */
export async function retryOnSlugRace<T>(constraint: string, generated: boolean, attempt: (retry: number) => Promise<T>, times = 4): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt(i);
    } catch (err) {
      if (!generated || i + 1 >= times || !isUniqueViolation(err, constraint)) throw err;
    }
  }
}
