import { z } from 'zod';
import {
  ACTION_NAMES,
  ATTRIBUTE_CHANGED,
  CONDITION_KEYS,
  CONVERSATION_STATUSES,
  CUSTOM_ATTRIBUTE_TYPES,
  CUSTOM_OPERATORS,
  MESSAGE_TYPES,
  PRIORITY_VALUES,
  RULE_EVENT_NAMES,
  STATUS_VALUES,
  UNSUPPORTED_CHATWOOT_ACTIONS,
  VALUELESS_OPERATORS,
  type ActionName,
  type ValueKind,
} from './catalogue';
import { checkTargetUrl } from '../webhooks/url-guard';

export interface Condition {
  attribute_key: string;
  filter_operator: string;
  values: string[] | { from: string[]; to: string[] };
  /** Always a string once stored (SPEC types it so): the last condition's, which joins nothing, defaults to `and`. */
  query_operator: string;
  custom_attribute_type?: string;
}

export interface Action {
  action_name: ActionName;
  /** Strings, as SPEC types them: ids sent as numbers are kept as their decimal text. */
  action_params: string[];
}

const scalar = z.union([z.string(), z.number()]);
const toStrings = (v: Array<string | number> | undefined): string[] => (v ?? []).map((x) => String(x));

function badValue(kind: ValueKind, v: string): string | null {
  switch (kind) {
    case 'status':
      return STATUS_VALUES.includes(v) ? null : `must be one of ${STATUS_VALUES.join(', ')}`;
    case 'priority':
      return PRIORITY_VALUES.includes(v) ? null : `must be one of ${PRIORITY_VALUES.join(', ')}`;
    case 'message_type':
      return MESSAGE_TYPES.includes(v) || /^[0-3]$/.test(v) ? null : `must be one of ${MESSAGE_TYPES.join(', ')}`;
    case 'id':
      return /^[1-9][0-9]{0,9}$/.test(v) || v === 'nil' ? null : 'must be a numeric id';
    case 'text':
      return v.length <= 1000 ? null : 'is too long (maximum is 1000 characters)';
  }
}

const conditionSchema = z
  .object({
    attribute_key: z.string().trim().min(1).max(255),
    filter_operator: z.string().trim().min(1).max(64),
    values: z
      .union([z.array(scalar).max(500), z.object({ from: z.array(scalar).max(500).optional(), to: z.array(scalar).max(500).optional() })])
      .nullable()
      .optional(),
    query_operator: z.string().nullable().optional(),
    custom_attribute_type: z.string().nullable().optional(),
  })
  .superRefine((c, ctx) => {
    const customType = c.custom_attribute_type || null;
    let operators: string[];
    let kind: ValueKind = 'text';
    if (customType) {
      if (!(CUSTOM_ATTRIBUTE_TYPES as readonly string[]).includes(customType)) {
        ctx.addIssue({ code: 'custom', path: ['custom_attribute_type'], message: `must be one of ${CUSTOM_ATTRIBUTE_TYPES.join(', ')}` });
        return;
      }
      if (!/^[A-Za-z0-9_.-]+$/.test(c.attribute_key)) {
        ctx.addIssue({ code: 'custom', path: ['attribute_key'], message: 'is not a valid custom attribute key' });
        return;
      }
      operators = CUSTOM_OPERATORS;
    } else {
      const spec = CONDITION_KEYS[c.attribute_key];
      if (!spec) {
        ctx.addIssue({
          code: 'custom',
          path: ['attribute_key'],
          message: `is not supported (one of ${Object.keys(CONDITION_KEYS).join(', ')}, or a custom attribute with custom_attribute_type)`,
        });
        return;
      }
      operators = spec.operators;
      kind = spec.values;
    }
    const op = c.filter_operator;
    if (op !== ATTRIBUTE_CHANGED && !operators.includes(op)) {
      ctx.addIssue({ code: 'custom', path: ['filter_operator'], message: `is not valid for ${c.attribute_key} (one of ${[...operators, ATTRIBUTE_CHANGED].join(', ')})` });
      return;
    }
    if (c.query_operator !== undefined && c.query_operator !== null && c.query_operator !== '' && !/^(and|or)$/i.test(c.query_operator)) {
      ctx.addIssue({ code: 'custom', path: ['query_operator'], message: 'must be either "AND" or "OR"' });
    }
    if (VALUELESS_OPERATORS.has(op)) return;
    if (op === ATTRIBUTE_CHANGED) {
      if (!c.values || Array.isArray(c.values)) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: 'must be an object {from: [...], to: [...]} for attribute_changed' });
      }
      return;
    }
    if (!Array.isArray(c.values) || c.values.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'must be a non-empty array of strings' });
      return;
    }
    c.values.forEach((v, i) => {
      const problem = badValue(kind, String(v).trim());
      if (problem) ctx.addIssue({ code: 'custom', path: ['values', i], message: problem });
    });
  })
  .transform((c) => {
    const values = Array.isArray(c.values)
      ? c.values.map((v) => String(v).trim())
      : c.values
        ? { from: toStrings(c.values.from), to: toStrings(c.values.to) }
        : [];
    const out: Omit<Condition, 'query_operator'> & { query_operator: string | null } = {
      attribute_key: c.attribute_key,
      filter_operator: c.filter_operator,
      values,
      query_operator: c.query_operator ? c.query_operator : null,
    };
    if (c.custom_attribute_type) out.custom_attribute_type = c.custom_attribute_type;
    return out;
  });

