import { z } from 'zod';
import { ValidationError } from '@parley/shared';
import type { SqlWhere } from './repository';

/**
 * POST /contacts/filter (Chatwoot's contact filter): `payload` is a list of conditions
 * `{attribute_key, filter_operator, values, query_operator}` joined left to right by each
 * condition's query_operator (`and`/`or`, SQL precedence as in Chatwoot's generated query).
 * Keys Chatwoot knows are columns or additional attributes; any other key is a custom attribute.
 */

type Kind = 'text' | 'date' | 'boolean' | 'labels' | 'custom';

interface KeyDef {
  kind: Kind;
  /** SQL expression of the value (text compared case-insensitively). */
  expr: string;
  operators: readonly string[];
}

const TEXT_OPS = ['equal_to', 'not_equal_to', 'contains', 'does_not_contain', 'is_present', 'is_not_present'] as const;
const DATE_OPS = ['is_greater_than', 'is_less_than', 'days_before', 'is_present', 'is_not_present'] as const;

const STANDARD_KEYS: Record<string, KeyDef> = {
  name: { kind: 'text', expr: 'name', operators: TEXT_OPS },
  email: { kind: 'text', expr: 'email', operators: TEXT_OPS },
  phone_number: { kind: 'text', expr: 'phone_number', operators: [...TEXT_OPS, 'starts_with'] },
  identifier: { kind: 'text', expr: 'identifier', operators: TEXT_OPS },
  country_code: { kind: 'text', expr: "additional_attributes->>'country_code'", operators: TEXT_OPS },
  city: { kind: 'text', expr: "additional_attributes->>'city'", operators: TEXT_OPS },
  company: { kind: 'text', expr: "additional_attributes->>'company_name'", operators: TEXT_OPS },
  referer: { kind: 'text', expr: "additional_attributes->>'referer'", operators: TEXT_OPS },
  created_at: { kind: 'date', expr: 'created_at', operators: DATE_OPS },
  last_activity_at: { kind: 'date', expr: 'last_activity_at', operators: DATE_OPS },
  blocked: { kind: 'boolean', expr: 'blocked', operators: ['equal_to', 'not_equal_to'] },
  labels: { kind: 'labels', expr: 'labels', operators: ['equal_to', 'not_equal_to', 'is_present', 'is_not_present'] },
};

const CUSTOM_OPS = [...TEXT_OPS, 'is_greater_than', 'is_less_than'] as const;
const CUSTOM_KEY_RE = /^[A-Za-z0-9_][A-Za-z0-9_ .-]{0,254}$/;

const valueSchema = z.union([z.string().max(255, 'is too long (maximum is 255 characters)'), z.number(), z.boolean()], { error: 'must be strings, numbers or booleans' });

export const filterConditionSchema = z.object({
  attribute_key: z.string({ error: 'must be a string' }).trim().min(1, 'must not be blank').max(255),
  filter_operator: z.string({ error: 'must be a string' }).trim().min(1, 'must not be blank'),
  values: z.preprocess((v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]), z.array(valueSchema).max(50, 'must have at most 50 values')),
  query_operator: z
    .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v === null ? undefined : v), z.enum(['and', 'or'], { error: 'must be and or or' }))
    .optional(),
  custom_attribute_type: z.string().optional(),
});
export type FilterCondition = z.infer<typeof filterConditionSchema>;

export const filterBodySchema = z.object({
  payload: z.array(filterConditionSchema, { error: 'must be an array of conditions' }).min(1, 'must have at least one condition').max(20, 'must have at most 20 conditions'),
  page: z.union([z.number().int().positive(), z.string().regex(/^[1-9][0-9]{0,8}$/).transform(Number)]).optional(),
});
export type FilterBody = z.infer<typeof filterBodySchema>;

