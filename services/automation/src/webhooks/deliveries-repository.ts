import { randomUUID } from 'node:crypto';
import { CLAIM_SETTINGS, currentTraceparent, prepared, withTransactionFrom, type Executor, type Pool } from '@parley/shared';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';
export type DeliveryKind = 'webhook' | 'inbox' | 'rule';

export interface DeliveryRow {
  id: string;
  account_id: number;
  kind: DeliveryKind;
  webhook_id: number | null;
  inbox_id: number | null;
  rule_id: number | null;
  url: string;
  dedupe_key: string;
  delivery_id: string;
  event: string;
  source_event_id: string | null;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewDelivery {
  accountId: number;
  kind: DeliveryKind;
  webhookId?: number | null;
  inboxId?: number | null;
  ruleId?: number | null;
  url: string;
  dedupeKey: string;
  event: string;
  sourceEventId: string | null;
  payload: Record<string, unknown>;
}

/**
 * Queues deliveries in one statement; a cause (dedupe key) that was queued before is skipped.
 * Each row keeps the active trace context (tracing on) for the sender to continue.
 */
export async function insertDeliveries(db: Executor, list: NewDelivery[]): Promise<number> {
  if (list.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO webhook_deliveries (account_id, kind, webhook_id, inbox_id, rule_id, url, dedupe_key, delivery_id, event, source_event_id, payload, traceparent)
     SELECT d.account_id, d.kind, d.webhook_id, d.inbox_id, d.rule_id, d.url, d.dedupe_key, d.delivery_id, d.event, d.source_event_id, d.payload, $2
     FROM jsonb_to_recordset($1::jsonb) AS d(account_id integer, kind text, webhook_id integer, inbox_id integer, rule_id integer, url text,
       dedupe_key text, delivery_id uuid, event text, source_event_id uuid, payload jsonb)
     ON CONFLICT (dedupe_key) DO NOTHING`,
    [
      JSON.stringify(
        list.map((d) => ({
          account_id: d.accountId,
          kind: d.kind,
          webhook_id: d.webhookId ?? null,
          inbox_id: d.inboxId ?? null,
          rule_id: d.ruleId ?? null,
          url: d.url,
          dedupe_key: d.dedupeKey,
          delivery_id: randomUUID(),
          event: d.event,
          source_event_id: d.sourceEventId,
          payload: d.payload,
        })),
      ),
      currentTraceparent() ?? null,
    ],
  );
  return rowCount ?? 0;
}

const COLUMNS =
  'id, account_id, kind, webhook_id, inbox_id, rule_id, url, dedupe_key, delivery_id, event, source_event_id, payload, status, attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at';

export interface ClaimedDelivery extends DeliveryRow {
  /** The signing secret as it is now: the webhook's, the inbox's, or (send_webhook_event) that of an account webhook with the same URL. */
  secret: string | null;
  /** Trace context of the consumer that queued it (null: tracing was off). */
  traceparent: string | null;
}

/** The error of an attempt whose outcome was never recorded (see claimDueDeliveries). */
export const INTERRUPTED = 'interrupted: the sender stopped before recording an outcome (crash, restart or lost database); sent again under the same delivery id';

/** Every poll of every sender runs it: prepared, its plan (a few joins, 0.4 ms) is made once per connection. */
const claimDue = prepared(
  `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now() AND NOT (url = ANY ($2::text[]))
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + $3 * interval '1 millisecond', updated_at = now()
         FROM due WHERE d.id = due.id
         RETURNING ${COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')}, d.traceparent,
           CASE d.kind
             WHEN 'webhook' THEN (SELECT w.secret FROM webhooks w WHERE w.id = d.webhook_id)
             -- The API inbox's copy (projection kit): its hmac_token signs.
             WHEN 'inbox' THEN (SELECT nullif(i.data->>'hmac_token', '') FROM projections i WHERE i.account_id = d.account_id AND i.kind = 'inbox' AND i.id = d.inbox_id)
             ELSE (SELECT w.secret FROM webhooks w WHERE w.account_id = d.account_id AND w.url = d.url)
           END AS secret),
       -- An attempt counted but never recorded: its sender died (or lost Postgres) mid-send.
       -- Logged as interrupted, so the attempts log always agrees with the delivery's count.
       interrupted AS (
         INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, error, duration_ms)
         SELECT c.id, c.attempts - 1, NULL, '${INTERRUPTED}', 0 FROM claimed c
         WHERE c.attempts > 1 AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = c.id AND a.attempt = c.attempts - 1))
       SELECT * FROM claimed`,
);

/**
 * Claims up to `limit` due deliveries for sending: the attempt is counted and the row leased
 * (next_attempt_at pushed past the send timeout) in one statement, so other senders skip it;
 * if this process dies mid-send the lease runs out and the row is sent again, same delivery id,
 * and the attempt it cut off is logged as interrupted.
 * URLs this process has no free slot for are left to later polls (or other replicas).
 * In a transaction of its own opened with the outbox relay's claim settings (`CLAIM_SETTINGS`: no
 * bitmap scan): each claim moves its rows' `next_attempt_at` and each outcome ends their
 * `pending`, leaving their old entries in the due index until VACUUM, which a bitmap scan never
 * marks dead; the planner takes one when it expects a few due rows, and every poll then read every
 * delivery since the last VACUUM (docs/architecture.md, "Outbox").
 */
export async function claimDueDeliveries(pool: Pool, limit: number, excludeUrls: string[], leaseMs: number): Promise<ClaimedDelivery[]> {
  return withTransactionFrom(pool, CLAIM_SETTINGS, async (tx) => (await tx.query<ClaimedDelivery>(claimDue([limit, excludeUrls, leaseMs]))).rows);
}

/** Gives a claimed row back untouched (this process had no free slot for its URL). */
export async function releaseDelivery(db: Executor, id: string): Promise<void> {
  await db.query(`UPDATE webhook_deliveries SET attempts = attempts - 1, next_attempt_at = now(), updated_at = now() WHERE id = $1 AND status = 'pending'`, [id]);
}

export interface AttemptResult {
  status: DeliveryStatus;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Delay before the next attempt (pending only). */
  retryInMs: number | null;
}

/**
 * Records attempts and moves their deliveries on, all in one statement (the sender's attempts
 * that end together: one round trip and one commit instead of one each).
 */
export async function finishAttempts(db: Executor, list: Array<AttemptResult & { id: string }>): Promise<void> {
  if (list.length === 0) return;
  await db.query(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, status text, status_code integer, error text, retry_in_ms bigint, attempt integer, duration_ms integer)),
     upd AS (
       UPDATE webhook_deliveries d SET status = r.status, last_status_code = r.status_code, last_error = r.error,
         next_attempt_at = CASE WHEN r.retry_in_ms IS NULL THEN NULL ELSE now() + r.retry_in_ms * interval '1 millisecond' END, updated_at = now()
       FROM r WHERE d.id = r.id RETURNING d.id)
     INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, error, duration_ms)
     SELECT r.id, r.attempt, r.status_code, r.error, r.duration_ms FROM r JOIN upd ON upd.id = r.id`,
    [
      JSON.stringify(
        list.map((a) => ({ id: a.id, status: a.status, status_code: a.statusCode, error: a.error, retry_in_ms: a.retryInMs, attempt: a.attempt, duration_ms: Math.round(a.durationMs) })),
      ),
    ],
  );
}

