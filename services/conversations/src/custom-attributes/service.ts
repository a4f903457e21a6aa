import { NotFoundError, ValidationError, diff, withTransaction, writeEvent, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import {
  deleteCustomAttributeRow, findCustomAttribute, insertCustomAttribute, updateCustomAttributeRow, type CustomAttributeFields, type CustomAttributeRow,
} from './repository';
import { STANDARD_ATTRIBUTES, type CreateCustomAttributeInput, type CustomAttributeResponse, type UpdateCustomAttributeInput } from './schemas';

/** Chatwoot's custom_attribute_definition partial. */
export function customAttributeData(r: CustomAttributeRow): CustomAttributeResponse {
  return {
    id: r.id,
    attribute_display_name: r.attribute_display_name,
    attribute_display_type: r.attribute_display_type,
    attribute_description: r.attribute_description,
    attribute_key: r.attribute_key,
    regex_pattern: r.regex_pattern,
    regex_cue: r.regex_cue,
    attribute_values: r.attribute_values,
    attribute_model: r.attribute_model,
    default_value: r.default_value,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/**
 * The rules a definition must keep whatever request made it: no key of a standard attribute
 * (Chatwoot's attribute_must_not_conflict), and a list has something to choose from.
 */
function assertValid(f: CustomAttributeFields): void {
  if (STANDARD_ATTRIBUTES[f.attribute_model].includes(f.attribute_key)) {
    throw ValidationError.field('attribute_key', 'is not allowed as it might conflict with default attributes', 'key_conflict');
  }
  if (f.attribute_display_type === 'list' && f.attribute_values.length === 0) {
    throw ValidationError.field('attribute_values', 'must list at least one value for a list attribute', 'required');
  }
}

export async function createCustomAttribute(pool: Pool, ctx: RequestContext, accountId: number, input: CreateCustomAttributeInput): Promise<CustomAttributeRow> {
  const fields: CustomAttributeFields = {
    attribute_display_name: input.attribute_display_name,
    attribute_display_type: input.attribute_display_type ?? 'text',
    attribute_description: input.attribute_description ?? null,
    attribute_key: input.attribute_key,
    attribute_model: input.attribute_model ?? 'conversation_attribute',
    attribute_values: input.attribute_values ?? [],
    default_value: input.default_value ?? null,
    regex_pattern: input.regex_pattern ?? null,
    regex_cue: input.regex_cue ?? null,
  };
  assertValid(fields);
  return withTransaction(pool, async (tx) => {
    // A duplicate (account, model, key) is a unique violation: 409 naming attribute_key.
    const row = await insertCustomAttribute(tx, accountId, fields);
    await writeEvent(tx, ctx, { type: 'custom_attribute_definition.created', accountId, data: customAttributeData(row) });
    return row;
  });
}

export async function updateCustomAttribute(pool: Pool, ctx: RequestContext, accountId: number, id: number, input: UpdateCustomAttributeInput): Promise<CustomAttributeRow> {
  return withTransaction(pool, async (tx) => {
    const before = await findCustomAttribute(tx, accountId, id, { forUpdate: true });
    if (!before) throw new NotFoundError('Custom attribute definition', 'id');
    const { id: _id, account_id: _account, created_at: _created, updated_at: _updated, ...current } = before;
    const fields: CustomAttributeFields = { ...current };
    for (const [k, v] of Object.entries(input)) if (v !== undefined) (fields as Record<string, unknown>)[k] = v;
    assertValid(fields);
    const changes = diff(current, fields);
    // Nothing changed: no write, no event.
    if (Object.keys(changes).length === 0) return before;
    const after = await updateCustomAttributeRow(tx, accountId, id, fields);
    await writeEvent(tx, ctx, { type: 'custom_attribute_definition.updated', accountId, data: customAttributeData(after), changes });
    return after;
  });
}

export async function deleteCustomAttribute(pool: Pool, ctx: RequestContext, accountId: number, id: number): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const row = await findCustomAttribute(tx, accountId, id, { forUpdate: true });
    if (!row) throw new NotFoundError('Custom attribute definition', 'id');
    // Values already stored under the key stay on conversations and contacts (Chatwoot).
    await deleteCustomAttributeRow(tx, accountId, id);
    await writeEvent(tx, ctx, { type: 'custom_attribute_definition.deleted', accountId, data: customAttributeData(row) });
  });
}