function bad(i: number, field: string, message: string): ValidationError {
  return ValidationError.field(`payload.${i}.${field}`, message, 'invalid');
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function texts(values: Array<string | number | boolean>): string[] {
  return values.map((v) => String(v).toLowerCase());
}

function oneDate(i: number, values: Array<string | number | boolean>): Date {
  const v = values[0];
  const d = typeof v === 'number' ? new Date(v * 1000) : typeof v === 'string' ? new Date(/^\d+$/.test(v) ? Number(v) * 1000 : v) : new Date(NaN);
  if (values.length !== 1 || Number.isNaN(d.getTime())) throw bad(i, 'values', 'must be one date (ISO 8601 or unix seconds)');
  return d;
}

function conditionSql(where: SqlWhere, c: FilterCondition, i: number): string {
  const std = STANDARD_KEYS[c.attribute_key];
  if (!std && !CUSTOM_KEY_RE.test(c.attribute_key)) throw bad(i, 'attribute_key', 'is not a contact attribute');
  const def: KeyDef = std ?? { kind: 'custom', expr: `custom_attributes->>${where.p(c.attribute_key)}`, operators: CUSTOM_OPS };
  const op = c.filter_operator;
  if (!def.operators.includes(op)) throw bad(i, 'filter_operator', `must be one of ${def.operators.join(', ')} for ${c.attribute_key}`);
  const needsValues = op !== 'is_present' && op !== 'is_not_present';
  if (needsValues && c.values.length === 0) throw bad(i, 'values', 'must not be empty');
  const e = def.expr;

  if (def.kind === 'labels') {
    if (op === 'is_present') return `cardinality(labels) > 0`;
    if (op === 'is_not_present') return `cardinality(labels) = 0`;
    const p = where.p(c.values.map(String));
    return op === 'equal_to' ? `labels && ${p}::text[]` : `NOT (labels && ${p}::text[])`;
  }
  if (def.kind === 'boolean') {
    const v = c.values[0];
    const b = v === true || v === 'true' || v === 1 || v === '1' ? true : v === false || v === 'false' || v === 0 || v === '0' ? false : null;
    if (b === null || c.values.length !== 1) throw bad(i, 'values', 'must be one of true or false');
    return op === 'equal_to' ? `${e} = ${where.p(b)}` : `${e} <> ${where.p(b)}`;
  }
  if (def.kind === 'date') {
    if (op === 'is_present') return `${e} IS NOT NULL`;
    if (op === 'is_not_present') return `${e} IS NULL`;
    if (op === 'days_before') {
      const n = Number(c.values[0]);
      if (c.values.length !== 1 || !Number.isInteger(n) || n < 0 || n > 36500) throw bad(i, 'values', 'must be one whole number of days');
      return `${e} < now() - make_interval(days => ${where.p(n)}::int)`;
    }
    const d = oneDate(i, c.values);
    return op === 'is_greater_than' ? `${e} > ${where.p(d)}` : `${e} < ${where.p(d)}`;
  }
  // text and custom attributes
  switch (op) {
    case 'is_present':
      return `coalesce(${e}, '') <> ''`;
    case 'is_not_present':
      return `coalesce(${e}, '') = ''`;
    case 'equal_to':
      return `lower(${e}) = ANY(${where.p(texts(c.values))}::text[])`;
    case 'not_equal_to':
      // A missing value is "not equal" too (Chatwoot's NOT IN would drop NULLs; nobody means that).
      return `(${e} IS NULL OR NOT (lower(${e}) = ANY(${where.p(texts(c.values))}::text[])))`;
    case 'contains':
      return `(${texts(c.values).map((v) => `${e} ILIKE ${where.p(`%${escapeLike(v)}%`)}`).join(' OR ')})`;
    case 'does_not_contain':
      return `(${e} IS NULL OR NOT (${texts(c.values).map((v) => `${e} ILIKE ${where.p(`%${escapeLike(v)}%`)}`).join(' OR ')}))`;
    case 'starts_with':
      return `(${texts(c.values).map((v) => `${e} ILIKE ${where.p(`${escapeLike(v)}%`)}`).join(' OR ')})`;
    case 'is_greater_than':
    case 'is_less_than': {
      const n = Number(c.values[0]);
      if (c.values.length !== 1 || !Number.isFinite(n)) throw bad(i, 'values', 'must be one number');
      const cmp = op === 'is_greater_than' ? '>' : '<';
      // Only values that are numbers compare; anything else does not match.
      return `(CASE WHEN ${e} ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${e})::numeric ${cmp} ${where.p(n)}::numeric ELSE false END)`;
    }
  }
  throw bad(i, 'filter_operator', 'is not supported');
}

/** Adds the conditions to `where` as one parenthesised expression. */
export function applyFilter(where: SqlWhere, conditions: FilterCondition[]): void {
  let sql = '';
  conditions.forEach((c, i) => {
    const part = conditionSql(where, c, i);
    if (i === 0) sql = part;
    else sql += ` ${(conditions[i - 1]?.query_operator ?? 'and').toUpperCase()} ${part}`;
  });
  where.and(sql);
}
