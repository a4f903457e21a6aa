import { AppError, callService, systemContext, type Executor, type Logger } from '@parley/shared';
import type { AutomationConfig } from '../config';

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

/**
 * Keeps the latest contact snapshot per contact: rule conditions on contact attributes and the
 * `meta.sender` of webhook payloads read it. Older events never overwrite newer ones.
 */
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

/**
 * The contact from the projection, or read through to the contacts service on a miss (a
 * contact created a moment ago may not have reached the projection yet). `strict`: an
 * unreachable contacts service throws (rules must not be evaluated on a guess, the event is
 * retried); otherwise it yields null (payloads go out with a minimal sender).
 */
export async function contactFor(
  db: Executor,
  config: AutomationConfig,
  log: Logger,
  accountId: number,
  contactId: number,
  requestId: string,
  opts: { strict?: boolean } = {},
): Promise<ContactSnapshot | null> {
  const hit = await projectedContact(db, accountId, contactId);
  if (hit) return hit;
  try {
    const c = await callService<ContactSnapshot>(
      config.CONTACTS_URL,
      `/internal/accounts/${accountId}/contacts/${contactId}`,
      systemContext('automation', accountId, requestId),
      config.INTERNAL_SECRET,
      { timeoutMs: 3000 },
    );
    // Stored as of the epoch, so any contact event (newer by definition) replaces it.
    await applyContactEvent(db, 'contact.updated', accountId, { ...c, id: contactId }, new Date(0).toISOString());
    return c;
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    if (opts.strict) throw err;
    log.warn({ accountId, contactId, err: (err as Error).message }, 'contact lookup failed');
    return null;
  }
}
