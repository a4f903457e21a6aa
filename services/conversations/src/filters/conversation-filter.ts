import {
  checkFilter, CONVERSATION_FILTER_KEYS, customAttributeFilterKey, escapeLike, filterBoolean, filterDate, filterDays, filterIds, filterNumber, joinFilterSql,
  type CheckedCondition, type Executor, type FilterCondition, type FilterKey, type FilterValue,
} from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { listCustomAttributes } from '../custom-attributes/repository';
import { PAGE_SIZE } from '../conversations/list';

/**
 * `POST /conversations/filter` as SQL (Chatwoot's Conversations::FilterService): the checked
 * conditions joined left to right without grouping (AND before OR), inside the caller's
 * visibility, newest activity first. Better than Chatwoot where it answers oddly: `not_equal_to`
 * keeps records without a value (Chatwoot's `NOT IN` drops them for standard keys), `contains`
 * on `display_id` works (Chatwoot: 500), and `campaign_id` (no campaigns exist here) is never present.
 */

const STATUSES = ['open', 'resolved', 'pending', 'snoozed'];
const PRIORITIES: Record<string, number> = { low: 0, medium: 1, high: 2, urgent: 3, none: -1 };
const NUMERIC = `'^-?[0-9]+(\\.[0-9]+)?$'`;
const DAY_MS = 86_400_000;

/** Columns of the standard keys; additional attributes are read from the jsonb. */
const COLUMNS: Record<string, string> = {
  assignee_id: 'c.assignee_id',
  inbox_id: 'c.inbox_id',
  team_id: 'c.team_id',
  campaign_id: 'NULL::int',
  display_id: 'c.display_id',
  created_at: 'c.created_at',
  last_activity_at: 'c.last_activity_at',
};

/** Start of the UTC day of `d` (Chatwoot compares dates as `::date`). */
function dayStart(d: Date): Date {
  return new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
}

function lowerTexts(values: readonly FilterValue[]): string[] {
  return values.map((v) => String(v).toLowerCase());
}

function likes(values: readonly FilterValue[]): string[] {
  return values.map((v) => `%${escapeLike(String(v))}%`);
}

type Param = (v: unknown) => string;

function textSql(e: string, c: FilterCondition, p: Param): string {
  switch (c.filter_operator) {
    case 'is_present':
      return `coalesce(${e}, '') <> ''`;
    case 'is_not_present':
      return `coalesce(${e}, '') = ''`;
    case 'equal_to':
      return `lower(${e}) = ANY(${p(lowerTexts(c.values))}::text[])`;
    case 'not_equal_to':
      return `${e} IS NULL OR NOT lower(${e}) = ANY(${p(lowerTexts(c.values))}::text[])`;
    case 'contains':
      return `${e} ILIKE ANY(${p(likes(c.values))}::text[])`;
    case 'does_not_contain':
      return `${e} IS NULL OR NOT ${e} ILIKE ANY(${p(likes(c.values))}::text[])`;
    default:
      return 'false';
  }
}

function dateSql(e: string, cc: CheckedCondition, p: Param, now: Date): string {
  const c = cc.condition;
  if (c.filter_operator === 'is_present') return `${e} IS NOT NULL`;
  if (c.filter_operator === 'is_not_present') return `${e} IS NULL`;
  // As dates: "greater than the 3rd" starts on the 4th; days_before N is before (today - N).
  const bound =
    c.filter_operator === 'days_before'
      ? new Date(dayStart(now).getTime() - filterDays(cc.index, c.values) * DAY_MS)
      : c.filter_operator === 'is_greater_than'
        ? new Date(dayStart(filterDate(cc.index, c.values)).getTime() + DAY_MS)
        : dayStart(filterDate(cc.index, c.values));
  return c.filter_operator === 'is_greater_than' ? `${e} >= ${p(bound)}::timestamptz` : `${e} < ${p(bound)}::timestamptz`;
}

