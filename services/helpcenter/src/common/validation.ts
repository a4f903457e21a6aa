import { z } from 'zod';

/** Field length limits (Chatwoot caps string columns at 255 and text at 20,000). */
export const LIMITS = {
  name: 255,
  slug: 255,
  title: 255,
  /** Articles are long documents: more generous than Chatwoot's generic 20,000 (as message content). */
  content: 150_000,
  description: 20_000,
  headerText: 20_000,
  url: 2_048,
  metaTitle: 255,
  metaDescription: 1_000,
  metaTags: 50,
  metaTag: 100,
  locales: 50,
} as const;

/** Zod message for a wrong or missing type: a missing required field says so. */
const typeError = (what: string) => (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : what);

/** URL-safe slug: lower-case letters, digits, `-` and `_`, starting and ending with a letter or digit. */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
export const slugSchema = z
  .string({ error: typeError('must be a string') })
  .trim()
  .min(1, 'must not be blank')
  .max(LIMITS.slug, `is too long (maximum is ${LIMITS.slug} characters)`)
  .regex(SLUG_RE, 'must contain only lower-case letters, digits, "-" and "_", starting and ending with a letter or digit');

/** Locale codes as Chatwoot uses them: `en`, `pt_BR`, `zh-TW`. */
export const LOCALE_RE = /^[a-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})?$/;
export const localeSchema = z.string({ error: typeError('must be a string') }).trim().regex(LOCALE_RE, 'is not a valid locale code (e.g. en, pt_BR)');

/** A required, non-blank string. */
export function requiredText(max: number) {
  return z.string({ error: typeError('must be a string') }).trim().min(1, 'must not be blank').max(max, `is too long (maximum is ${max} characters)`);
}

/** An optional string where `""` and null mean "no value". */
export function optionalText(max: number) {
  return z
    .string({ error: typeError('must be a string') })
    .max(max, `is too long (maximum is ${max} characters)`)
    .nullable()
    .transform((v) => (v === null || v.trim() === '' ? null : v));
}

/** An http(s) URL (public pages link to it, so no `javascript:`), `""`/null to clear. */
export const optionalHttpUrl = z
  .string()
  .trim()
  .max(LIMITS.url)
  .nullable()
  .transform((v, ctx) => {
    if (v === null || v === '') return null;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
      return z.NEVER;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
      return z.NEVER;
    }
    return v;
  });

/** A JSON integer id (also `"12"` from form-ish clients). */
export function idInput() {
  const what = 'must be a positive integer id';
  return z
    .union([z.number({ error: what }), z.string().regex(/^[0-9]{1,10}$/, what)], { error: typeError(what) })
    .transform((v) => Number(v))
    .pipe(z.number().int(what).positive(what).max(2_147_483_647, what));
}

/** A position in a list: any 32-bit integer. */
export function positionInput() {
  const what = 'must be an integer';
  return z
    .union([z.number({ error: what }), z.string().regex(/^-?[0-9]{1,10}$/, what)], { error: typeError(what) })
    .transform((v) => Number(v))
    .pipe(z.number().int(what).min(-2_147_483_648, 'is out of range').max(2_147_483_647, 'is out of range'));
}

/**
 * Slug from free text, like Rails' `parameterize`: accents stripped, lower case, runs of
 * anything else become `-`. Empty when nothing usable is left.
 */
export function parameterize(text: string, max = 200): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
}

/** `page` query parameter: a positive integer, default 1. */
export const pageQuery = z.coerce.number().int().positive().max(100_000).optional();
