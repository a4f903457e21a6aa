import { prepared, type Executor } from '@parley/shared';

export interface WebhookRow {
  id: number;
  account_id: number;
  url: string;
  name: string | null;
  subscriptions: string[];
  inbox_id: number | null;
  secret: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, account_id, url, name, subscriptions, inbox_id, secret, created_at, updated_at';

export interface WebhookFields {
  url: string;
  name: string | null;
  subscriptions: string[];
  inbox_id: number | null;
}

export async function insertWebhook(db: Executor, accountId: number, f: WebhookFields, secret: string): Promise<WebhookRow> {
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (account_id, url, name, subscriptions, inbox_id, secret) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [accountId, f.url, f.name, f.subscriptions, f.inbox_id, secret],
  );
  return rows[0] as WebhookRow;
}

export async function findWebhook(db: Executor, accountId: number, id: number, forUpdate = false): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

export async function urlTaken(db: Executor, accountId: number, url: string, exceptId: number | null): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM webhooks WHERE account_id = $1 AND url = $2 AND id IS DISTINCT FROM $3', [accountId, url, exceptId]);
  return (rowCount ?? 0) > 0;
}

export async function listWebhooks(db: Executor, accountId: number): Promise<WebhookRow[]> {
  const { rows } = await db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY id`, [accountId]);
  return rows;
}

export async function updateWebhook(db: Executor, accountId: number, id: number, f: WebhookFields): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET url = $3, name = $4, subscriptions = $5, inbox_id = $6, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, f.url, f.name, f.subscriptions, f.inbox_id],
  );
  return rows[0] ?? null;
}

export async function replaceSecret(db: Executor, accountId: number, id: number, secret: string): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(`UPDATE webhooks SET secret = $3, updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [accountId, id, secret]);
  return rows[0] ?? null;
}

export async function deleteWebhook(db: Executor, accountId: number, id: number): Promise<WebhookRow | null> {
  const { rows } = await db.query<WebhookRow>(`DELETE FROM webhooks WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [accountId, id]);
  return rows[0] ?? null;
}

const selectSubscribed = prepared('SELECT id, url FROM webhooks WHERE account_id = $1 AND $2 = ANY (subscriptions) ORDER BY id');

/** Chatwoot sends every event to every account webhook subscribed to it (inbox_id does not filter). */
export async function subscribedWebhooks(db: Executor, accountId: number, event: string): Promise<Array<{ id: number; url: string }>> {
  const { rows } = await db.query<{ id: number; url: string }>(selectSubscribed([accountId, event]));
  return rows;
}

const selectSubscribedWithInbox = prepared(
  `SELECT (SELECT coalesce(json_agg(json_build_object('id', w.id, 'url', w.url) ORDER BY w.id), '[]'::json) FROM webhooks w WHERE w.account_id = $1 AND $2 = ANY (w.subscriptions)) AS hooks,
          (SELECT json_build_object('kind', p.kind, 'id', p.id, 'data', p.data) FROM projections p WHERE p.account_id = $1 AND p.kind = 'inbox' AND p.id = $3) AS inbox_row`,
);

/**
 * `subscribedWebhooks` and, in the same statement, the row of the inbox's copy (tombstone: data
 * null; null when there is none) for the caller to complete (`inboxFromRow`): a round trip fewer
 * than reading them one after the other.
 */
export async function subscribedWebhooksWithInbox(
  db: Executor,
  accountId: number,
  event: string,
  inboxId: number,
): Promise<{ hooks: Array<{ id: number; url: string }>; inboxRow: { kind: string; id: number; data: unknown } | null }> {
  const { rows } = await db.query<{ hooks: Array<{ id: number; url: string }>; inbox_row: { kind: string; id: number; data: unknown } | null }>(selectSubscribedWithInbox([accountId, event, inboxId]));
  return { hooks: rows[0]?.hooks ?? [], inboxRow: rows[0]?.inbox_row ?? null };
}
