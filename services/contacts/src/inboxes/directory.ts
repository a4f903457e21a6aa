import { AppError, UnavailableError, type Logger, type Peers, type ProjectionKit, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import type { Redis } from '@parley/shared';
import type { InboxRow } from './repository';

/** Inbox identifiers are Rails secure tokens; anything else names no inbox (no upstream call). */
const IDENTIFIER_RE = /^[A-Za-z0-9_-]{1,128}$/;

export interface InboxDirectoryDeps {
  pool: Pool;
  log: Logger;
  redis: Redis;
  peers: Peers;
  projections: ProjectionKit;
  config: { NAMESPACE: string };
}

/**
 * How long an identifier the conversations service did not know is answered 404 without
 * asking again: the public API takes no credential, so a stream of made-up identifiers
 * must not become a stream of internal calls. Short, because a new inbox's event may lag.
 */
const MISS_TTL_SECONDS = 10;

/**
 * Inboxes as this service sees them: the projection kit's copies (fed by inbox.* events), read
 * through to the conversations service (peers client) when an inbox is not known yet. A deleted
 * inbox (tombstone) is answered as unknown.
 */
export class InboxDirectory {
  constructor(private readonly deps: InboxDirectoryDeps) {}

  async byIdentifier(identifier: string, ctx: RequestContext): Promise<InboxRow | null> {
    if (!IDENTIFIER_RE.test(identifier)) return null;
    const copies = this.deps.projections;
    const local = await copies.findBy(this.deps.pool, 'inbox', 'identifier', identifier);
    if (local) return local;
    const missKey = `${this.deps.config.NAMESPACE}contacts:inbox-miss:${identifier}`;
    if (await this.redisSafe(() => this.deps.redis.exists(missKey))) return null;
    const fetched = await this.ask(() => this.deps.peers.conversations.inboxByIdentifier(identifier, { requestId: ctx.requestId }));
    if (!fetched || fetched.identifier !== identifier) {
      await this.redisSafe(() => this.deps.redis.set(missKey, '1', 'EX', MISS_TTL_SECONDS));
      return null;
    }
    // What an event (or a deletion) stored first wins over the answer.
    return copies.remember(this.deps.pool, 'inbox', fetched.account_id, fetched.id, fetched);
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

  /** An inbox of the account (read through on a miss); unknown is null, an owner that fails 503. */
  async byId(accountId: number, inboxId: number, ctx: RequestContext): Promise<InboxRow | null> {
    return this.ask(() => this.deps.projections.readOne(this.deps.pool, 'inbox', accountId, inboxId, { requestId: ctx.requestId, strict: true }));
  }

  /**
   * Several inboxes for rendering (contact_inboxes of a page of contacts). Misses are read
   * through; if the conversations service is away, those inboxes are simply left out.
   */
  async many(accountId: number, ids: number[], ctx: RequestContext): Promise<Map<number, InboxRow>> {
    return this.deps.projections.readThrough(this.deps.pool, 'inbox', accountId, ids, { requestId: ctx.requestId });
  }

  /** A 404 from the owner is no inbox; whatever else went wrong upstream is not the client's fault (503). */
  private async ask<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return null;
      this.deps.log.warn({ err: (err as Error).message }, 'inbox read-through failed');
      throw new UnavailableError('Inboxes cannot be looked up right now, retry later');
    }
  }
}
