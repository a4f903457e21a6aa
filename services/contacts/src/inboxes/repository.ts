import type { Executor } from '@parley/shared';

/** Our projection of the conversations service's Inbox (docs/contracts.md). */
export interface InboxRow {
  id: number;
  account_id: number;
  name: string;
  channel_type: string;
  channel_id: number | null;
  identifier: string | null;
  hmac_token: string | null;
  hmac_mandatory: boolean;
  webhook_url: string | null;
  avatar_url: string | null;
  provider: string | null;
  deleted: boolean;
}

export type InboxData = Omit<InboxRow, 'deleted'>;

const COLUMNS = ['id', 'account_id', 'name', 'channel_type', 'channel_id', 'identifier', 'hmac_token', 'hmac_mandatory', 'webhook_url', 'avatar_url', 'provider'] as const;

function values(i: InboxData): unknown[] {
  return COLUMNS.map((c) => i[c]);
}

export async function findInbox(db: Executor, accountId: number, id: number): Promise<InboxRow | null> {
  const { rows } = await db.query<InboxRow>('SELECT * FROM inboxes WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0] ?? null;
}

/** Lookup by the public identifier: the one query that learns the account from the inbox. */
export async function findInboxByIdentifier(db: Executor, identifier: string): Promise<InboxRow | null> {
  const { rows } = await db.query<InboxRow>('SELECT * FROM inboxes WHERE identifier = $1', [identifier]);
  return rows[0] ?? null;
}

export async function findInboxesByIds(db: Executor, accountId: number, ids: number[]): Promise<InboxRow[]> {
  const { rows } = await db.query<InboxRow>('SELECT * FROM inboxes WHERE account_id = $1 AND id = ANY($2::int[])', [accountId, ids]);
  return rows;
}

export async function listAccountInboxes(db: Executor, accountId: number): Promise<InboxRow[]> {
  const { rows } = await db.query<InboxRow>('SELECT * FROM inboxes WHERE account_id = $1 AND NOT deleted ORDER BY id', [accountId]);
  return rows;
}

/** A read-through result: never overrides what events wrote (their version is newer than -infinity). */
export async function insertInboxFromReadThrough(db: Executor, i: InboxData): Promise<void> {
  await db.query(
    `INSERT INTO inboxes (${COLUMNS.join(', ')}, version_at) VALUES (${COLUMNS.map((_, n) => `$${n + 1}`).join(', ')}, '-infinity')
     ON CONFLICT DO NOTHING`,
    values(i),
  );
}

/** Applies an inbox.created/updated event unless a newer one (or a deletion) was applied already. */
export async function applyInboxEvent(db: Executor, i: InboxData, occurredAt: Date): Promise<void> {
  const n = COLUMNS.length;
  await db.query(
    `INSERT INTO inboxes (${COLUMNS.join(', ')}, version_at, synced_at) VALUES (${COLUMNS.map((_, k) => `$${k + 1}`).join(', ')}, $${n + 1}, now())
     ON CONFLICT (id) DO UPDATE SET ${COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = EXCLUDED.${c}`).join(', ')},
       version_at = EXCLUDED.version_at, synced_at = now()
     WHERE NOT inboxes.deleted AND inboxes.version_at <= EXCLUDED.version_at`,
    [...values(i), occurredAt],
  );
}

export async function tombstoneInbox(db: Executor, i: InboxData, occurredAt: Date): Promise<void> {
  const n = COLUMNS.length;
  await db.query(
    `INSERT INTO inboxes (${COLUMNS.join(', ')}, version_at, deleted) VALUES (${COLUMNS.map((_, k) => `$${k + 1}`).join(', ')}, $${n + 1}, true)
     ON CONFLICT (id) DO UPDATE SET deleted = true, version_at = GREATEST(inboxes.version_at, EXCLUDED.version_at), synced_at = now()`,
    [...values(i), occurredAt],
  );
}

export async function deleteAccountInboxes(db: Executor, accountId: number): Promise<void> {
  await db.query('UPDATE inboxes SET deleted = true, synced_at = now() WHERE account_id = $1', [accountId]);
}

/** Inboxes an agent belongs to (Chatwoot's `assigned_inboxes` for agents). */
export async function listMemberInboxes(db: Executor, accountId: number, userId: number): Promise<InboxRow[]> {
  const { rows } = await db.query<InboxRow>(
    `SELECT i.* FROM inboxes i JOIN inbox_members m ON m.inbox_id = i.id AND m.account_id = i.account_id
      WHERE m.account_id = $1 AND m.user_id = $2 AND NOT i.deleted ORDER BY i.id`,
    [accountId, userId],
  );
  return rows;
}

export async function addInboxMember(db: Executor, accountId: number, inboxId: number, userId: number): Promise<void> {
  await db.query('INSERT INTO inbox_members (inbox_id, user_id, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [inboxId, userId, accountId]);
}

export async function removeInboxMember(db: Executor, accountId: number, inboxId: number, userId: number): Promise<void> {
  await db.query('DELETE FROM inbox_members WHERE account_id = $1 AND inbox_id = $2 AND user_id = $3', [accountId, inboxId, userId]);
}

export async function deleteInboxMembers(db: Executor, accountId: number, inboxId: number | null): Promise<void> {
  if (inboxId === null) await db.query('DELETE FROM inbox_members WHERE account_id = $1', [accountId]);
  else await db.query('DELETE FROM inbox_members WHERE account_id = $1 AND inbox_id = $2', [accountId, inboxId]);
}
