import type { Executor, ProjectionKit, Redis } from '@parley/shared';
import type { Grant } from './auth/grants';

/**
 * Who is online (Chatwoot's OnlineStatusTracker): a subscription and each `update_presence`
 * mark its user or contact present for REALTIME_PRESENCE_SECONDS in a sorted set per account.
 * The answer is Chatwoot's `presence.update` data, sent to the subscriber alone.
 */
export class Presence {
  constructor(private readonly deps: { redis: Redis; namespace: string; seconds: number; db: Executor; projections: ProjectionKit }) {}

  private key(accountId: number, who: 'users' | 'contacts'): string {
    return `${this.deps.namespace}rt:presence:${accountId}:${who}`;
  }

  async touch(grant: Grant): Promise<Record<string, unknown>> {
    const { redis, seconds } = this.deps;
    const now = Date.now();
    const who = grant.kind === 'user' ? 'users' : 'contacts';
    const id = grant.kind === 'user' ? grant.userId : grant.contactId;
    const since = now - seconds * 1000;
    const [users, contacts] = await Promise.all([
      (async () => {
        await redis.multi().zadd(this.key(grant.accountId, who), now, String(id)).zremrangebyscore(this.key(grant.accountId, who), 0, since).expire(this.key(grant.accountId, who), seconds * 3).exec();
        return redis.zrangebyscore(this.key(grant.accountId, 'users'), since, '+inf');
      })(),
      grant.kind === 'user' ? redis.zrangebyscore(this.key(grant.accountId, 'contacts'), since, '+inf') : Promise.resolve([] as string[]),
    ]);
    const agents = await this.deps.projections.readMany(this.deps.db, 'agent', grant.accountId, users.map(Number));
    const data: Record<string, unknown> = {
      account_id: grant.accountId,
      users: Object.fromEntries(users.map((u) => [u, agents.get(Number(u))?.availability_status ?? 'online'])),
    };
    // Chatwoot sends the contacts map to users only.
    if (grant.kind === 'user') data['contacts'] = Object.fromEntries(contacts.map((c) => [c, 'online']));
    return data;
  }
}
