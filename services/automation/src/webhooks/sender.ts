import DataLoader from 'dataloader';
import { currentTraceparent, inSpan, tracingEnabled, type Logger, type Pool, type ServiceMetrics, type Worker } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { claimDueDeliveries, finishAttempts, releaseDelivery, type AttemptResult, type ClaimedDelivery, type DeliveryStatus } from './deliveries-repository';
import { postJson, type PostResult } from './http-post';
import { deliveryHeaders } from './signing';
import { checkTargetUrl } from './url-guard';

export interface SenderDeps {
  pool: Pool;
  config: AutomationConfig;
  log: Logger;
  metrics?: ServiceMetrics;
}

/** Statuses worth another try: the receiver is down, overloaded or slow, not refusing. */
function retryable(r: PostResult): boolean {
  if (r.permanent) return false;
  if (r.statusCode === null) return true;
  return r.statusCode === 408 || r.statusCode === 429 || r.statusCode >= 500;
}

/**
 * Delay before attempt n+1 after attempt n failed: BASE * 2^(n-1), capped, with "equal
 * jitter" (half fixed, half random) so receivers that failed together do not get their
 * retries all at once. A Retry-After from the receiver is honoured up to the cap.
 */
export function retryDelayMs(config: Pick<AutomationConfig, 'WEBHOOK_RETRY_BASE_MS' | 'WEBHOOK_RETRY_MAX_DELAY_MS'>, attempt: number, retryAfterSeconds: number | null, random = Math.random): number {
  const exp = Math.min(config.WEBHOOK_RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1), config.WEBHOOK_RETRY_MAX_DELAY_MS);
  const jittered = exp / 2 + random() * (exp / 2);
  const asked = retryAfterSeconds === null ? 0 : retryAfterSeconds * 1000;
  return Math.round(Math.min(Math.max(jittered, asked), config.WEBHOOK_RETRY_MAX_DELAY_MS));
}

/**
 * Works through the durable `webhook_deliveries` table: claims due rows with SKIP LOCKED
 * (replicas share the work), POSTs them signed, and records each attempt. Concurrency is
 * bounded per process and per target URL: a URL at its cap is left out of the next claim,
 * so one slow receiver holds at most WEBHOOK_PER_URL_CONCURRENCY slots and everything else
 * keeps flowing. A claimed row is leased (its next_attempt_at pushed past the timeout), so a
 * process that dies mid-send leaves it to be sent again, under the same delivery id.
 * The attempts that end in one turn of the event loop are recorded in one statement
 * (DataLoader's batching, no cache); a delivery's slot is freed once its attempt is recorded.
 */
export class DeliverySender implements Worker {
  private readonly recorder: DataLoader<AttemptResult & { id: string }, void>;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly perUrl = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: SenderDeps) {
    this.recorder = new DataLoader(
      async (attempts) => {
        await finishAttempts(deps.pool, [...attempts]);
        return attempts.map(() => undefined);
      },
      { cache: false, maxBatchSize: 200, batchScheduleFn: (flush) => setImmediate(flush) },
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Looks for due deliveries now (e.g. a slot just freed up). */
  kick(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async run(): Promise<void> {
    const { config, log } = this.deps;
    while (this.running) {
      let claimed = 0;
      try {
        claimed = await this.pollOnce();
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'webhook sender poll failed');
      }
      if (!this.running) break;
      if (claimed > 0 && this.inFlight.size < config.WEBHOOK_CONCURRENCY) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, config.WEBHOOK_POLL_MS);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  /** Claims what fits in the free slots and starts sending it; returns how many rows were claimed. */
  async pollOnce(): Promise<number> {
    const { config, pool } = this.deps;
    const free = config.WEBHOOK_CONCURRENCY - this.inFlight.size;
    if (free <= 0) return 0;
    const saturated = [...this.perUrl].filter(([, n]) => n >= config.WEBHOOK_PER_URL_CONCURRENCY).map(([u]) => u);
    const rows = await claimDueDeliveries(pool, free, saturated, config.WEBHOOK_TIMEOUT_MS + 30_000);
    for (const row of rows) {
      if ((this.perUrl.get(row.url) ?? 0) >= config.WEBHOOK_PER_URL_CONCURRENCY) {
        await releaseDelivery(pool, row.id);
        continue;
      }
      this.dispatch(row);
    }
    return rows.length;
  }

  private dispatch(row: ClaimedDelivery): void {
    this.perUrl.set(row.url, (this.perUrl.get(row.url) ?? 0) + 1);
    const p: Promise<void> = this.send(row)
      .catch((err: unknown) => this.deps.log.error({ err: (err as Error).message, deliveryId: row.delivery_id }, 'webhook delivery bookkeeping failed'))
      .finally(() => {
        const n = (this.perUrl.get(row.url) ?? 1) - 1;
        if (n <= 0) this.perUrl.delete(row.url);
        else this.perUrl.set(row.url, n);
        this.inFlight.delete(p);
        this.kick();
      });
    this.inFlight.add(p);
  }

  private async send(row: ClaimedDelivery): Promise<void> {
    if (!tracingEnabled()) return this.attempt(row);
    // The trace of the event that caused this delivery goes on to the receiver.
    return inSpan(`webhook POST`, { kind: 'client', parent: row.traceparent, attributes: { 'url.full': row.url, 'parley.webhook.event': row.event, 'parley.webhook.attempt': row.attempts } }, () => this.attempt(row));
  }

  private async attempt(row: ClaimedDelivery): Promise<void> {
    const { config, log } = this.deps;
    const started = Date.now();
    let result: PostResult;
    // Checked again at send time: an API inbox's webhook_url is set elsewhere, and IP
    // literals never go through the DNS guard.
    const problem = checkTargetUrl(row.url, config.WEBHOOK_ALLOW_PRIVATE);
    if (problem) {
      result = { statusCode: null, error: problem === 'private' ? 'refused: private, loopback or link-local target' : 'refused: not an http(s) URL', retryAfterSeconds: null, permanent: true };
    } else {
      const body = JSON.stringify(row.payload);
      const headers: Record<string, string> = deliveryHeaders({ deliveryId: row.delivery_id, event: row.event, body, secret: row.secret, timestamp: Math.floor(Date.now() / 1000) });
      const traceparent = currentTraceparent();
      if (traceparent) headers['traceparent'] = traceparent;
      result = await postJson(row.url, body, headers, config.WEBHOOK_TIMEOUT_MS, config.WEBHOOK_ALLOW_PRIVATE);
    }
    const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    let status: DeliveryStatus = 'succeeded';
    let retryInMs: number | null = null;
    if (!ok) {
      if (!retryable(result)) status = 'failed';
      else if (row.attempts >= config.WEBHOOK_MAX_ATTEMPTS) status = 'dead';
      else {
        status = 'pending';
        retryInMs = retryDelayMs(config, row.attempts, result.retryAfterSeconds);
      }
    }
    await this.recorder.load({ id: row.id, status, attempt: row.attempts, statusCode: result.statusCode, error: result.error, durationMs: Date.now() - started, retryInMs });
    this.deps.metrics?.webhookDeliveries.inc({ outcome: status === 'pending' ? 'retrying' : status, attempt: String(row.attempts) });
    if (!ok) log.info({ deliveryId: row.delivery_id, url: row.url, attempt: row.attempts, status, error: result.error }, 'webhook delivery failed');
  }

  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop?.catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
  }
}
