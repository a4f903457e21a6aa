import { z } from 'zod';
import { ValidationError } from './errors';

/**
 * Chatwoot's filter bodies (`POST /conversations/filter`, `POST /contacts/filter`, the `query`
 * of a saved custom filter): `{payload: [{attribute_key, filter_operator, values,
 * query_operator, custom_attribute_type?}], page?}`. The schema and the key catalogues live
 * here so that the service that answers a filter and the one that stores it (custom filters)
 * accept exactly the same bodies; each service turns the checked conditions into its own SQL.
 *
 * `query_operator` joins a condition to the NEXT one, in any case (`and`, `OR`). Conditions are
 * joined without grouping, as Chatwoot builds its SQL, so AND binds before OR:
 * `a AND b OR c` is `(a AND b) OR c`. The last condition's operator joins nothing: null, empty,
 * omitted or a trailing AND/OR are all accepted (Chatwoot answers a 500 to a trailing one).
 */

export const FILTER_OPERATORS = [
  'equal_to', 'not_equal_to', 'contains', 'does_not_contain', 'is_present', 'is_not_present', 'is_greater_than', 'is_less_than', 'days_before', 'starts_with',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export type FilterValue = string | number | boolean;

const filterValue = z.union([z.string().max(255, 'is too long (maximum is 255 characters)'), z.number(), z.boolean()], {
  error: 'must be strings, numbers or booleans',
});

export const filterConditionSchema = z.object({
  attribute_key: z.string({ error: 'must be a string' }).trim().min(1, 'must not be blank').max(255),
  filter_operator: z.enum(FILTER_OPERATORS, { error: `must be one of ${FILTER_OPERATORS.join(', ')}` }),
  // One value may come bare; null or nothing is no values (is_present needs none).
  values: z.preprocess(
    (v) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]),
    z.array(filterValue, { error: 'must be an array of values' }).max(100, 'must have at most 100 values'),
  ),
  query_operator: z.preprocess(
    (v) => (v === null || v === undefined || (typeof v === 'string' && v.trim() === '') ? undefined : typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.enum(['AND', 'OR'], { error: 'must be AND or OR (any case), or empty on the last condition' }).optional(),
  ),
  custom_attribute_type: z.string().max(64).nullable().optional(),
});
export type FilterCondition = z.infer<typeof filterConditionSchema>;

/** A page number in the body or the query: a positive integer or its digits. */
export const filterPage = z.union([z.number().int().positive().max(100_000), z.string().regex(/^[1-9][0-9]{0,4}$/, 'must be a positive integer').transform(Number)]);

export const filterBodySchema = z.object({
  payload: z
    .array(filterConditionSchema, { error: 'must be an array of conditions (Chatwoot sends them under payload)' })
    .min(1, 'must have at least one condition')
    .max(30, 'must have at most 30 conditions'),
  page: filterPage.optional(),
});
export type FilterBody = z.infer<typeof filterBodySchema>;

/** What a key holds, for checking its values. */
export type FilterValueKind = 'text' | 'number' | 'id' | 'date' | 'boolean' | 'labels' | 'enum';

export interface FilterKey {
  kind: FilterValueKind;
  operators: readonly FilterOperator[];
  /** `enum` keys: the names accepted. */
  values?: readonly string[];
}

const EQ = ['equal_to', 'not_equal_to'] as const;
const EQ_CONTAINS = [...EQ, 'contains', 'does_not_contain'] as const;
const EQ_PRESENT = [...EQ, 'is_present', 'is_not_present'] as const;
const DATE = ['is_greater_than', 'is_less_than', 'days_before'] as const;

