import {
  checkFilter, CONTACT_FILTER_KEYS, contactCustomFilterKey, escapeLike, filterBodySchema, filterBoolean, filterDate, filterDays, filterNumber, joinFilterSql,
  type CheckedCondition, type FilterBody, type FilterCondition, type FilterValue,
} from '@parley/shared';
import type { SqlWhere } from './repository';

/**
 * POST /contacts/filter (Chatwoot's contact filter): the body schema, key catalogue and joining
 * are the kernel's (`filters.ts`, shared with the conversation filter and saved filters); this
 * file turns checked conditions into SQL over contacts. Keys Chatwoot knows are columns or
 * additional attributes; any other key is a custom attribute.
 */

/** SQL expressions of the catalogue's keys (the keys and their operators are the kernel's CONTACT_FILTER_KEYS). */
const EXPRESSIONS: Record<string, string> = {
  name: 'name',
  email: 'email',
  phone_number: 'phone_number',
  identifier: 'identifier',
  country_code: "additional_attributes->>'country_code'",
  city: "additional_attributes->>'city'",
  company: "additional_attributes->>'company_name'",
  referer: "additional_attributes->>'referer'",
  created_at: 'created_at',
  last_activity_at: 'last_activity_at',
  blocked: 'blocked',
  labels: 'labels',
};

export { filterBodySchema, type FilterBody, type FilterCondition };

function texts(values: readonly FilterValue[]): string[] {
  return values.map((v) => String(v).toLowerCase());
}

/** Chatwoot compares phone numbers as `+digits`: "1 555 0100" finds "+15550100". */
function phones(values: readonly FilterValue[]): string[] {
  return values.map((v) => `+${String(v).replace(/[^0-9]/g, '')}`);
}

function conditionSql(where: SqlWhere, cc: CheckedCondition): string {
  const c = cc.condition;
  const i = cc.index;
  const op = c.filter_operator;
  const e = cc.custom ? `custom_attributes->>${where.p(c.attribute_key)}` : (EXPRESSIONS[c.attribute_key] as string);
  const kind = cc.custom ? 'custom' : cc.key.kind;

  if (kind === 'labels') {
    if (op === 'is_present') return `cardinality(labels) > 0`;
    if (op === 'is_not_present') return `cardinality(labels) = 0`;
    const p = where.p(c.values.map(String));
    return op === 'equal_to' ? `labels && ${p}::text[]` : `NOT (labels && ${p}::text[])`;
  }
  if (kind === 'boolean') {
    const b = filterBoolean(i, c.values);
    return op === 'equal_to' ? `${e} = ${where.p(b)}` : `${e} <> ${where.p(b)}`;
  }
  if (kind === 'date') {
    if (op === 'is_present') return `${e} IS NOT NULL`;
    if (op === 'is_not_present') return `${e} IS NULL`;
    if (op === 'days_before') return `${e} < now() - make_interval(days => ${where.p(filterDays(i, c.values))}::int)`;
    const d = filterDate(i, c.values);
    return op === 'is_greater_than' ? `${e} > ${where.p(d)}` : `${e} < ${where.p(d)}`;
  }
  // text and custom attributes; phone numbers as +digits where they are compared whole or by prefix
  const isPhone = c.attribute_key === 'phone_number' && !cc.custom;
  const whole = isPhone ? phones(c.values).map((v) => v.toLowerCase()) : texts(c.values);
  switch (op) {
    case 'is_present':
      return `coalesce(${e}, '') <> ''`;
    case 'is_not_present':
      return `coalesce(${e}, '') = ''`;
    case 'equal_to':
      return `lower(${e}) = ANY(${where.p(whole)}::text[])`;
    case 'not_equal_to':
      // A missing value is "not equal" too (Chatwoot's NOT IN would drop NULLs; nobody means that).
      return `${e} IS NULL OR NOT (lower(${e}) = ANY(${where.p(whole)}::text[]))`;
    case 'contains':
      return `${e} ILIKE ANY(${where.p(texts(c.values).map((v) => `%${escapeLike(v)}%`))}::text[])`;
    case 'does_not_contain':
      return `${e} IS NULL OR NOT (${e} ILIKE ANY(${where.p(texts(c.values).map((v) => `%${escapeLike(v)}%`))}::text[]))`;
    case 'starts_with':
      // Chatwoot lists starts_with for phone numbers but runs it as equality; a prefix is what is meant.
      return `${e} ILIKE ANY(${where.p(whole.map((v) => `${escapeLike(v)}%`))}::text[])`;
    case 'is_greater_than':
    case 'is_less_than': {
      const n = filterNumber(i, c.values);
      const cmp = op === 'is_greater_than' ? '>' : '<';
      // Only values that are numbers compare; anything else does not match.
      return `CASE WHEN ${e} ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${e})::numeric ${cmp} ${where.p(n)}::numeric ELSE false END`;
    }
    default:
      return 'false';
  }
}

/**
 * Adds the conditions to `where` as one parenthesised expression, joined as Chatwoot joins them
 * (no grouping: AND binds before OR; the last condition's query_operator joins nothing).
 */
export function applyFilter(where: SqlWhere, conditions: FilterCondition[]): void {
  const checked = checkFilter(conditions, CONTACT_FILTER_KEYS, contactCustomFilterKey);
  where.and(joinFilterSql(checked.map((cc) => conditionSql(where, cc)), conditions));
}
