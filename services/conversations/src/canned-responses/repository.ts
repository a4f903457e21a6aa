import type { Executor } from '@parley/shared';
import type { CannedResponseInput } from './schemas';

export interface CannedResponseRow {
  id: number;
  account_id: number;
  short_code: string;
  content: string;
  created_at: Date;
  updated_at: Date;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * Chatwoot's search: short code or content containing the term, those whose short code starts
 * with it first. The trigram index serves the contains-match.
 */
export async function listCannedResponses(db: Executor, accountId: number, search: string | undefined): Promise<CannedResponseRow[]> {
  if (!search) {
    const { rows } = await db.query<CannedResponseRow>('SELECT * FROM canned_responses WHERE account_id = $1 ORDER BY id', [accountId]);
    return rows;
  }
  const term = escapeLike(search);
  const { rows } = await db.query<CannedResponseRow>(
    `SELECT * FROM canned_responses
      WHERE account_id = $1 AND (short_code || ' ' || content) ILIKE $2
      ORDER BY CASE WHEN short_code ILIKE $3 THEN 0 WHEN short_code ILIKE $2 THEN 1 ELSE 2 END, id`,
    [accountId, `%${term}%`, `${term}%`],
  );
  return rows;
}

export async function findCannedResponse(db: Executor, accountId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<CannedResponseRow | null> {
  const { rows } = await db.query<CannedResponseRow>(`SELECT * FROM canned_responses WHERE account_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

export async function insertCannedResponse(tx: Executor, accountId: number, input: { short_code: string; content: string }): Promise<CannedResponseRow> {
  const { rows } = await tx.query<CannedResponseRow>('INSERT INTO canned_responses (account_id, short_code, content) VALUES ($1, $2, $3) RETURNING *', [accountId, input.short_code, input.content]);
  return rows[0] as CannedResponseRow;
}

export async function updateCannedResponseRow(tx: Executor, accountId: number, id: number, input: CannedResponseInput): Promise<CannedResponseRow> {
  const { rows } = await tx.query<CannedResponseRow>(
    `UPDATE canned_responses SET short_code = coalesce($3, short_code), content = coalesce($4, content), updated_at = now()
      WHERE account_id = $1 AND id = $2 RETURNING *`,
    [accountId, id, input.short_code ?? null, input.content ?? null],
  );
  return rows[0] as CannedResponseRow;
}

export async function deleteCannedResponseRow(tx: Executor, accountId: number, id: number): Promise<void> {
  await tx.query('DELETE FROM canned_responses WHERE account_id = $1 AND id = $2', [accountId, id]);
}
