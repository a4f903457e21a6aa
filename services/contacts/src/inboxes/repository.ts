import { createLogger, ProjectionKit, type Executor } from '@parley/shared';

/** An inbox copy: the conversations service's Inbox (docs/contracts.md); copies older than the contract may lack a value. */
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
}

/**
 * The inbox copies as they stand (the projection kit, kind `inbox`): for reads that never ask
 * the owner. Read-throughs go through the `InboxDirectory`.
 */
export const inboxCopies = new ProjectionKit({ log: createLogger('contacts') });

export async function listAccountInboxes(db: Executor, accountId: number): Promise<InboxRow[]> {
  return inboxCopies.list(db, 'inbox', accountId);
}

/** Inboxes an agent belongs to (Chatwoot's `assigned_inboxes` for agents). */
export async function listMemberInboxes(db: Executor, accountId: number, userId: number): Promise<InboxRow[]> {
  const { rows } = await db.query<{ inbox_id: number }>('SELECT inbox_id FROM inbox_members WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
  const inboxes = await inboxCopies.readMany(db, 'inbox', accountId, rows.map((r) => r.inbox_id));
  return [...inboxes.values()].sort((x, y) => x.id - y.id);
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
