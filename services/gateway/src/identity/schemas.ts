import { z } from 'zod';
import { agentContract, teamContract } from '@parley/shared';

/** Chatwoot caps string columns at 255 characters and text columns at 20,000. */
const name = z.string().trim().min(1, 'must not be blank').max(255);
const optionalText = (max: number) => z.string().max(max).nullable().optional();
const email = z.email('is not a valid email').max(255).transform((v) => v.trim());
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);
const flatObject = z.record(z.string().max(255), z.unknown());
const id = z.number().int().positive().max(2_147_483_647);
/** An id that may come as a form field (multipart bodies carry only strings). */
const formId = z.union([id, z.string().regex(/^[0-9]{1,10}$/).transform(Number).pipe(id)], { error: 'must be a positive integer id' });
export const roleInput = z.enum(['agent', 'administrator']);
const availability = z.enum(['online', 'offline', 'busy']);

/**
 * Devise's length plus Chatwoot's secure_password rule: an upper-case and a lower-case letter,
 * a digit and a special character.
 */
export const password = z
  .string()
  .min(6, 'is too short (minimum is 6 characters)')
  .max(128, 'is too long (maximum is 128 characters)')
  .refine((p) => /[A-Z]/.test(p) && /[a-z]/.test(p) && /[0-9]/.test(p) && /[^A-Za-z0-9]/.test(p), {
    message: 'must contain an uppercase letter, a lowercase letter, a number and a special character',
  });

// ---- Platform API -------------------------------------------------------------------------

export const platformAccountCreate = z.strictObject({
  name,
  locale: z.string().min(2).max(10).optional(),
  domain: optionalText(255),
  support_email: email.nullable().optional(),
  status: z.enum(['active', 'suspended']).optional(),
  features: z.record(z.string().max(100), z.boolean()).optional(),
  limits: flatObject.optional(),
  custom_attributes: flatObject.optional(),
});
export const platformAccountUpdate = platformAccountCreate.partial();

export const platformUserCreate = z.strictObject({
  name,
  display_name: optionalText(255),
  email,
  password: password.optional(),
  custom_attributes: flatObject.optional(),
});
export const platformUserUpdate = platformUserCreate.partial();

export const accountUserCreate = z.strictObject({ user_id: id, role: roleInput.default('agent') });
export const accountUserDelete = z.strictObject({ user_id: id });

const botFields = {
  name,
  description: optionalText(20_000),
  outgoing_url: httpUrl.nullable().optional(),
  avatar_url: httpUrl.nullable().optional(),
  bot_type: z.enum(['webhook']).optional(),
  bot_config: flatObject.optional(),
};
export const platformBotCreate = z.strictObject({ ...botFields, account_id: id.nullable().optional() });
export const platformBotUpdate = platformBotCreate.partial();
export const accountBotCreate = z.strictObject(botFields);
export const accountBotUpdate = accountBotCreate.partial();

// ---- Account API ----------------------------------------------------------------------------

export const profileUpdate = z
  .strictObject({
    name: name.optional(),
    display_name: optionalText(255),
    email: email.optional(),
    message_signature: optionalText(20_000),
    avatar_url: httpUrl.nullable().optional(),
    ui_settings: flatObject.optional(),
    phone_number: z.string().regex(/^\+[1-9]\d{1,14}$/, 'must be in E.164 format').nullable().optional(),
    account_id: formId.optional(),
    current_password: z.string().max(128).optional(),
    password: password.optional(),
    password_confirmation: z.string().max(128).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.password === undefined) return;
    if (v.password_confirmation !== undefined && v.password_confirmation !== v.password) {
      ctx.addIssue({ code: 'custom', path: ['password_confirmation'], message: "doesn't match Password" });
    }
    if (v.current_password === undefined) ctx.addIssue({ code: 'custom', path: ['current_password'], message: 'is required to change the password' });
  });

export const availabilityUpdate = z.strictObject({ availability, account_id: id.optional() });