const conditionsSchema = z
  .array(conditionSchema)
  .max(100)
  .superRefine((list, ctx) => {
    // Conditions are joined left to right by each one's query_operator: only the last may go without.
    list.forEach((c, i) => {
      if (i < list.length - 1 && !c.query_operator) {
        ctx.addIssue({ code: 'custom', path: [i, 'query_operator'], message: 'is required ("AND" or "OR") on every condition but the last' });
      }
    });
  })
  .transform((list): Condition[] => list.map((c) => ({ ...c, query_operator: c.query_operator ?? 'and' })));

function actionSchema(allowPrivate: boolean) {
  return z
    .object({
      action_name: z.string().trim().min(1).max(64),
      action_params: z.array(z.unknown()).max(100).nullable().optional(),
    })
    .superRefine((a, ctx) => {
      const name = a.action_name;
      if (!(ACTION_NAMES as readonly string[]).includes(name)) {
        const why = UNSUPPORTED_CHATWOOT_ACTIONS.includes(name) ? 'is not supported by this service' : `is not a known action (one of ${ACTION_NAMES.join(', ')})`;
        ctx.addIssue({ code: 'custom', path: ['action_name'], message: why });
        return;
      }
      const params = a.action_params ?? [];
      const issue = (message: string, index?: number) => ctx.addIssue({ code: 'custom', path: index === undefined ? ['action_params'] : ['action_params', index], message });
      const single = (): unknown => {
        if (params.length !== 1) {
          issue('must hold exactly one value');
          return undefined;
        }
        return params[0];
      };
      const isId = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v <= 2_147_483_647) || (typeof v === 'string' && /^[1-9][0-9]{0,9}$/.test(v) && Number(v) <= 2_147_483_647);
      switch (name as ActionName) {
        case 'add_label':
        case 'remove_label':
          if (params.length === 0) issue('must name at least one label');
          params.forEach((p, i) => {
            if (typeof p !== 'string' || p.trim() === '' || p.length > 255) issue('must be a non-empty label name', i);
          });
          return;
        case 'assign_agent': {
          const v = single();
          if (params.length === 1 && !isId(v) && v !== 'nil') issue('must be an agent id or "nil"', 0);
          return;
        }
        case 'assign_team': {
          if (params.length === 0) return;
          const v = single();
          if (params.length === 1 && !isId(v) && v !== 'nil' && v !== 0 && v !== '0') issue('must be a team id or "nil"', 0);
          return;
        }
        case 'change_priority': {
          const v = single();
          if (params.length === 1 && (typeof v !== 'string' || !PRIORITY_VALUES.includes(v))) issue(`must be one of ${PRIORITY_VALUES.join(', ')}`, 0);
          return;
        }
        case 'change_status': {
          const v = single();
          if (params.length === 1 && (typeof v !== 'string' || !(CONVERSATION_STATUSES as readonly string[]).includes(v))) issue(`must be one of ${CONVERSATION_STATUSES.join(', ')}`, 0);
          return;
        }
        case 'send_message':
        case 'add_private_note': {
          const v = single();
          if (params.length === 1 && (typeof v !== 'string' || v.trim() === '' || v.length > 150_000)) issue('must be a non-empty message text', 0);
          return;
        }
        case 'send_webhook_event': {
          const v = single();
          if (params.length !== 1) return;
          const problem = typeof v === 'string' && v.length <= 2048 ? checkTargetUrl(v, allowPrivate) : 'invalid';
          if (problem === 'invalid') issue('must be an http(s) URL', 0);
          else if (problem === 'private') issue('must not target a private, loopback or link-local address', 0);
          return;
        }
        default:
          if (params.length > 0) issue('must be empty for this action');
      }
    })
    .transform((a): Action => {
      const name = a.action_name as ActionName;
      const params = (a.action_params ?? []) as Array<string | number>;
      if (name === 'add_label' || name === 'remove_label') return { action_name: name, action_params: params.map((p) => String(p).trim()) };
      return { action_name: name, action_params: params.map(String) };
    });
}

