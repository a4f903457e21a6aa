import { z } from 'zod';
import { BadRequestError, queryInt, stringList } from '@parley/shared';

/** Contact list page size (SPEC: 15 contacts per page, as Chatwoot's RESULTS_PER_PAGE). */
export const PAGE_SIZE = 15;

/** Devise's email regexp, plus a dot in the domain (Chatwoot accepts `a@b`; nobody means that). */
export const EMAIL_RE = /^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$/;
/** E.164, as Chatwoot's Contact validation. */
export const PHONE_RE = /^\+[1-9]\d{1,14}$/;

const tooLong = (n: number) => `is too long (maximum is ${n} characters)`;

/** Strings are trimmed; blank strings and null mean "no value" (stored as NULL). */
function blankable<T extends z.ZodType>(inner: T) {
  return z.preprocess(
    (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : typeof v === 'number' ? String(v) : v),
    inner.nullable(),
  );
}

export const emailField = blankable(
  z
    .string({ error: 'must be a string' })
    .max(255, tooLong(255))
    .regex(EMAIL_RE, 'is invalid')
    .transform((s) => s.toLowerCase()),
);
export const phoneField = blankable(z.string({ error: 'must be a string' }).regex(PHONE_RE, 'should be in e164 format (e.g. +14155550123)'));
export const identifierField = blankable(z.string({ error: 'must be a string' }).max(255, tooLong(255)));
export const avatarUrlField = blankable(
  z
    .string({ error: 'must be a string' })
    .max(2048, tooLong(2048))
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
      } catch {
        return false;
      }
    }, 'must be an http(s) URL'),
);
export const nameField = z.preprocess(
  (v) => (v === null ? '' : typeof v === 'number' ? String(v) : v),
  z.string({ error: 'must be a string' }).trim().max(255, tooLong(255)),
);

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'must be a string, number, boolean or null (custom attributes are a flat object)',
});

/** Chatwoot keeps custom attributes as a flat key/value object; we hold it to that. */
export const customAttributesField = z
  .record(z.string().min(1, 'keys must not be empty').max(255, tooLong(255)), scalar, { error: 'must be an object' })
  .superRefine((o, ctx) => {
    if (Object.keys(o).length > 100) ctx.addIssue({ code: 'custom', message: 'must have at most 100 keys' });
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'string' && v.length > 10_000) ctx.addIssue({ code: 'custom', path: [k], message: tooLong(10_000) });
    }
  });

function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
  return 1 + children.reduce<number>((m, c) => Math.max(m, depth(c)), 0);
}

/** Free-form (city, country_code, company_name, social_profiles...), bounded in size and depth. */
export const additionalAttributesField = z
  .record(z.string().min(1).max(255, tooLong(255)), z.unknown(), { error: 'must be an object' })
  .refine((o) => JSON.stringify(o).length <= 16_384, 'is too large (maximum is 16 KB as JSON)')
  .refine((o) => depth(o) <= 4, 'is nested too deeply');

export const booleanish = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')], {
  error: 'must be true or false',
});

const MAX_ID = 2_147_483_647;
export const idField = z.union(
  [
    z.number().int().positive().max(MAX_ID),
    z
      .string()
      .regex(/^[0-9]{1,10}$/)
      .transform(Number)
      .pipe(z.number().int().positive().max(MAX_ID)),
  ],
  { error: 'must be a positive integer id' },
);

export const sourceIdField = z.preprocess(
  (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : v),
  z.string({ error: 'must be a string' }).min(1, 'must not be blank').max(255, tooLong(255)),
);

/** Fields an agent may set on a contact (flat body, or wrapped in `contact` as Chatwoot's wrap_parameters allows). */
export const contactFieldsSchema = z.object({
  name: nameField.optional(),
  email: emailField.optional(),
  phone_number: phoneField.optional(),
  identifier: identifierField.optional(),
  avatar_url: avatarUrlField.optional(),
  blocked: booleanish.optional(),
  additional_attributes: additionalAttributesField.optional(),
  custom_attributes: customAttributesField.optional(),
});
export type ContactFieldsInput = z.infer<typeof contactFieldsSchema>;

export const createContactSchema = contactFieldsSchema.extend({
  inbox_id: idField.optional(),
  source_id: sourceIdField.optional(),
});
export type CreateContactInput = z.infer<typeof createContactSchema>;