/** A custom attribute's value is json: numbers, dates and booleans are compared only where they parse. */
function customSql(cc: CheckedCondition, p: Param, now: Date): string {
  const c = cc.condition;
  const e = `(c.custom_attributes ->> ${p(c.attribute_key)})`;
  const op = c.filter_operator;
  if (op === 'is_present') return `coalesce(${e}, '') <> ''`;
  if (op === 'is_not_present') return `coalesce(${e}, '') = ''`;
  switch (cc.key.kind) {
    case 'number': {
      const num = (cmp: string) => `CASE WHEN ${e} ~ ${NUMERIC} THEN ${cmp} ELSE false END`;
      if (op === 'is_greater_than' || op === 'is_less_than') return num(`${e}::numeric ${op === 'is_greater_than' ? '>' : '<'} ${p(filterNumber(cc.index, c.values))}::numeric`);
      const set = `${e}::numeric = ANY(${p(c.values.map((v) => filterNumber(cc.index, [v])))}::numeric[])`;
      // Chatwoot: a custom attribute's not_equal_to also matches records without it.
      return op === 'equal_to' ? num(set) : `${e} IS NULL OR NOT (${num(set)})`;
    }
    case 'date': {
      const asDate = `CASE WHEN ${e} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' THEN left(${e}, 10)::date END`;
      const day = (d: Date) => `${p(d.toISOString().slice(0, 10))}::date`;
      if (op === 'days_before') return `coalesce(${asDate} < ${day(new Date(dayStart(now).getTime() - filterDays(cc.index, c.values) * DAY_MS))}, false)`;
      const d = filterDate(cc.index, c.values);
      return `coalesce(${asDate} ${op === 'is_greater_than' ? '>' : '<'} ${day(d)}, false)`;
    }
    case 'boolean': {
      const b = filterBoolean(cc.index, c.values);
      return op === 'equal_to' ? `lower(${e}) = ${p(String(b))}` : `${e} IS NULL OR lower(${e}) <> ${p(String(b))}`;
    }
    default:
      return textSql(e, c, p);
  }
}

function conditionSql(cc: CheckedCondition, p: Param, now: Date): string {
  const c = cc.condition;
  const op = c.filter_operator;
  if (cc.custom) return customSql(cc, p, now);
  const key = c.attribute_key;
  switch (key) {
    case 'status': {
      const wanted = [...new Set(lowerTexts(c.values).flatMap((v) => (v === 'all' ? STATUSES : [v])))];
      return `${op === 'equal_to' ? '' : 'NOT '}c.status = ANY(${p(wanted)}::text[])`;
    }
    case 'priority': {
      const wanted = lowerTexts(c.values).map((v) => PRIORITIES[v] ?? -2);
      return `${op === 'equal_to' ? '' : 'NOT '}coalesce(c.priority, -1) = ANY(${p(wanted)}::int[])`;
    }
    case 'labels':
      if (op === 'is_present') return 'cardinality(c.labels) > 0';
      if (op === 'is_not_present') return 'cardinality(c.labels) = 0';
      return `${op === 'equal_to' ? '' : 'NOT '}c.labels && ${p(c.values.map(String))}::text[]`;
    case 'display_id':
      if (op === 'contains' || op === 'does_not_contain') return `${op === 'contains' ? '' : 'NOT '}c.display_id::text LIKE ANY(${p(likes(c.values))}::text[])`;
      return `${op === 'equal_to' ? '' : 'NOT '}c.display_id = ANY(${p(filterIds(cc.index, c.values))}::int[])`;
    case 'created_at':
    case 'last_activity_at':
      return dateSql(COLUMNS[key] as string, cc, p, now);
  }
  if (cc.key.kind === 'id') {
    const col = COLUMNS[key] as string;
    if (op === 'is_present') return `${col} IS NOT NULL`;
    if (op === 'is_not_present') return `${col} IS NULL`;
    const set = `${col} = ANY(${p(filterIds(cc.index, c.values))}::int[])`;
    return op === 'equal_to' ? set : `${col} IS NULL OR NOT ${set}`;
  }
  return textSql(`(c.additional_attributes ->> ${p(key)})`, c, p);
}

