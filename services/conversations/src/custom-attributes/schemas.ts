import { z } from 'zod';

/** Chatwoot's enums, in their integer order (clients may send the name or the integer). */
export const DISPLAY_TYPES = ['text', 'number', 'currency', 'percent', 'link', 'date', 'list', 'checkbox'] as const;
export const ATTRIBUTE_MODELS = ['conversation_attribute', 'contact_attribute'] as const;
export type DisplayType = (typeof DISPLAY_TYPES)[number];
export type AttributeModel = (typeof ATTRIBUTE_MODELS)[number];

/**
 * Keys Chatwoot refuses because a conversation or contact already has a standard attribute
 * of that name (CustomAttributeDefinition::STANDARD_ATTRIBUTES).
 */
export const STANDARD_ATTRIBUTES: Record<AttributeModel, readonly string[]> = {
  conversation_attribute: [
    'status', 'priority', 'assignee_id', 'inbox_id', 'team_id', 'display_id', 'campaign_id', 'labels', 'browser_language', 'country_code', 'referer',
    'created_at', 'last_activity_at',
  ],
  contact_attribute: ['name', 'email', 'phone_number', 'identifier', 'country_code', 'city', 'company_name', 'created_at', 'last_activity_at', 'referer', 'blocked'],
};

function enumInput<T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.number().int().min(0).max(values.length - 1).transform((i) => values[i] as T[number])]);
}

export const displayTypeInput = enumInput(DISPLAY_TYPES);
export const attributeModelInput = enumInput(ATTRIBUTE_MODELS);

/** A JavaScript regular expression (the UI checks values with it), or nothing. */
const regexPattern = z
  .string()
  .max(1000)
  .nullable()
  .transform((v) => (v === '' ? null : v))
  .refine((v) => {
    if (v === null) return true;
    try {
      new RegExp(v);
      return true;
    } catch {
      return false;
    }
  }, 'is not a valid regular expression');

const fields = {
  attribute_display_name: z.string().trim().min(1).max(255),
  attribute_display_type: displayTypeInput,
  attribute_description: z.string().max(20_000).nullable(),
  /** Letters, digits, `_`, `.` and `-` (Chatwoot's later format rule): it is a key of custom_attributes. */
  attribute_key: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .regex(/^[\p{L}\p{N}_.-]+$/u, 'may only contain letters, digits, _, . and -'),
  attribute_model: attributeModelInput,
  /** The choices of a `list` attribute. */
  attribute_values: z.array(z.string().trim().min(1).max(255)).max(500),
  default_value: z.union([z.string().max(20_000), z.number(), z.boolean()]).nullable(),
  regex_pattern: regexPattern,
  regex_cue: z.string().max(255).nullable(),
};

export const createCustomAttributeBody = z.object(fields).partial({
  attribute_display_type: true,
  attribute_description: true,
  attribute_model: true,
  attribute_values: true,
  default_value: true,
  regex_pattern: true,
  regex_cue: true,
});
export type CreateCustomAttributeInput = z.infer<typeof createCustomAttributeBody>;

export const updateCustomAttributeBody = z.object(fields).partial();
export type UpdateCustomAttributeInput = z.infer<typeof updateCustomAttributeBody>;

/** `attribute_model` (name or 0/1); `filter_type` is what older Chatwoot clients sent for it. */
export const listCustomAttributesQuery = z.strictObject({
  attribute_model: z.union([z.enum(ATTRIBUTE_MODELS), z.enum(['0', '1']).transform((i) => ATTRIBUTE_MODELS[Number(i)] as AttributeModel)]).optional(),
  filter_type: z.union([z.enum(ATTRIBUTE_MODELS), z.enum(['0', '1']).transform((i) => ATTRIBUTE_MODELS[Number(i)] as AttributeModel)]).optional(),
});

/** Chatwoot's custom_attribute_definition partial (ISO timestamps). */
export const customAttributeResponse = z
  .object({
    id: z.number(),
    attribute_display_name: z.string(),
    attribute_display_type: z.enum(DISPLAY_TYPES),
    attribute_description: z.string().nullable(),
    attribute_key: z.string(),
    regex_pattern: z.string().nullable(),
    regex_cue: z.string().nullable(),
    attribute_values: z.array(z.string()),
    attribute_model: z.enum(ATTRIBUTE_MODELS),
    default_value: z.union([z.string(), z.number(), z.boolean()]).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'CustomAttributeDefinition' });
export type CustomAttributeResponse = z.infer<typeof customAttributeResponse>;
export const customAttributeListResponse = z.array(customAttributeResponse);