export const agentCreate = z.strictObject({
  name,
  email,
  role: roleInput.default('agent'),
  availability: availability.optional(),
  auto_offline: z.boolean().optional(),
});
export const agentUpdate = z.strictObject({
  name: name.optional(),
  role: roleInput.optional(),
  availability: availability.optional(),
  auto_offline: z.boolean().optional(),
});

export const teamCreate = z.strictObject({
  name,
  description: optionalText(20_000),
  allow_auto_assign: z.boolean().optional(),
});
export const teamUpdate = teamCreate.partial();
export const teamMembersBody = z.strictObject({ user_ids: z.array(id).min(1).max(1000) });

export const accountUpdate = z.strictObject({
  name: name.optional(),
  locale: z.string().min(2).max(10).optional(),
  domain: optionalText(255),
  support_email: email.nullable().optional(),
});

// ---- Answers (for the OpenAPI document and contract checks) ---------------------------------

const unixOrIso = z.string().nullable();

export const accountSchema = z.object({
  id: z.number(),
  name: z.string(),
  locale: z.string(),
  domain: z.string().nullable(),
  support_email: z.string().nullable(),
  features: z.record(z.string(), z.boolean()),
  custom_attributes: z.record(z.string(), z.unknown()),
  status: z.string(),
});
export const platformAccountSchema = accountSchema.extend({ limits: z.record(z.string(), z.unknown()) });

export const membershipSchema = z.object({
  id: z.number(),
  name: z.string(),
  status: z.string(),
  active_at: unixOrIso,
  role: roleInput,
  permissions: z.array(z.string()),
  availability: z.string(),
  availability_status: z.string(),
  auto_offline: z.boolean(),
  custom_role_id: z.number().nullable(),
  custom_role: z.record(z.string(), z.unknown()).nullable(),
});

/** SPEC's User record (operation 8). */
export const userRecordSchema = z.object({
  id: z.number(),
  access_token: z.string(),
  account_id: z.number().nullable(),
  available_name: z.string(),
  avatar_url: z.string(),
  confirmed: z.boolean(),
  display_name: z.string().nullable(),
  message_signature: z.string().nullable(),
  email: z.string(),
  hmac_identifier: z.string(),
  inviter_id: z.number().nullable(),
  name: z.string(),
  provider: z.string(),
  pubsub_token: z.string(),
  role: roleInput.nullable(),
  ui_settings: z.record(z.string(), z.unknown()),
  uid: z.string(),
  type: z.string().nullable(),
  custom_attributes: z.record(z.string(), z.unknown()).optional(),
  accounts: z.array(membershipSchema),
});

/** The agent JSON (Chatwoot's `_agent`): the Agent contract the gateway also publishes. */
export const agentSchema = agentContract;

export const accountUserSchema = z.object({
  id: z.number(),
  account_id: z.number(),
  user_id: z.number(),
  role: roleInput,
  inviter_id: z.number().nullable(),
  created_at: unixOrIso,
  updated_at: unixOrIso,
  active_at: unixOrIso,
  availability: z.string(),
  auto_offline: z.boolean(),
  custom_role_id: z.number().nullable(),
  agent_capacity_policy_id: z.number().nullable(),
});

/** Chatwoot's team JSON: the Team contract and whether the caller is a member. */
export const teamSchema = teamContract.extend({ is_member: z.boolean() });

export const botSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string().nullable(),
  thumbnail: z.string(),
  outgoing_url: z.string().nullable(),
  bot_type: z.string(),
  bot_config: z.record(z.string(), z.unknown()),
  account_id: z.number().nullable(),
  system_bot: z.boolean(),
  access_token: z.string().optional(),
});

export const userTokenSchema = z.object({
  access_token: z.string(),
  expiry: z.null(),
  user: z.object({ id: z.number(), name: z.string(), display_name: z.string().nullable(), email: z.string(), pubsub_token: z.string() }),
});

export const emptyObject = z.object({}).strict();