/** The keys a filter of this account may use: the catalogue, then its conversation custom attribute definitions. */
export async function checkConversationFilter(db: Executor, accountId: number, conditions: readonly FilterCondition[]): Promise<CheckedCondition[]> {
  const needsDefinitions = conditions.some((c) => !Object.hasOwn(CONVERSATION_FILTER_KEYS, c.attribute_key));
  const defs = needsDefinitions ? await listCustomAttributes(db, accountId, 'conversation_attribute') : [];
  const byKey = new Map<string, FilterKey>(defs.map((d) => [d.attribute_key, customAttributeFilterKey(d.attribute_display_type)]));
  return checkFilter(conditions, CONVERSATION_FILTER_KEYS, (k) => byKey.get(k));
}

export interface FilterScope {
  accountId: number;
  /** null: every inbox (administrators, bots). */
  visibleInboxIds: number[] | null;
  userId: number | null;
}

/** The WHERE of a filter: the account, the caller's inboxes, then the conditions as one expression. */
export function filterWhere(scope: FilterScope, checked: readonly CheckedCondition[], now = new Date()): { where: string; values: unknown[] } {
  const values: unknown[] = [scope.accountId];
  const p: Param = (v) => {
    values.push(v);
    return `$${values.length}`;
  };
  const where = ['c.account_id = $1'];
  if (scope.visibleInboxIds !== null) where.push(`c.inbox_id = ANY(${p(scope.visibleInboxIds)}::int[])`);
  const parts = checked.map((cc) => conditionSql(cc, p, now));
  where.push(`(${joinFilterSql(parts, checked.map((cc) => cc.condition))})`);
  return { where: where.join(' AND '), values };
}

/** Counts and page queries (exported so the explain script shows exactly this SQL). */
export function filterQueries(scope: FilterScope, checked: readonly CheckedCondition[], page: number, now = new Date()): { count: { text: string; values: unknown[] }; page: { text: string; values: unknown[] } } {
  const { where, values } = filterWhere(scope, checked, now);
  const me = values.length + 1;
  return {
    count: {
      text: `SELECT count(*) FILTER (WHERE c.assignee_id = $${me})::int AS mine, count(*) FILTER (WHERE c.assignee_id IS NULL)::int AS unassigned, count(*)::int AS all
               FROM conversations c WHERE ${where}`,
      values: [...values, scope.userId ?? -1],
    },
    page: {
      text: `SELECT c.* FROM conversations c WHERE ${where} ORDER BY c.last_activity_at DESC, c.id DESC LIMIT $${me} OFFSET $${me + 1}`,
      values: [...values, PAGE_SIZE, (page - 1) * PAGE_SIZE],
    },
  };
}

export interface FilterCounts {
  mine_count: number;
  unassigned_count: number;
  all_count: number;
}

export async function runConversationFilter(db: Executor, scope: FilterScope, checked: readonly CheckedCondition[], page: number): Promise<{ meta: FilterCounts; rows: ConversationRow[] }> {
  const q = filterQueries(scope, checked, page);
  const counted = await db.query<{ mine: number; unassigned: number; all: number }>(q.count.text, q.count.values);
  const c = counted.rows[0] ?? { mine: 0, unassigned: 0, all: 0 };
  // Past the last page there is nothing to read; skip the OFFSET scan.
  const rows = (page - 1) * PAGE_SIZE < c.all ? (await db.query<ConversationRow>(q.page.text, q.page.values)).rows : [];
  return { meta: { mine_count: c.mine, unassigned_count: c.unassigned, all_count: c.all }, rows };
}
