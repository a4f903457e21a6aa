import type { Logger, Peers } from '@parley/shared';

/**
 * Account names for the `account: {id, name}` of webhook payloads, asked of the gateway through
 * the peers client and kept in memory for a few minutes (names rarely change; a stale name in a
 * payload is harmless). A failed lookup gives a null name rather than holding up delivery.
 */
export class AccountNames {
  private readonly cache = new Map<number, { name: string | null; until: number }>();

  constructor(
    private readonly peers: Peers,
    private readonly log: Logger,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async nameOf(accountId: number): Promise<string | null> {
    const hit = this.cache.get(accountId);
    if (hit && hit.until > Date.now()) return hit.name;
    try {
      const name = (await this.peers.identity.account(accountId, { requestId: `automation-${accountId}`, timeoutMs: 2000 })).name ?? null;
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(accountId, { name, until: Date.now() + this.ttlMs });
      return name;
    } catch (err) {
      this.log.debug({ accountId, err: (err as Error).message }, 'account name lookup failed');
      const name = hit?.name ?? null;
      this.cache.set(accountId, { name, until: Date.now() + 30_000 });
      return name;
    }
  }
}
