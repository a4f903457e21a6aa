import { prepared, type Executor } from '@parley/shared';
import { INBOX_COLUMNS, type InboxRow } from '../common/rows';

export const INBOX_SETTINGS = [
  'name', 'avatar_url', 'greeting_enabled', 'greeting_message', 'enable_auto_assignment', 'working_hours_enabled',
  'out_of_office_message', 'timezone', 'csat_survey_enabled', 'allow_messages_after_resolved', 'lock_to_single_conversation',
  'webhook_url', 'hmac_mandatory', 'additional_attributes', 'working_hours',
] as const;
export type InboxSettings = Partial<Record<(typeof INBOX_SETTINGS)[number], unknown>>;

export async function insertInbox(tx: Executor, accountId: number, identifier: string, hmacToken: string, s: InboxSettings): Promise<InboxRow> {
  const cols = ['account_id', 'identifier', 'hmac_token'];
  const values: unknown[] = [accountId, identifier, hmacToken];
  for (const k of INBOX_SETTINGS) {
    if (s[k] === undefined) continue;
    cols.push(k);
    values.push(k === 'additional_attributes' || k === 'working_hours' ? JSON.stringify(s[k]) : s[k]);
  }
  const { rows } = await tx.query<InboxRow>(`INSERT INTO inboxes (${cols.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`, values);
  return rows[0] as InboxRow;
}

export async function updateInboxRow(tx: Executor, accountId: number, id: number, s: InboxSettings): Promise<InboxRow | null> {
  const sets = ['updated_at = now()'];
  const values: unknown[] = [accountId, id];
  for (const k of INBOX_SETTINGS) {
    if (s[k] === undefined) continue;
    values.push(k === 'additional_attributes' || k === 'working_hours' ? JSON.stringify(s[k]) : s[k]);
    sets.push(`${k} = $${values.length}`);
  }
  const { rows } = await tx.query<InboxRow>(`UPDATE inboxes SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2 RETURNING *`, values);
  return rows[0] ?? null;
}

export async function findInbox(db: Executor, accountId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<InboxRow | null> {
  const { rows } = await db.query<InboxRow>(`SELECT * FROM inboxes WHERE account_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

// Prepared: every public API call finds its inbox so.
const inboxByIdentifier = prepared(`SELECT ${INBOX_COLUMNS} FROM inboxes WHERE identifier = $1`);

export async function findInboxByIdentifier(db: Executor, identifier: string): Promise<InboxRow | null> {
  const { rows } = await db.query<InboxRow>(inboxByIdentifier([identifier]));
  return rows[0] ?? null;
}

/** `ids` null: every inbox of the account. */
export async function listInboxes(db: Executor, accountId: number, ids: number[] | null): Promise<InboxRow[]> {
  const { rows } =
    ids === null
      ? await db.query<InboxRow>('SELECT * FROM inboxes WHERE account_id = $1 ORDER BY id', [accountId])
      : await db.query<InboxRow>('SELECT * FROM inboxes WHERE account_id = $1 AND id = ANY($2::int[]) ORDER BY id', [accountId, ids]);
  return rows;
}

export async function deleteInboxRow(tx: Executor, accountId: number, id: number): Promise<void> {
  await tx.query('DELETE FROM inboxes WHERE account_id = $1 AND id = $2', [accountId, id]);
}

export interface InboxMemberRow {
  id: number;
  account_id: number;
  inbox_id: number;
  user_id: number;
}

export async function listMembers(db: Executor, accountId: number, inboxId: number): Promise<InboxMemberRow[]> {
  const { rows } = await db.query<InboxMemberRow>('SELECT id, account_id, inbox_id, user_id FROM inbox_members WHERE account_id = $1 AND inbox_id = $2 ORDER BY id', [accountId, inboxId]);
  return rows;
}

export async function addMembers(tx: Executor, accountId: number, inboxId: number, userIds: number[]): Promise<InboxMemberRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await tx.query<InboxMemberRow>(
    `INSERT INTO inbox_members (account_id, inbox_id, user_id) SELECT $1, $2, u FROM unnest($3::int[]) AS u
     ON CONFLICT (inbox_id, user_id) DO NOTHING RETURNING id, account_id, inbox_id, user_id`,
    [accountId, inboxId, userIds],
  );
  return rows;
}

export async function removeMembers(tx: Executor, accountId: number, inboxId: number, userIds: number[]): Promise<InboxMemberRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await tx.query<InboxMemberRow>(
    'DELETE FROM inbox_members WHERE account_id = $1 AND inbox_id = $2 AND user_id = ANY($3::int[]) RETURNING id, account_id, inbox_id, user_id',
    [accountId, inboxId, userIds],
  );
  return rows;
}
