import type { Changes } from '@parley/shared';
import { ATTRIBUTE_CHANGED, CONDITION_KEYS, MESSAGE_TYPES, type KeySpec } from '../rules/catalogue';
import type { Condition } from '../rules/schemas';

/**
 * Rule conditions compiled once per rule (when the account's rules are cached) and evaluated
 * in memory against the event's snapshots: Chatwoot builds SQL over conversations, contacts
 * and messages (`FilterService`); we apply the same operator semantics to the snapshot the
 * event carries, so evaluating hundreds of rules costs no query.
 */

type Json = Record<string, unknown>;

/** What conditions are evaluated against. */
export interface Facts {
  conversation: Json;
  message: Json | null;
  contact: Json | null;
  changes: Changes | null;
}

export interface CompiledCondition {
  /** True when the condition reads the contact (so the engine loads it only when needed). */
  needsContact: boolean;
  /** Joins this condition to the next one: `and` / `or` (null on the last). */
  join: 'and' | 'or' | null;
  test(f: Facts): boolean;
}

const lower = (v: unknown): string => String(v).toLowerCase();
const absent = (v: unknown): boolean => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

function getIn(obj: Json | null | undefined, key: string): unknown {
  if (!obj) return undefined;
  return obj[key];
}

function attrs(obj: Json | null | undefined, field: string): Json | null {
  const v = obj?.[field];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
}

/** Where a condition's value comes from, as a getter over the facts. */
function getterFor(c: Condition, spec: KeySpec | undefined): { get: (f: Facts) => unknown; needsContact: boolean } {
  if (c.custom_attribute_type === 'contact_attribute') return { get: (f) => getIn(attrs(f.contact, 'custom_attributes'), c.attribute_key), needsContact: true };
  if (c.custom_attribute_type === 'conversation_attribute') return { get: (f) => getIn(attrs(f.conversation, 'custom_attributes'), c.attribute_key), needsContact: false };
  if (!spec) return { get: () => undefined, needsContact: false };
  switch (spec.source) {
    case 'message':
      return { get: (f) => getIn(f.message, spec.path), needsContact: false };
    case 'conversation':
      return { get: (f) => getIn(f.conversation, spec.path), needsContact: false };
    case 'conversation_attr':
      return { get: (f) => getIn(attrs(f.conversation, 'additional_attributes'), spec.path), needsContact: false };
    case 'contact':
      return { get: (f) => getIn(f.contact, spec.path), needsContact: true };
    case 'contact_attr':
      return { get: (f) => getIn(attrs(f.contact, 'additional_attributes'), spec.path), needsContact: true };
  }
}

/** Values as the snapshot holds them: names to numbers for message_type, `nil`/`none` to null. */
function normaliseValues(c: Condition, spec: KeySpec | undefined): unknown[] {
  const values = Array.isArray(c.values) ? c.values : [];
  if (!spec || c.custom_attribute_type) return values.map(lower);
  switch (spec.values) {
    case 'message_type':
      return values.map((v) => (/^[0-3]$/.test(v) ? Number(v) : MESSAGE_TYPES.indexOf(v)));
    case 'priority':
      return values.map((v) => (v === 'nil' || v === 'none' ? null : v));
    case 'id':
      return values.map((v) => (v === 'nil' ? null : Number(v)));
    case 'status':
      return values;
    case 'text':
      return values.map(lower);
  }
}

function equalTest(c: Condition, spec: KeySpec | undefined, values: unknown[]): (actual: unknown) => boolean {
  // Chatwoot: labels compare the first value only ("has this label").
  if (c.attribute_key === 'labels' && !c.custom_attribute_type) {
    const wanted = values[0];
    return (actual) => Array.isArray(actual) && actual.some((l) => lower(l) === wanted);
  }
  if (spec?.values === 'status' && values.includes('all')) return () => true;
  if (!spec || c.custom_attribute_type || spec.values === 'text') {
    const set = new Set(values as string[]);
    return (actual) => !absent(actual) && set.has(lower(actual));
  }
  return (actual) => values.some((v) => v === (actual ?? null));
}

function compare(actual: unknown, wanted: string): number | null {
  const a = Number(actual);
  const b = Number(wanted);
  if (!absent(actual) && Number.isFinite(a) && Number.isFinite(b)) return a - b;
  const da = typeof actual === 'string' ? Date.parse(actual) : NaN;
  const db = Date.parse(wanted);
  if (Number.isFinite(da) && Number.isFinite(db)) return da - db;
  return null;
}

