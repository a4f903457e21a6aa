import { z } from 'zod';
import { AppError, UnavailableError, callService, systemContext, type Logger, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import type { Redis } from '@parley/shared';
import {
  findInbox,
  findInboxByIdentifier,
  findInboxesByIds,
  insertInboxFromReadThrough,
  listAccountInboxes,
  type InboxData,
  type InboxRow,
} from './repository';

/** The Inbox of docs/contracts.md, as the conversations service sends it (events and internal API). */
export const inboxDataSchema = z.looseObject({
  id: z.number().int().positive(),
  account_id: z.number().int().positive(),
  name: z.string().nullish(),
  channel_type: z.string().nullish(),
  channel_id: z.number().int().nullish(),
  identifier: z.string().nullish(),
  hmac_token: z.string().nullish(),
  hmac_mandatory: z.boolean().nullish(),
  webhook_url: z.string().nullish(),
  avatar_url: z.string().nullish(),
  provider: z.string().nullish(),
});

export function toInboxData(raw: z.infer<typeof inboxDataSchema>): InboxData {
  return {
    id: raw.id,
    account_id: raw.account_id,
    name: raw.name ?? '',
    channel_type: raw.channel_type ?? 'Channel::Api',
    channel_id: raw.channel_id ?? null,
    identifier: raw.identifier ?? null,
    hmac_token: raw.hmac_token ?? null,
    hmac_mandatory: raw.hmac_mandatory ?? false,
    webhook_url: raw.webhook_url ?? null,
    avatar_url: raw.avatar_url ?? null,
    provider: raw.provider ?? null,
  };
}

/** Inbox identifiers are Rails secure tokens; anything else names no inbox (no upstream call). */
const IDENTIFIER_RE = /^[A-Za-z0-9_-]{1,128}$/;

export interface InboxDirectoryDeps {
  pool: Pool;
  log: Logger;
  redis: Redis;
  config: { CONVERSATIONS_URL: string; INTERNAL_SECRET: string; NAMESPACE: string };
}

/**
 * How long an identifier the conversations service did not know is answered 404 without
 * asking again: the public API takes no credential, so a stream of made-up identifiers
 * must not become a stream of internal calls. Short, because a new inbox's event may lag.
 */
const MISS_TTL_SECONDS = 10;

/**
 * Inboxes as this service sees them: the local projection (fed by inbox.* events), with a
 * read-through to the conversations service's internal API when an inbox is not known yet.
 * A deleted inbox (tombstone) is answered as unknown without asking upstream.
 */
export class InboxDirectory {
  constructor(private readonly deps: InboxDirectoryDeps) {}

  async byIdentifier(identifier: string, ctx: RequestContext): Promise<InboxRow | null> {
    if (!IDENTIFIER_RE.test(identifier)) return null;
    const local = await findInboxByIdentifier(this.deps.pool, identifier);
    if (local) return local.deleted ? null : local;
    const missKey = `${this.deps.config.NAMESPACE}contacts:inbox-miss:${identifier}`;
    if (await this.redisSafe(() => this.deps.redis.exists(missKey))) return null;
    const fetched = await this.fetch(`/internal/inboxes/by_identifier/${encodeURIComponent(identifier)}`, ctx, null);
    if (!fetched || fetched.identifier !== identifier) {
      await this.redisSafe(() => this.deps.redis.set(missKey, '1', 'EX', MISS_TTL_SECONDS));
      return null;
    }
    return this.remember(fetched);
  }

  /** The cache only saves calls; Redis being away must not fail a request. */
  private async redisSafe<T>(fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'inbox miss cache unavailable');
      return null;
    }
  }

  async byId(accountId: number, inboxId: number, ctx: RequestContext): Promise<InboxRow | null> {
    const local = await findInbox(this.deps.pool, accountId, inboxId);
    if (local) return local.deleted ? null : local;
    const fetched = await this.fetch(`/internal/accounts/${accountId}/inboxes/${inboxId}`, ctx, accountId);
    if (!fetched || fetched.account_id !== accountId || fetched.id !== inboxId) return null;
    return this.remember(fetched);
  }

  /**
   * Several inboxes for rendering (contact_inboxes of a page of contacts). Misses are read
   * through; if the conversations service is away, those inboxes are simply left out.
   */
  async many(accountId: number, ids: number[], ctx: RequestContext): Promise<Map<number, InboxRow>> {
    const unique = [...new Set(ids)];
    const out = new Map<number, InboxRow>();
    if (unique.length === 0) return out;
    for (const row of await findInboxesByIds(this.deps.pool, accountId, unique)) out.set(row.id, row);
    for (const id of unique) {
      if (out.has(id)) continue;
      try {
        const row = await this.byId(accountId, id, ctx);
        if (row) out.set(id, row);
      } catch (err) {
        this.deps.log.warn({ err: (err as Error).message, inboxId: id }, 'inbox read-through failed');
      }
    }
    return out;
  }

  async listForAccount(accountId: number): Promise<InboxRow[]> {
    return listAccountInboxes(this.deps.pool, accountId);
  }

  /** Internal calls go out as this service, carrying the request id of the request that needs them. */
  private async fetch(path: string, ctx: RequestContext, accountId: number | null): Promise<InboxData | null> {
    let body: unknown;
    try {
      body = await callService(this.deps.config.CONVERSATIONS_URL, path, systemContext('contacts', accountId, ctx.requestId), this.deps.config.INTERNAL_SECRET, { timeoutMs: 5000 });
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return null;
      // Whatever else went wrong upstream is not the client's fault.
      this.deps.log.warn({ path, err: (err as Error).message }, 'inbox read-through failed');
      throw new UnavailableError('Inboxes cannot be looked up right now, retry later');
    }
    const parsed = inboxDataSchema.safeParse(body);
    if (!parsed.success) {
      this.deps.log.warn({ path, issues: parsed.error.issues.slice(0, 3) }, 'conversations answered an inbox we cannot read');
      return null;
    }
    return toInboxData(parsed.data);
  }

  private async remember(data: InboxData): Promise<InboxRow | null> {
    await insertInboxFromReadThrough(this.deps.pool, data);
    // Re-read: an event may have landed first (or the inbox was deleted meanwhile).
    const row = await findInbox(this.deps.pool, data.account_id, data.id);
    if (!row) return { ...data, deleted: false };
    return row.deleted ? null : row;
  }
}