/** Chatwoot's conversation filter keys (`lib/filters/filter_keys.yml`); any other key is a conversation custom attribute. */
export const CONVERSATION_FILTER_KEYS: Readonly<Record<string, FilterKey>> = {
  status: { kind: 'enum', operators: EQ, values: ['open', 'resolved', 'pending', 'snoozed', 'all'] },
  priority: { kind: 'enum', operators: EQ, values: ['low', 'medium', 'high', 'urgent', 'none'] },
  assignee_id: { kind: 'id', operators: EQ_PRESENT },
  inbox_id: { kind: 'id', operators: EQ_PRESENT },
  team_id: { kind: 'id', operators: EQ_PRESENT },
  campaign_id: { kind: 'id', operators: EQ_PRESENT },
  labels: { kind: 'labels', operators: EQ_PRESENT },
  display_id: { kind: 'number', operators: EQ_CONTAINS },
  browser_language: { kind: 'text', operators: EQ },
  conversation_language: { kind: 'text', operators: EQ },
  country_code: { kind: 'text', operators: EQ },
  referer: { kind: 'text', operators: EQ_CONTAINS },
  mail_subject: { kind: 'text', operators: EQ_CONTAINS },
  created_at: { kind: 'date', operators: DATE },
  last_activity_at: { kind: 'date', operators: DATE },
};

const TEXT_ALL = [...EQ_CONTAINS, 'is_present', 'is_not_present'] as const;
const DATE_ALL = [...DATE, 'is_present', 'is_not_present'] as const;

/**
 * Chatwoot's contact filter keys, with the operators we answer (a superset of Chatwoot's: text keys
 * also take is_present/is_not_present, dates too). Any other key is a contact custom attribute.
 */
export const CONTACT_FILTER_KEYS: Readonly<Record<string, FilterKey>> = {
  name: { kind: 'text', operators: TEXT_ALL },
  email: { kind: 'text', operators: TEXT_ALL },
  phone_number: { kind: 'text', operators: [...TEXT_ALL, 'starts_with'] },
  identifier: { kind: 'text', operators: TEXT_ALL },
  country_code: { kind: 'text', operators: TEXT_ALL },
  city: { kind: 'text', operators: TEXT_ALL },
  company: { kind: 'text', operators: TEXT_ALL },
  referer: { kind: 'text', operators: TEXT_ALL },
  created_at: { kind: 'date', operators: DATE_ALL },
  last_activity_at: { kind: 'date', operators: DATE_ALL },
  blocked: { kind: 'boolean', operators: EQ },
  labels: { kind: 'labels', operators: EQ_PRESENT },
};

const CONTACT_CUSTOM_KEY = /^[A-Za-z0-9_][A-Za-z0-9_ .-]{0,254}$/;

/**
 * A contact filter key outside the catalogue: any well-formed key is a custom attribute (the
 * contacts service holds no definitions), compared as text, or as a number with
 * is_greater_than / is_less_than.
 */
export function contactCustomFilterKey(key: string): FilterKey | undefined {
  return CONTACT_CUSTOM_KEY.test(key) ? { kind: 'text', operators: [...TEXT_ALL, 'is_greater_than', 'is_less_than'] } : undefined;
}

/** Operators of a custom attribute by its definition's display type. */
export function customAttributeFilterKey(displayType: string): FilterKey {
  switch (displayType) {
    case 'number':
    case 'currency':
    case 'percent':
      return { kind: 'number', operators: [...EQ, 'is_greater_than', 'is_less_than', 'is_present', 'is_not_present'] };
    case 'date':
      return { kind: 'date', operators: DATE_ALL };
    case 'checkbox':
      return { kind: 'boolean', operators: [...EQ, 'is_present', 'is_not_present'] };
    default: // text, link, list
      return { kind: 'text', operators: TEXT_ALL };
  }
}

/** A 422 naming one part of one condition: `payload.1.filter_operator`. */
export function filterError(index: number, field: 'attribute_key' | 'filter_operator' | 'values' | 'query_operator', message: string, code = 'invalid'): ValidationError {
  return ValidationError.field(`payload.${index}.${field}`, message, code);
}

/** A date value (ISO-8601 date or time, or unix seconds), or a 422 naming the condition. */
export function filterDate(index: number, values: readonly FilterValue[]): Date {
  const v = values[0];
  const d = typeof v === 'number' ? new Date(v * 1000) : typeof v === 'string' ? new Date(/^\d+$/.test(v) ? Number(v) * 1000 : v) : new Date(NaN);
  if (values.length !== 1 || Number.isNaN(d.getTime())) throw filterError(index, 'values', 'must be one date (ISO 8601 or unix seconds)');
  return d;
}