/** `attribute_changed`: the event's `changes` hold the key, moving from one of `from` to one of `to`. */
function changedTest(c: Condition, spec: KeySpec | undefined): (f: Facts) => boolean {
  const vals = Array.isArray(c.values) ? { from: [], to: [] } : c.values;
  const from = vals.from.map(lower);
  const to = vals.to.map(lower);
  const matches = (list: string[], v: unknown) => list.length === 0 || list.includes(v === null || v === undefined ? 'nil' : lower(v));
  return (f) => {
    if (!f.changes) return false;
    let pair: [unknown, unknown] | undefined;
    if (c.custom_attribute_type === 'conversation_attribute' || spec?.source === 'conversation_attr') {
      const field = c.custom_attribute_type ? 'custom_attributes' : 'additional_attributes';
      const key = c.custom_attribute_type ? c.attribute_key : (spec as KeySpec).path;
      const ch = f.changes[field];
      if (!ch) return false;
      const before = (ch[0] as Json | null)?.[key];
      const after = (ch[1] as Json | null)?.[key];
      if (JSON.stringify(before ?? null) === JSON.stringify(after ?? null)) return false;
      pair = [before, after];
    } else if (spec?.source === 'conversation') {
      pair = f.changes[spec.path];
    }
    if (!pair) return false;
    const [before, after] = pair;
    if (Array.isArray(after)) {
      // labels: a label in `to` was added, and a label in `from` was removed (an empty list: any).
      const b = (Array.isArray(before) ? before : []).map(lower);
      const a = after.map(lower);
      const added = a.filter((l) => !b.includes(l));
      const removed = b.filter((l) => !a.includes(l));
      if (added.length === 0 && removed.length === 0) return false;
      return (to.length === 0 || added.some((l) => to.includes(l))) && (from.length === 0 || removed.some((l) => from.includes(l)));
    }
    return matches(from, before) && matches(to, after);
  };
}

export function compileCondition(c: Condition): CompiledCondition {
  const spec = c.custom_attribute_type ? undefined : CONDITION_KEYS[c.attribute_key];
  const { get, needsContact } = getterFor(c, spec);
  const join = c.query_operator ? (c.query_operator.toLowerCase() as 'and' | 'or') : null;
  const values = normaliseValues(c, spec);
  const strings = values.filter((v): v is string => typeof v === 'string');
  let test: (f: Facts) => boolean;
  switch (c.filter_operator) {
    case 'equal_to': {
      const eq = equalTest(c, spec, values);
      test = (f) => eq(get(f));
      break;
    }
    case 'not_equal_to': {
      const eq = equalTest(c, spec, values);
      test = (f) => !eq(get(f));
      break;
    }
    case 'contains':
      test = (f) => {
        const a = get(f);
        return !absent(a) && strings.some((v) => lower(a).includes(v));
      };
      break;
    case 'does_not_contain':
      test = (f) => {
        const a = get(f);
        return absent(a) || strings.every((v) => !lower(a).includes(v));
      };
      break;
    case 'starts_with':
      test = (f) => {
        const a = get(f);
        return !absent(a) && strings.some((v) => lower(a).startsWith(v));
      };
      break;
    case 'is_present':
      test = (f) => !absent(get(f));
      break;
    case 'is_not_present':
      test = (f) => absent(get(f));
      break;
    case 'is_greater_than':
    case 'is_less_than': {
      const wanted = String(values[0] ?? '');
      const sign = c.filter_operator === 'is_greater_than' ? 1 : -1;
      test = (f) => {
        const d = compare(get(f), wanted);
        return d !== null && d * sign > 0;
      };
      break;
    }
    case ATTRIBUTE_CHANGED:
      test = changedTest(c, spec);
      break;
    default:
      // Validation refuses unknown operators; a rule stored before a catalogue change never matches.
      test = () => false;
  }
  return { needsContact, join, test };
}

/**
 * Evaluates every condition (so a run can show each result) and joins them left to right
 * by their query operators with SQL's precedence (AND binds tighter than OR), as Chatwoot's
 * generated WHERE clause does. No conditions: the rule matches every event of its name.
 */
export function evaluate(conditions: CompiledCondition[], f: Facts): { matched: boolean; results: boolean[] } {
  const results = conditions.map((c) => {
    try {
      return c.test(f);
    } catch {
      return false;
    }
  });
  if (results.length === 0) return { matched: true, results };
  let matched = false;
  let group = true;
  results.forEach((r, i) => {
    group = group && r;
    const join = i < conditions.length - 1 ? (conditions[i]?.join ?? 'and') : null;
    if (join !== 'and') {
      matched = matched || group;
      group = true;
    }
  });
  return { matched, results };
}
