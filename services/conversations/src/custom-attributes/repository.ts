import type { Executor } from '@parley/shared';
import type { AttributeModel, DisplayType } from './schemas';

export interface CustomAttributeRow {
  id: number;
  account_id: number;
  attribute_display_name: string;
  attribute_display_type: DisplayType;
  attribute_description: string | null;
  attribute_key: string;
  attribute_model: AttributeModel;
  attribute_values: string[];
  default_value: string | number | boolean | null;
  regex_pattern: string | null;
  regex_cue: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Every column a request sets (the defaults of a new definition already applied). */
export type CustomAttributeFields = Omit<CustomAttributeRow, 'id' | 'account_id' | 'created_at' | 'updated_at'>;

const COLUMNS = [
  'attribute_display_name', 'attribute_display_type', 'attribute_description', 'attribute_key', 'attribute_model', 'attribute_values', 'default_value',
  'regex_pattern', 'regex_cue',
] as const;

/** jsonb columns go to pg as JSON text (a bare JS string or array would not be JSON). */
function valueOf(f: CustomAttributeFields, k: (typeof COLUMNS)[number]): unknown {
  if (k === 'default_value') return f[k] === null ? null : JSON.stringify(f[k]);
  return k === 'attribute_values' ? JSON.stringify(f[k]) : f[k];
}

export async function listCustomAttributes(db: Executor, accountId: number, model: AttributeModel | undefined): Promise<CustomAttributeRow[]> {
  const { rows } =
    model === undefined
      ? await db.query<CustomAttributeRow>('SELECT * FROM custom_attribute_definitions WHERE account_id = $1 ORDER BY id', [accountId])
      : await db.query<CustomAttributeRow>('SELECT * FROM custom_attribute_definitions WHERE account_id = $1 AND attribute_model = $2 ORDER BY id', [accountId, model]);
  return rows;
}

export async function findCustomAttribute(db: Executor, accountId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<CustomAttributeRow | null> {
  const { rows } = await db.query<CustomAttributeRow>(
    `SELECT * FROM custom_attribute_definitions WHERE account_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, id],
  );
  return rows[0] ?? null;
}

export async function insertCustomAttribute(tx: Executor, accountId: number, f: CustomAttributeFields): Promise<CustomAttributeRow> {
  const { rows } = await tx.query<CustomAttributeRow>(
    `INSERT INTO custom_attribute_definitions (account_id, ${COLUMNS.join(', ')}) VALUES ($1, ${COLUMNS.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING *`,
    [accountId, ...COLUMNS.map((k) => valueOf(f, k))],
  );
  return rows[0] as CustomAttributeRow;
}

export async function updateCustomAttributeRow(tx: Executor, accountId: number, id: number, f: CustomAttributeFields): Promise<CustomAttributeRow> {
  const { rows } = await tx.query<CustomAttributeRow>(
    `UPDATE custom_attribute_definitions SET ${COLUMNS.map((k, i) => `${k} = $${i + 3}`).join(', ')}, updated_at = now()
      WHERE account_id = $1 AND id = $2 RETURNING *`,
    [accountId, id, ...COLUMNS.map((k) => valueOf(f, k))],
  );
  return rows[0] as CustomAttributeRow;
}

export async function deleteCustomAttributeRow(tx: Executor, accountId: number, id: number): Promise<void> {
  await tx.query('DELETE FROM custom_attribute_definitions WHERE account_id = $1 AND id = $2', [accountId, id]);
}
