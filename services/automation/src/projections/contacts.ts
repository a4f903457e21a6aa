import type { Executor } from '@parley/shared';

/** ContactSnapshot (docs/contracts.md), as far as payloads and rules read it. */
export interface ContactSnapshot {
  id: number;
  account_id?: number;
  name?: string | null;
  email?: string | null;
  phone_number?: string | null;
  identifier?: string | null;
  thumbnail?: string | null;
  avatar_url?: string | null;
  additional_attributes?: Record<string, unknown> | null;
  custom_attributes?: Record<string, unknown> | null;
  blocked?: boolean;
  availability_status?: string | null;
  last_activity_at?: number | null;
  created_at?: number | null;
}

/** Keeps the latest contact snapshot per contact, for the `meta.sender` of webhook payloads. */
export async function applyContactEvent(db: Executor, type: string, accountId: number, data: ContactSnapshot, occurredAt: string): Promise<void> {
  if (type === 'contact.deleted') {
    await db.query('DELETE FROM contacts WHERE account_id = $1 AND id = $2', [accountId, data.id]);
    return;
  }
  await db.query(
    `INSERT INTO contacts (account_id, id, data, occurred_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, id) DO UPDATE SET data = EXCLUDED.data, occurred_at = EXCLUDED.occurred_at
     WHERE contacts.occurred_at <= EXCLUDED.occurred_at`,
    [accountId, data.id, JSON.stringify(data), occurredAt],
  );
}

export async function projectedContact(db: Executor, accountId: number, id: number): Promise<ContactSnapshot | null> {
  const { rows } = await db.query<{ data: ContactSnapshot }>('SELECT data FROM contacts WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0]?.data ?? null;
}