export interface DeliveryFilter {
  webhookId?: number | undefined;
  inboxId?: number | undefined;
  ruleId?: number | undefined;
  kind?: DeliveryKind | undefined;
  status?: DeliveryStatus | undefined;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: Date;
}

export async function listDeliveries(
  db: Executor,
  accountId: number,
  f: DeliveryFilter,
  limit: number,
  offset: number,
): Promise<{ rows: Array<DeliveryRow & { attempt_log: AttemptRow[] }>; count: number }> {
  const where = ['account_id = $1'];
  const args: unknown[] = [accountId];
  const add = (sql: string, v: unknown) => {
    args.push(v);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (f.webhookId !== undefined) add('webhook_id = ?', f.webhookId);
  if (f.inboxId !== undefined) add('inbox_id = ?', f.inboxId);
  if (f.ruleId !== undefined) add('rule_id = ?', f.ruleId);
  if (f.kind !== undefined) add('kind = ?', f.kind);
  if (f.status !== undefined) add('status = ?', f.status);
  const cond = where.join(' AND ');
  const [page, total] = await Promise.all([
    db.query<DeliveryRow>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${cond} ORDER BY id DESC LIMIT ${Number(limit)} OFFSET ${Number(offset)}`, args),
    db.query<{ count: string }>(`SELECT count(*) AS count FROM webhook_deliveries WHERE ${cond}`, args),
  ]);
  const ids = page.rows.map((r) => r.id);
  const attempts = ids.length
    ? (
        await db.query<AttemptRow>(
          'SELECT delivery_id, attempt, status_code, error, duration_ms, created_at FROM webhook_delivery_attempts WHERE delivery_id = ANY ($1::bigint[]) ORDER BY delivery_id, attempt, id',
          [ids],
        )
      ).rows
    : [];
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const a of attempts) {
    const key = String(a.delivery_id);
    byDelivery.set(key, [...(byDelivery.get(key) ?? []), a]);
  }
  return { rows: page.rows.map((r) => ({ ...r, attempt_log: byDelivery.get(String(r.id)) ?? [] })), count: Number(total.rows[0]?.count ?? 0) };
}

/** Drops finished deliveries (and their attempts) older than the retention, in batches. */
export async function pruneDeliveries(db: Executor, olderThanDays: number, batch = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < now() - $1 * interval '1 day' LIMIT $2)`,
    [olderThanDays, batch],
  );
  return rowCount ?? 0;
}