const bool = z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');

export function ruleSchemas(allowPrivate: boolean) {
  const fields = {
    name: z.string().trim().min(1).max(255),
    description: z.string().max(20_000).nullable().optional(),
    event_name: z.enum(RULE_EVENT_NAMES),
    active: bool.optional(),
    conditions: conditionsSchema,
    actions: z.array(actionSchema(allowPrivate)).min(1).max(50),
  };
  return {
    create: z.object(fields),
    update: z.object(fields).partial(),
  };
}

export type RuleCreateInput = z.infer<ReturnType<typeof ruleSchemas>['create']>;
export type RuleUpdateInput = z.infer<ReturnType<typeof ruleSchemas>['update']>;

/** A rule as the API answers it (Chatwoot's `_automation_rule.json.jbuilder` without files). */
export const conditionResponse = z.object({
  attribute_key: z.string(),
  filter_operator: z.string(),
  values: z.union([z.array(z.string()), z.object({ from: z.array(z.string()), to: z.array(z.string()) })]),
  query_operator: z.string(),
  custom_attribute_type: z.string().optional(),
});
export const actionResponse = z.object({
  action_name: z.string(),
  action_params: z.array(z.string()),
});
export const ruleResponse = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  name: z.string(),
  /** SPEC types it a string: a rule made without one answers `""`. */
  description: z.string(),
  event_name: z.string(),
  conditions: z.array(conditionResponse),
  actions: z.array(actionResponse),
  created_on: z.number().int(),
  active: z.boolean(),
});
export type RuleJson = z.infer<typeof ruleResponse>;

/** What one action of a run did. */
export const runActionResponse = z.object({
  action_name: z.string(),
  /** `done`, `duplicate` (an earlier delivery of the event ran it already), `failed`. */
  status: z.enum(['done', 'duplicate', 'failed']),
  error: z.string().optional(),
});
export const runErrorResponse = z.object({ action_name: z.string().nullable(), message: z.string(), code: z.string() });
export const runResponse = z.object({
  id: z.number().int(),
  rule_id: z.number().int(),
  event_id: z.string(),
  /** The bus event (`message.created`) and the rule event it maps to (`message_created`). */
  event_type: z.string(),
  event_name: z.string(),
  conversation_id: z.number().int().nullable(),
  message_id: z.number().int().nullable(),
  matched: z.boolean(),
  reason: z.string().nullable(),
  condition_results: z.array(z.boolean().nullable()),
  actions: z.array(runActionResponse),
  errors: z.array(runErrorResponse),
  created_at: z.number().int(),
});
export type RunJson = z.infer<typeof runResponse>;

export const ruleCreateResponse = z.object({ payload: z.array(ruleResponse) });
export const ruleListResponse = z.object({ payload: z.array(ruleResponse) });
export const ruleShowResponse = z.object({ payload: ruleResponse });
export const runsListResponse = z.object({
  meta: z.object({ count: z.number().int(), current_page: z.number().int(), per_page: z.number().int() }),
  payload: z.array(runResponse),
});
export const emptyResponse = z.object({});
export const runsQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1) });
