import { AppError, type Executor, type Logger } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { askOwner } from './owners';

export interface InboxInfo {
  id: number;
  name: string | null;
  channel_type: string | null;
  webhook_url: string | null;
  secret: string | null;
}

interface InboxRecord {
  id: number;
  account_id: number;
  name?: string | null;
  channel_type?: string | null;
  webhook_url?: string | null;
  /** API inboxes may carry a dedicated webhook secret; otherwise the channel's hmac_token signs. */
  secret?: string | null;
  webhook_secret?: string | null;
  hmac_token?: string | null;
}

function secretOf(r: InboxRecord): string | null {
  return r.webhook_secret || r.secret || r.hmac_token || null;
}

/** Applies an inbox.* event to the local projection; older events never overwrite newer ones. */
export async function applyInboxEvent(db: Executor, type: string, accountId: number, data: InboxRecord, occurredAt: string): Promise<void> {
  if (type === 'inbox.deleted') {
    await db.query('DELETE FROM inboxes WHERE account_id = $1 AND id = $2', [accountId, data.id]);
    // Its secret is gone with it: what still waits for its webhook_url would go out unsigned.
    await db.query(`DELETE FROM webhook_deliveries WHERE account_id = $1 AND kind = 'inbox' AND inbox_id = $2 AND status = 'pending'`, [accountId, data.id]);
    return;
  }
  await upsertInbox(db, accountId, data, occurredAt);
}

async function upsertInbox(db: Executor, accountId: number, r: InboxRecord, occurredAt: string): Promise<void> {
  await db.query(
    `INSERT INTO inboxes (account_id, id, name, channel_type, webhook_url, secret, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account_id, id) DO UPDATE SET name = EXCLUDED.name, channel_type = EXCLUDED.channel_type,
       webhook_url = EXCLUDED.webhook_url, secret = EXCLUDED.secret, occurred_at = EXCLUDED.occurred_at
     WHERE inboxes.occurred_at <= EXCLUDED.occurred_at`,
    [accountId, r.id, r.name ?? null, r.channel_type ?? null, r.webhook_url || null, secretOf(r), occurredAt],
  );
}

/**
 * The inbox from the projection, or read through to the conversations service on a miss.
 * An unknown inbox is remembered (as an old, empty row that any inbox event overrides); an
 * unreachable owner yields null without caching, so the next event asks again (`strict`:
 * throws instead, for callers that must not guess, like validating a webhook's inbox_id).
 */
export async function inboxFor(
  db: Executor,
  config: AutomationConfig,
  log: Logger,
  accountId: number,
  inboxId: number,
  requestId: string,
  opts: { strict?: boolean } = {},
): Promise<InboxInfo | null> {
  const { rows } = await db.query<InboxInfo>('SELECT id, name, channel_type, webhook_url, secret FROM inboxes WHERE account_id = $1 AND id = $2', [accountId, inboxId]);
  const hit = rows[0];
  // A remembered miss (no channel type) is an unknown inbox.
  if (hit) return hit.channel_type === null && hit.name === null ? null : hit;
  try {
    const rec = await askOwner<InboxRecord>(config, 'inbox', accountId, inboxId, requestId);
    await upsertInbox(db, accountId, { ...rec, id: inboxId }, new Date(0).toISOString());
    return { id: inboxId, name: rec.name ?? null, channel_type: rec.channel_type ?? null, webhook_url: rec.webhook_url || null, secret: secretOf(rec) };
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      await upsertInbox(db, accountId, { id: inboxId, account_id: accountId }, new Date(0).toISOString());
      return null;
    }
    if (opts.strict) throw err;
    log.warn({ accountId, inboxId, err: (err as Error).message }, 'inbox lookup failed');
    return null;
  }
}

/** Names of the given inboxes from the projection (for `inbox: {id, name}` in webhook answers). */
export async function inboxNames(db: Executor, accountId: number, ids: number[]): Promise<Map<number, string | null>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: number; name: string | null }>('SELECT id, name FROM inboxes WHERE account_id = $1 AND id = ANY ($2::int[])', [accountId, ids]);
  return new Map(rows.map((r) => [r.id, r.name]));
}
