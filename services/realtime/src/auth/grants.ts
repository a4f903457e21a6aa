import { createHash } from 'node:crypto';
import { AppError, type Logger, type Peers, type Redis } from '@parley/shared';

/** Who a subscription is, and what it may see. */
export type Grant =
  | { kind: 'user'; accountId: number; userId: number; role: 'agent' | 'administrator'; inboxIds: number[] }
  | { kind: 'contact'; accountId: number; contactId: number; contactInboxId: number; hmacVerified: boolean };

/** A refused check: the subscription is rejected. */
export class GrantRefused extends Error {}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Checks `RoomChannel` tokens with their owners (the gateway for users, the contacts service for
 * contact inboxes) and caches the answer in Redis, keyed by account and subject so the events
 * that revoke it (`agent.removed`, inbox membership, `contact.deleted`) can drop it at once.
 * Only a token's SHA-256 is stored. An owner that cannot answer throws (the caller tells the
 * client to come back); one that says no is `GrantRefused`.
 */
export class Grants {
  constructor(private readonly deps: { peers: Peers; redis: Redis; namespace: string; ttlSeconds: number; log: Logger }) {}

  private userKey(accountId: number, userId: number): string {
    return `${this.deps.namespace}rt:grant:user:${accountId}:${userId}`;
  }

  private contactKey(tokenHash: string): string {
    return `${this.deps.namespace}rt:grant:ci:${tokenHash}`;
  }

  private contactIndex(accountId: number, contactId: number): string {
    return `${this.deps.namespace}rt:grant:contact:${accountId}:${contactId}`;
  }

  async user(token: string, userId: number, accountId: number): Promise<Grant> {
    const hash = sha(token);
    const key = this.userKey(accountId, userId);
    const cached = await this.cached<{ token: string; role: 'agent' | 'administrator'; inboxIds: number[] }>(key);
    if (cached) {
      if (cached.token !== hash) throw new GrantRefused('token does not match');
      return { kind: 'user', accountId, userId, role: cached.role, inboxIds: cached.inboxIds };
    }
    const agent = await this.refuseOn404(this.deps.peers.identity.pubsubAgent({ pubsub_token: token, user_id: userId, account_id: accountId }));
    // Administrators see every inbox; their memberships still count if they become agents.
    const inboxIds = (await this.deps.peers.conversations.agentInboxes(accountId, userId)).inbox_ids;
    await this.store(key, { token: hash, role: agent.role, inboxIds });
    return { kind: 'user', accountId, userId, role: agent.role, inboxIds };
  }

  async contact(token: string): Promise<Grant> {
    const hash = sha(token);
    const key = this.contactKey(hash);
    const cached = await this.cached<Extract<Grant, { kind: 'contact' }>>(key);
    if (cached) return cached;
    const { contact_inbox: ci, contact } = await this.refuseOn404(this.deps.peers.contacts.pubsubContactInbox(token));
    const grant: Grant = { kind: 'contact', accountId: contact.account_id, contactId: ci.contact_id, contactInboxId: ci.id, hmacVerified: ci.hmac_verified };
    if (this.deps.ttlSeconds > 0) {
      await this.deps.redis
        .multi()
        .set(key, JSON.stringify(grant), 'EX', this.deps.ttlSeconds)
        .sadd(this.contactIndex(grant.accountId, grant.contactId), key)
        .expire(this.contactIndex(grant.accountId, grant.contactId), this.deps.ttlSeconds)
        .exec()
        .catch(() => undefined);
    }
    return grant;
  }

  /** A user's cached check in an account goes (removed, role or inboxes changed). */
  async forgetUser(accountId: number, userId: number): Promise<void> {
    await this.deps.redis.del(this.userKey(accountId, userId));
  }

  /** Every cached check of a contact's tokens goes (the contact was deleted). */
  async forgetContact(accountId: number, contactId: number): Promise<void> {
    const index = this.contactIndex(accountId, contactId);
    const keys = await this.deps.redis.smembers(index);
    await this.deps.redis.del(index, ...keys);
  }

  private async refuseOn404<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      if (err instanceof AppError && err.status === 404) throw new GrantRefused(err.message);
      throw err;
    }
  }

  private async cached<T>(key: string): Promise<T | null> {
    if (this.deps.ttlSeconds === 0) return null;
    // A cache that is away is not a refusal: ask the owner.
    const raw = await this.deps.redis.get(key).catch(() => null);
    return raw ? (JSON.parse(raw) as T) : null;
  }

  private async store(key: string, value: unknown): Promise<void> {
    if (this.deps.ttlSeconds === 0) return;
    await this.deps.redis.set(key, JSON.stringify(value), 'EX', this.deps.ttlSeconds).catch(() => undefined);
  }
}
