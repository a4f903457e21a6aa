import { prepared, type Executor } from '@parley/shared';
import type { LabelInput } from './schemas';

export interface LabelRow {
  id: number;
  account_id: number;
  title: string;
  description: string | null;
  color: string;
  show_on_sidebar: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The list's columns: what the label JSON shows (parsing two timestamps a row was the largest JavaScript cost in the service's profile of this read). */
export type LabelListRow = Pick<LabelRow, 'id' | 'title' | 'description' | 'color' | 'show_on_sidebar'>;

/**
 * Prepared once per connection (db.ts `prepared`): Postgres parsed and planned this read on every
 * request, half of its CPU for the labels list (0.15 -> 0.08 ms a query, issue 12). Named
 * columns, so a column added to the table does not change its result type.
 */
const listLabelsQuery = prepared('SELECT id, title, description, color, show_on_sidebar FROM labels WHERE account_id = $1 ORDER BY title, id');

export async function listLabels(db: Executor, accountId: number): Promise<LabelListRow[]> {
  const { rows } = await db.query<LabelListRow>(listLabelsQuery([accountId]));
  return rows;
}

export async function findLabel(db: Executor, accountId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<LabelRow | null> {
  const { rows } = await db.query<LabelRow>(`SELECT * FROM labels WHERE account_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

export async function insertLabel(tx: Executor, accountId: number, input: LabelInput & { title: string }): Promise<LabelRow> {
  const { rows } = await tx.query<LabelRow>(
    `INSERT INTO labels (account_id, title, description, color, show_on_sidebar)
     VALUES ($1, $2, $3, coalesce($4, '#1f93ff'), coalesce($5, true)) RETURNING *`,
    [accountId, input.title, input.description ?? null, input.color ?? null, input.show_on_sidebar ?? null],
  );
  return rows[0] as LabelRow;
}

export async function updateLabelRow(tx: Executor, accountId: number, id: number, input: LabelInput): Promise<LabelRow> {
  const sets = ['updated_at = now()'];
  const values: unknown[] = [accountId, id];
  for (const key of ['title', 'description', 'color', 'show_on_sidebar'] as const) {
    if (input[key] === undefined) continue;
    values.push(input[key]);
    sets.push(`${key} = $${values.length}`);
  }
  const { rows } = await tx.query<LabelRow>(`UPDATE labels SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2 RETURNING *`, values);
  return rows[0] as LabelRow;
}

export async function deleteLabelRow(tx: Executor, accountId: number, id: number): Promise<void> {
  await tx.query('DELETE FROM labels WHERE account_id = $1 AND id = $2', [accountId, id]);
}

/** A renamed label keeps its conversations (Chatwoot's Labels::UpdateJob renames the taggings). */
export async function renameOnConversations(tx: Executor, accountId: number, from: string, to: string): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE conversations
        SET labels = (SELECT coalesce(array_agg(l ORDER BY first), '{}')
                        FROM (SELECT l, min(ord) AS first FROM unnest(array_replace(labels, $2, $3)) WITH ORDINALITY AS t (l, ord) GROUP BY l) d),
            updated_at = now()
      WHERE account_id = $1 AND labels @> ARRAY[$2]::text[]`,
    [accountId, from, to],
  );
  return rowCount ?? 0;
}
