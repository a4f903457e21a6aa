import type { Executor, Logger, RequestContext } from '@parley/shared';
import type { Agent, AgentBot, ContactSnapshot, Peers, Team } from '../common/peers';

type Table = 'contact_projections' | 'agent_projections' | 'team_projections' | 'agent_bot_projections';

/** Writes a projection row unless a newer version is already there. */
export async function upsertProjection(db: Executor, table: Table, accountId: number, id: number, data: Record<string, unknown>, versionAt: Date | string): Promise<void> {
  await db.query(
    `INSERT INTO ${table} (account_id, id, data, version_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, id) DO UPDATE SET data = EXCLUDED.data, version_at = EXCLUDED.version_at
     WHERE ${table}.version_at <= EXCLUDED.version_at`,
    [accountId, id, JSON.stringify(data), versionAt],
  );
}

export async function deleteProjection(db: Executor, table: Table, accountId: number, id: number): Promise<void> {
  await db.query(`DELETE FROM ${table} WHERE account_id = $1 AND id = $2`, [accountId, id]);
}

async function readMany<T>(db: Executor, table: Table, accountId: number, ids: number[]): Promise<Map<number, T>> {
  const out = new Map<number, T>();
  if (ids.length === 0) return out;
  const { rows } = await db.query<{ id: number; data: T }>(`SELECT id, data FROM ${table} WHERE account_id = $1 AND id = ANY($2::int[])`, [accountId, ids]);
  for (const r of rows) out.set(r.id, r.data);
  return out;
}

function unique(ids: Array<number | null | undefined>): number[] {
  return [...new Set(ids.filter((x): x is number => typeof x === 'number'))];
}

/**
 * Denormalised views of contacts, agents, teams and bots. A miss reads through to the owner's
 * internal API and fills the projection; an owner that is down degrades to "unknown" rather
 * than failing the read.
 */
export class Projections {
  constructor(
    private readonly db: Executor,
    private readonly peers: Peers,
    private readonly log: Logger,
  ) {}

  private async readThrough<T extends object>(
    table: Table,
    ctx: RequestContext,
    accountId: number,
    ids: Array<number | null | undefined>,
    fetch: (id: number) => Promise<T>,
    strict = false,
  ): Promise<Map<number, T>> {
    const wanted = unique(ids);
    const found = await readMany<T>(this.db, table, accountId, wanted);
    const missing = wanted.filter((id) => !found.has(id));
    await Promise.all(
      missing.map(async (id) => {
        try {
          const data = await fetch(id);
          const fetchedAt = new Date();
          found.set(id, data);
          await upsertProjection(this.db, table, accountId, id, data as Record<string, unknown>, fetchedAt);
        } catch (err) {
          const status = (err as { status?: number }).status;
          if (strict && status !== 404) throw err;
          if (status !== 404) this.log.warn({ table, accountId, id, err: (err as Error).message }, 'projection read-through failed');
        }
      }),
    );
    return found;
  }

  contacts(ctx: RequestContext, accountId: number, ids: Array<number | null | undefined>): Promise<Map<number, ContactSnapshot>> {
    return this.readThrough<ContactSnapshot>('contact_projections', ctx, accountId, ids, (id) => this.peers.contact(ctx, accountId, id));
  }

  /** `strict`: an unreachable owner fails the call instead of reading as "unknown" (for validation). */
  agents(ctx: RequestContext, accountId: number, ids: Array<number | null | undefined>, strict = false): Promise<Map<number, Agent>> {
    return this.readThrough<Agent>('agent_projections', ctx, accountId, ids, (id) => this.peers.agent(ctx, accountId, id), strict);
  }

  teams(ctx: RequestContext, accountId: number, ids: Array<number | null | undefined>, strict = false): Promise<Map<number, Team>> {
    return this.readThrough<Team>('team_projections', ctx, accountId, ids, (id) => this.peers.team(ctx, accountId, id), strict);
  }

  /**
   * Current members only: a removed agent stays in the projection (marked `removed`) so old
   * messages keep their sender's name, but cannot be assigned or added to an inbox.
   */
  async memberAgents(ctx: RequestContext, accountId: number, ids: Array<number | null | undefined>): Promise<Map<number, Agent>> {
    const all = await this.agents(ctx, accountId, ids, true);
    return new Map([...all].filter(([, a]) => a['removed'] !== true));
  }

  bots(ctx: RequestContext, accountId: number, ids: Array<number | null | undefined>): Promise<Map<number, AgentBot>> {
    return this.readThrough<AgentBot>('agent_bot_projections', ctx, accountId, ids, (id) => this.peers.agentBot(ctx, accountId, id));
  }

  async contact(ctx: RequestContext, accountId: number, id: number | null): Promise<ContactSnapshot | null> {
    if (id === null) return null;
    return (await this.contacts(ctx, accountId, [id])).get(id) ?? null;
  }

  async agent(ctx: RequestContext, accountId: number, id: number | null): Promise<Agent | null> {
    if (id === null) return null;
    return (await this.agents(ctx, accountId, [id])).get(id) ?? null;
  }

  async team(ctx: RequestContext, accountId: number, id: number | null): Promise<Team | null> {
    if (id === null) return null;
    return (await this.teams(ctx, accountId, [id])).get(id) ?? null;
  }
}