export const updateContactSchema = contactFieldsSchema;
export type UpdateContactInput = z.infer<typeof updateContactSchema>;

/** A hex HMAC-SHA256 (case is ignored); anything else cannot match and is refused as 401 by the check. */
const identifierHashField = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string({ error: 'must be a string' }).max(256, tooLong(256)).optional(),
);

/** SPEC 5 body (public contact create). `additional_attributes` is not a client's to set (Chatwoot drops it). */
export const publicCreateSchema = z.object({
  identifier: identifierField.optional(),
  identifier_hash: identifierHashField,
  email: emailField.optional(),
  name: nameField.optional(),
  phone_number: phoneField.optional(),
  avatar_url: avatarUrlField.optional(),
  custom_attributes: customAttributesField.optional(),
  source_id: sourceIdField.optional(),
});
export type PublicCreateInput = z.infer<typeof publicCreateSchema>;

/** Public update: the create fields but `source_id`; `identifier` only feeds the HMAC check, it is never changed here (as Chatwoot). */
export const publicUpdateSchema = publicCreateSchema.omit({ source_id: true });
export type PublicUpdateInput = z.infer<typeof publicUpdateSchema>;

/** Public show: the HMAC pair may come in the query. */
export const publicShowQuerySchema = z.object({
  identifier: z.string().max(255, tooLong(255)).optional(),
  identifier_hash: z.string().max(256, tooLong(256)).optional(),
});

export const LABEL_RE = /^[^,\s][^,]*$/;
export const labelsField = z
  .array(
    z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'must not be blank')
      .max(255, tooLong(255))
      .regex(LABEL_RE, 'must not contain commas'),
    { error: 'must be an array of strings' },
  )
  .max(100, 'must have at most 100 labels')
  .transform((ls) => [...new Set(ls)]);

export const labelsBodySchema = z.object({ labels: labelsField });

export const contactInboxBodySchema = z.object({
  inbox_id: idField,
  source_id: sourceIdField.optional(),
  hmac_verified: booleanish.optional(),
});

export const contactInboxFilterSchema = z.object({
  inbox_id: idField,
  source_id: sourceIdField,
});

export const destroyCustomAttributesSchema = z.object({
  custom_attributes: z.array(z.string().min(1).max(255), { error: 'must be an array of attribute keys' }).max(100),
});

export type SortKey = 'name' | 'email' | 'phone_number' | 'last_activity_at' | 'created_at';
export interface SortSpec {
  key: SortKey;
  desc: boolean;
}
const SORT_KEYS: readonly SortKey[] = ['name', 'email', 'phone_number', 'last_activity_at', 'created_at'];

/** `sort=name`, `sort=-last_activity_at`, or comma-separated keys (procore-sift); unknown keys are a bad request. */
export function parseSort(raw: string | undefined): SortSpec[] {
  if (raw === undefined || raw.trim() === '') return [];
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length > SORT_KEYS.length) throw badSort(raw);
  const out: SortSpec[] = [];
  for (const p of parts) {
    const desc = p.startsWith('-');
    const key = (desc ? p.slice(1) : p) as SortKey;
    if (!SORT_KEYS.includes(key) || out.some((s) => s.key === key)) throw badSort(raw);
    out.push({ key, desc });
  }
  return out;
}

function badSort(raw: string): BadRequestError {
  const message = `must be one of ${SORT_KEYS.join(', ')}, optionally prefixed with - for descending order`;
  return new BadRequestError(`sort: ${JSON.stringify(raw.slice(0, 100))} ${message}`, [{ field: 'sort', message, code: 'invalid_parameter' }], 'invalid_parameter');
}

const singleString = (field: string) =>
  z.union([z.string(), z.array(z.string()).length(1).transform((a) => a[0] as string)], { error: `${field} must be given once, as a string` });

export const listQuerySchema = z.object({
  sort: singleString('sort').optional(),
  page: queryInt.optional(),
  labels: stringList.optional(),
  include_contact_inboxes: z.enum(['true', 'false']).optional(),
});

export const searchQuerySchema = listQuerySchema.extend({
  q: singleString('q').pipe(z.string().trim().min(1, 'is required').max(255, tooLong(255))),
});

export const pageQuerySchema = z.object({
  sort: singleString('sort').optional(),
  page: queryInt.optional(),
});
