import { randomBytes } from 'node:crypto';
import { diff, NotFoundError, ValidationError, withTransaction, writeEvent, type Logger, type Pool, type RequestContext } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { inboxFor, inboxNames } from '../projections/copies';
import { DEFAULT_SUBSCRIPTIONS } from './payloads';
import * as repo from './repository';
import type { WebhookCreateInput, WebhookJson, WebhookUpdateInput } from './schemas';

export interface WebhookDeps {
  pool: Pool;
  config: AutomationConfig;
  log: Logger;
}

/** 32 random bytes, hex: the HMAC key receivers verify `X-Chatwoot-Signature` with. */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

export function webhookJson(r: repo.WebhookRow, inboxName: string | null | undefined): WebhookJson {
  const out: WebhookJson = { id: r.id, name: r.name, url: r.url, account_id: r.account_id, subscriptions: r.subscriptions, secret: r.secret };
  if (r.inbox_id !== null) out.inbox = { id: r.inbox_id, name: inboxName ?? null };
  return out;
}

/** The record as events carry it: everything but the secret (docs/contracts.md). */
function eventData(r: repo.WebhookRow): Record<string, unknown> {
  return { id: r.id, account_id: r.account_id, name: r.name, url: r.url, subscriptions: r.subscriptions, inbox_id: r.inbox_id };
}

/** The inbox must be one of the account's (asked of the conversations service on a projection miss). */
async function checkInbox(deps: WebhookDeps, ctx: RequestContext, accountId: number, inboxId: number): Promise<string | null> {
  const inbox = await inboxFor(deps.pool, deps, accountId, inboxId, ctx.requestId, { strict: true });
  if (!inbox) throw ValidationError.field('inbox_id', 'does not exist in this account', 'not_found');
  return inbox.name;
}

export async function listWebhooksJson(deps: WebhookDeps, accountId: number): Promise<WebhookJson[]> {
  const rows = await repo.listWebhooks(deps.pool, accountId);
  const names = await inboxNames(deps.pool, deps, accountId, [...new Set(rows.flatMap((r) => (r.inbox_id === null ? [] : [r.inbox_id])))]);
  return rows.map((r) => webhookJson(r, r.inbox_id === null ? null : names.get(r.inbox_id)));
}

export async function showWebhook(deps: WebhookDeps, accountId: number, id: number): Promise<WebhookJson> {
  const row = await repo.findWebhook(deps.pool, accountId, id);
  if (!row) throw new NotFoundError('Webhook', 'webhook_id');
  const names = await inboxNames(deps.pool, deps, accountId, row.inbox_id === null ? [] : [row.inbox_id]);
  return webhookJson(row, row.inbox_id === null ? null : names.get(row.inbox_id));
}

export async function createWebhook(deps: WebhookDeps, ctx: RequestContext, accountId: number, input: WebhookCreateInput): Promise<WebhookJson> {
  const inboxId = input.inbox_id ?? null;
  const inboxName = inboxId === null ? null : await checkInbox(deps, ctx, accountId, inboxId);
  return withTransaction(deps.pool, async (tx) => {
    const row = await repo.insertWebhook(
      tx,
      accountId,
      { url: input.url, name: input.name ?? null, subscriptions: input.subscriptions ?? DEFAULT_SUBSCRIPTIONS, inbox_id: inboxId },
      newSecret(),
    );
    await writeEvent(tx, ctx, { type: 'webhook.created', accountId, data: eventData(row) });
    return webhookJson(row, inboxName);
  });
}

export async function updateWebhook(deps: WebhookDeps, ctx: RequestContext, accountId: number, id: number, input: WebhookUpdateInput): Promise<WebhookJson> {
  const inboxName = input.inbox_id ? await checkInbox(deps, ctx, accountId, input.inbox_id) : undefined;
  return withTransaction(deps.pool, async (tx) => {
    const before = await repo.findWebhook(tx, accountId, id, true);
    if (!before) throw new NotFoundError('Webhook', 'webhook_id');
    const next: repo.WebhookFields = { url: before.url, name: before.name, subscriptions: before.subscriptions, inbox_id: before.inbox_id };
    if (input.url !== undefined) next.url = input.url;
    if (input.name !== undefined) next.name = input.name ?? null;
    // `subscriptions: null` resets to the default set, as Chatwoot's column default does on create.
    if (input.subscriptions !== undefined) next.subscriptions = input.subscriptions ?? DEFAULT_SUBSCRIPTIONS;
    if (input.inbox_id !== undefined) next.inbox_id = input.inbox_id ?? null;
    const row = (await repo.updateWebhook(tx, accountId, id, next)) as repo.WebhookRow;
    const changes = diff(eventData(before), eventData(row), ['url', 'name', 'subscriptions', 'inbox_id']);
    if (Object.keys(changes).length > 0) await writeEvent(tx, ctx, { type: 'webhook.updated', accountId, data: eventData(row), changes });
    let name = inboxName;
    if (name === undefined && row.inbox_id !== null) name = (await inboxNames(tx, deps, accountId, [row.inbox_id])).get(row.inbox_id) ?? null;
    return webhookJson(row, name);
  });
}

/** What `changes` says for a rotation: that the secret changed, never its value. */
const ROTATED = '[FILTERED]';

/**
 * A new signing secret, in force at once: deliveries still waiting (retries included) are
 * signed with it when they go out, since the sender reads the secret at send time.
 */
export async function rotateWebhookSecret(deps: WebhookDeps, ctx: RequestContext, accountId: number, id: number): Promise<WebhookJson> {
  return withTransaction(deps.pool, async (tx) => {
    const row = await repo.replaceSecret(tx, accountId, id, newSecret());
    if (!row) throw new NotFoundError('Webhook', 'webhook_id');
    await writeEvent(tx, ctx, { type: 'webhook.updated', accountId, data: eventData(row), changes: { secret: [ROTATED, ROTATED] } });
    const name = row.inbox_id === null ? null : ((await inboxNames(tx, deps, accountId, [row.inbox_id])).get(row.inbox_id) ?? null);
    return webhookJson(row, name);
  });
}

export async function deleteWebhook(deps: WebhookDeps, ctx: RequestContext, accountId: number, id: number): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const row = await repo.deleteWebhook(tx, accountId, id);
    if (!row) throw new NotFoundError('Webhook', 'webhook_id');
    await writeEvent(tx, ctx, { type: 'webhook.deleted', accountId, data: eventData(row) });
  });
}