/** `days_before N`: one whole number of days. */
export function filterDays(index: number, values: readonly FilterValue[]): number {
  const n = Number(values[0]);
  if (values.length !== 1 || typeof values[0] === 'boolean' || !Number.isInteger(n) || n < 0 || n > 36_500) throw filterError(index, 'values', 'must be one whole number of days');
  return n;
}

/** One number (is_greater_than / is_less_than). */
export function filterNumber(index: number, values: readonly FilterValue[]): number {
  const n = typeof values[0] === 'boolean' ? NaN : Number(values[0]);
  if (values.length !== 1 || values[0] === '' || !Number.isFinite(n)) throw filterError(index, 'values', 'must be one number');
  return n;
}

/** Whole positive numbers (ids, display ids). */
export function filterIds(index: number, values: readonly FilterValue[]): number[] {
  return values.map((v) => {
    const n = typeof v === 'boolean' ? NaN : Number(v);
    if (v === '' || !Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw filterError(index, 'values', 'must be ids (whole numbers)');
    return n;
  });
}

/** true/false (also "true"/"false", 1/0). */
export function filterBoolean(index: number, values: readonly FilterValue[]): boolean {
  const v = values[0];
  const b = v === true || v === 'true' || v === 1 || v === '1' ? true : v === false || v === 'false' || v === 0 || v === '0' ? false : null;
  if (b === null || values.length !== 1) throw filterError(index, 'values', 'must be one of true or false');
  return b;
}

export interface CheckedCondition {
  index: number;
  condition: FilterCondition;
  key: FilterKey;
  /** The key is a custom attribute (not one of the catalogue's). */
  custom: boolean;
}

/**
 * Checks each condition against the catalogue (`customKey` resolves any other key, or says it is
 * none with undefined): the operator fits the key, values are present where needed and of the
 * key's kind. Throws the first problem as a 422 naming the condition.
 */
export function checkFilter(
  conditions: readonly FilterCondition[],
  catalogue: Readonly<Record<string, FilterKey>>,
  customKey: (key: string) => FilterKey | undefined,
): CheckedCondition[] {
  return conditions.map((condition, index) => {
    const std = Object.hasOwn(catalogue, condition.attribute_key) ? catalogue[condition.attribute_key] : undefined;
    const key = std ?? customKey(condition.attribute_key);
    if (!key) throw filterError(index, 'attribute_key', `is not a filter attribute (${Object.keys(catalogue).join(', ')}, or a custom attribute key)`);
    const op = condition.filter_operator;
    if (!key.operators.includes(op)) throw filterError(index, 'filter_operator', `must be one of ${key.operators.join(', ')} for ${condition.attribute_key}`);
    const values = condition.values;
    if (op === 'is_present' || op === 'is_not_present') return { index, condition, key, custom: !std };
    if (values.length === 0 || values.some((v) => v === '')) throw filterError(index, 'values', 'must not be empty');
    if (op === 'days_before') filterDays(index, values);
    else if (key.kind === 'date') filterDate(index, values);
    else if (op === 'is_greater_than' || op === 'is_less_than') filterNumber(index, values);
    else if (key.kind === 'id' || (key.kind === 'number' && std)) filterIds(index, values);
    else if (key.kind === 'number') values.forEach((v) => filterNumber(index, [v]));
    else if (key.kind === 'boolean') filterBoolean(index, values);
    else if (key.kind === 'enum') {
      const bad = values.find((v) => typeof v !== 'string' || !key.values?.includes(v.toLowerCase()));
      if (bad !== undefined) throw filterError(index, 'values', `must be among ${key.values?.join(', ')}`);
    }
    return { index, condition, key, custom: !std };
  });
}

/**
 * Joins the conditions' SQL (each already parenthesised by the caller or atomic) with their
 * query operators, left to right and without grouping: AND binds before OR, as in Chatwoot.
 * A missing operator between two conditions is AND; the last one's is ignored.
 */
export function joinFilterSql(parts: readonly string[], conditions: readonly FilterCondition[]): string {
  return parts.map((sql, i) => (i === 0 ? `(${sql})` : ` ${conditions[i - 1]?.query_operator ?? 'AND'} (${sql})`)).join('');
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
