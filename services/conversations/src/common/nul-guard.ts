import type { RequestHandler } from 'express';
import { BadRequestError, ValidationError } from '@parley/shared';

/** The dotted path of the first string (or key) holding a NUL character, or null. */
export function findNul(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], [...path, String(i)]);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return [...path, k.replace(/\u0000/g, '')].join('.');
      const hit = findNul(v, [...path, k]);
      if (hit !== null) return hit;
    }
  }
  return null;
}

/** Refuses a parsed body holding NUL characters (Postgres text and jsonb cannot store them): 422 naming the field. */
export function assertNoNulInBody(body: unknown): void {
  const field = findNul(body);
  if (field !== null) throw ValidationError.field(field, 'must not contain NUL characters', 'invalid_characters');
}

/**
 * Postgres refuses NUL in text and jsonb; without this such input would fail deep in a query
 * as a 500. Queries answer 400 and bodies 422, naming the field.
 */
export const nulGuard: RequestHandler = (req, _res, next) => {
  const q = findNul(req.query);
  if (q !== null) return next(new BadRequestError(`${q}: must not contain NUL characters`, [{ field: q, message: 'must not contain NUL characters', code: 'invalid_parameter' }], 'invalid_parameter'));
  try {
    assertNoNulInBody(req.body);
  } catch (err) {
    return next(err);
  }
  next();
};
