import { columnsOf, prepared, type Executor } from '@parley/shared';

export interface ContactInboxRow {
  id: number;
  account_id: number;
  contact_id: number;
  inbox_id: number;
  source_id: string;
  hmac_verified: boolean;
  pubsub_token: string;
  created_at: Date;
  updated_at: Date;
}

/**
 * Inserts the (inbox, source_id) pair unless it exists. A concurrent insert of the same
 * pair makes this wait for the other transaction, then yield null (the caller re-reads).
 */
export async function insertContactInboxIfAbsent(
  db: Executor,
  row: { accountId: number; contactId: number; inboxId: number; sourceId: string; hmacVerified: boolean },
): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>(
    `INSERT INTO contact_inboxes (account_id, contact_id, inbox_id, source_id, hmac_verified) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (inbox_id, source_id) DO NOTHING RETURNING *`,
    [row.accountId, row.contactId, row.inboxId, row.sourceId, row.hmacVerified],
  );
  return rows[0] ?? null;
}

export async function findBySource(db: Executor, accountId: number, inboxId: number, sourceId: string): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>('SELECT * FROM contact_inboxes WHERE account_id = $1 AND inbox_id = $2 AND source_id = $3', [
    accountId,
    inboxId,
    sourceId,
  ]);
  return rows[0] ?? null;
}

export async function findContactInbox(db: Executor, accountId: number, id: number): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>('SELECT * FROM contact_inboxes WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0] ?? null;
}

/** The columns `ContactInboxRow` has (see CONTACT_COLUMNS). */
export const CONTACT_INBOX_COLUMNS = columnsOf<ContactInboxRow>({
  id: true, account_id: true, contact_id: true, inbox_id: true, source_id: true, hmac_verified: true,
  pubsub_token: true, created_at: true, updated_at: true,
});

// Prepared: every public API call resolves its contact inbox so.
const bySource = prepared(`SELECT ${CONTACT_INBOX_COLUMNS} FROM contact_inboxes WHERE inbox_id = $1 AND source_id = $2`);

/** By inbox alone: the internal lookup knows the inbox but not (yet) its account. */
export async function findBySourceAnyAccount(db: Executor, inboxId: number, sourceId: string): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>(bySource([inboxId, sourceId]));
  return rows[0] ?? null;
}

/** The contact inbox whose realtime token this is (tokens are unique across accounts). */
export async function findByPubsubToken(db: Executor, pubsubToken: string): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>('SELECT * FROM contact_inboxes WHERE pubsub_token = $1', [pubsubToken]);
  return rows[0] ?? null;
}

/** The newest contact_inbox of a contact in an inbox (Chatwoot may hold several per pair). */
export async function findLatestForContact(db: Executor, accountId: number, contactId: number, inboxId: number): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>(
    'SELECT * FROM contact_inboxes WHERE account_id = $1 AND contact_id = $2 AND inbox_id = $3 ORDER BY id DESC LIMIT 1',
    [accountId, contactId, inboxId],
  );
  return rows[0] ?? null;
}

export async function listForContacts(db: Executor, accountId: number, contactIds: number[]): Promise<ContactInboxRow[]> {
  if (contactIds.length === 0) return [];
  const { rows } = await db.query<ContactInboxRow>(
    'SELECT * FROM contact_inboxes WHERE account_id = $1 AND contact_id = ANY($2::int[]) ORDER BY contact_id, inbox_id, id',
    [accountId, contactIds],
  );
  return rows;
}

export async function markVerified(db: Executor, accountId: number, id: number): Promise<ContactInboxRow | null> {
  const { rows } = await db.query<ContactInboxRow>(
    'UPDATE contact_inboxes SET hmac_verified = true, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING *',
    [accountId, id],
  );
  return rows[0] ?? null;
}

export async function deleteForInbox(db: Executor, accountId: number, inboxId: number): Promise<number> {
  const r = await db.query('DELETE FROM contact_inboxes WHERE account_id = $1 AND inbox_id = $2', [accountId, inboxId]);
  return r.rowCount ?? 0;
}
