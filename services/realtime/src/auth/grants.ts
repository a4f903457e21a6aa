import { createHash } from 'node:crypto';
import { AppError, type Logger, type Peers, type Redis } from '@parley/shared';

/** Who a subscription is, and what it may see. */
export type Grant =
  | { kind: 'user'; accountId: number; userId: number; role: 'agent' | 'administrator'; inboxIds: number[]; /** SHA-256 of the token it was made with. */ tokenSha: string }
  | { kind: 'contact'; accountId: number; contactId: number; contactInboxId: number; hmacVerified: boolean };

/** A refused check: the subscription is rejected. */
export class GrantRefused extends Error {}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Stores a check unless a revocation came after it started: KEYS[1] is the revocation epoch
 * (bumped by every forget), ARGV[1] its value before the owner was asked. Without this, an answer
 * the owner gave just before a revocation could be cached just after the revocation dropped the
 * cache, and a revoked token would be accepted until the entry expires. KEYS[3], when given, is
 * the contact's index of cached checks.
 */
const STORE = `
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
if KEYS[3] then
  redis.call('SADD', KEYS[3], KEYS[2])
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
return 1`;

/**
 * Checks `RoomChannel` tokens with their owners (the gateway for users, the contacts service for
 * contact inboxes) and caches the answer in Redis (shared by every replica), keyed by account and
 * subject so the events that revoke it (`agent.removed`, inbox membership, a rotated user token,
 * `contact.deleted`) drop it at once for all of them. Only a token's SHA-256 is stored. A cached
 * user check for another token is not a refusal (the token may be new): the owner is asked. An
 * owner that cannot answer throws (the caller tells the client to come back); one that says no
 * is `GrantRefused`.
 */
export class Grants {
  constructor(private readonly deps: { peers: Peers; redis: Redis; namespace: string; ttlSeconds: number; log: Logger }) {}

  private userKey(accountId: number, userId: number): string {
    return `${this.deps.namespace}rt:grant:user:${accountId}:${userId}`;
  }

  private contactKey(tokenHash: string): string {
    return `${this.deps.namespace}rt:grant:ci:${tokenHash}`;
  }

  private get epochKey(): string {
    return `${this.deps.namespace}rt:grant:epoch`;
  }

  private contactIndex(accountId: number, contactId: number): string {
    return `${this.deps.namespace}rt:grant:contact:${accountId}:${contactId}`;
  }

  /** Owner checks in flight on this replica, by cache key, with the revocation epoch each started in. */
  private readonly inFlight = new Map<string, { epoch: string; check: Promise<Grant> }>();

  /**
   * One owner check per key at a time on this replica: when many sockets subscribe with the same
   * token at once (a replica restarted and its clients all came back; a user with many tabs),
   * they wait for one check instead of each asking the owners. A caller joins a running check
   * only if no revocation came between that check's start and the caller's own epoch read (made
   * after it read its stream's tail): an answer older than a revocation whose control entry the
   * subscription will skip is never shared. Without an epoch (Redis away, no cache), no sharing.
   */
  private async shared(key: string, check: (epoch: string | null) => Promise<Grant>): Promise<Grant> {
    const epoch = await this.epoch();
    const running = this.inFlight.get(key);
    if (epoch !== null && running?.epoch === epoch) return running.check;
    const p = check(epoch);
    if (epoch !== null) {
      const entry = { epoch, check: p };
      this.inFlight.set(key, entry);
      void p.catch(() => undefined).finally(() => {
        if (this.inFlight.get(key) === entry) this.inFlight.delete(key);
      });
    }
    return p;
  }

  async user(token: string, userId: number, accountId: number): Promise<Grant> {
    const hash = sha(token);
    const key = this.userKey(accountId, userId);
    const cached = await this.cached<{ token: string; role: 'agent' | 'administrator'; inboxIds: number[] }>(key);
    if (cached?.token === hash) return { kind: 'user', accountId, userId, role: cached.role, inboxIds: cached.inboxIds, tokenSha: hash };
    return this.shared(`${key}:${hash}`, async (epoch) => {
      const agent = await this.refuseOn404(this.deps.peers.identity.pubsubAgent({ pubsub_token: token, user_id: userId, account_id: accountId }));
      // Administrators see every inbox; their memberships still count if they become agents.
      const inboxIds = (await this.deps.peers.conversations.agentInboxes(accountId, userId)).inbox_ids;
      await this.store(epoch, key, { token: hash, role: agent.role, inboxIds });
      return { kind: 'user', accountId, userId, role: agent.role, inboxIds, tokenSha: hash };
    });
  }

  async contact(token: string): Promise<Grant> {
    const hash = sha(token);
    const key = this.contactKey(hash);
    const cached = await this.cached<Extract<Grant, { kind: 'contact' }>>(key);
    if (cached) return cached;
    return this.shared(key, async (epoch) => {
      const { contact_inbox: ci, contact } = await this.refuseOn404(this.deps.peers.contacts.pubsubContactInbox(token));
      const grant: Grant = { kind: 'contact', accountId: contact.account_id, contactId: ci.contact_id, contactInboxId: ci.id, hmacVerified: ci.hmac_verified };
      await this.store(epoch, key, grant, this.contactIndex(grant.accountId, grant.contactId));
      return grant;
    });
  }

  /** A user's cached check in an account goes (removed, role or inboxes changed). */
  async forgetUser(accountId: number, userId: number): Promise<void> {
    await this.deps.redis.multi().incr(this.epochKey).del(this.userKey(accountId, userId)).exec();
  }

  /** Every cached check of a contact's tokens goes (the contact was deleted). */
  async forgetContact(accountId: number, contactId: number): Promise<void> {
    const index = this.contactIndex(accountId, contactId);
    const keys = await this.deps.redis.smembers(index);
    await this.deps.redis.multi().incr(this.epochKey).del(index, ...keys).exec();
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

  /** The revocation epoch now; null (nothing will be cached) when caching is off or Redis is away. */
  private async epoch(): Promise<string | null> {
    if (this.deps.ttlSeconds === 0) return null;
    try {
      return (await this.deps.redis.get(this.epochKey)) ?? '0';
    } catch {
      return null;
    }
  }

  private async store(epoch: string | null, key: string, value: unknown, index?: string): Promise<void> {
    if (epoch === null) return;
    const keys = [this.epochKey, key, ...(index ? [index] : [])];
    await this.deps.redis.eval(STORE, keys.length, ...keys, epoch, JSON.stringify(value), String(this.deps.ttlSeconds)).catch(() => undefined);
  }
}
