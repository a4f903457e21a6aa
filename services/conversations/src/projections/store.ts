import { READ_THROUGH_VERSION, type ProjectionKit, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import type { Agent, AgentBot, ContactSnapshot, Team } from '../common/peers';

type Ids = Array<number | null | undefined>;

/**
 * The copies of contacts, agents, teams and bots this service reads (the projection kit): a miss
 * reads through to the owner's internal API and is stored; an owner that is down degrades to
 * "unknown" rather than failing the read, unless `strict` (validation).
 */
export class Projections {
  /** The contacts `rememberContact` stored lately (a public client's every request names its contact). */
  private readonly remembered = new Set<string>();

  constructor(
    private readonly pool: Pool,
    readonly kit: ProjectionKit,
  ) {}

  contacts(ctx: RequestContext, accountId: number, ids: Ids): Promise<Map<number, ContactSnapshot>> {
    return this.kit.readThrough(this.pool, 'contact', accountId, ids, { requestId: ctx.requestId });
  }

  /** `strict`: an unreachable owner fails the call instead of reading as "unknown" (for validation). */
  agents(ctx: RequestContext, accountId: number, ids: Ids, strict = false): Promise<Map<number, Agent>> {
    return this.kit.readThrough(this.pool, 'agent', accountId, ids, { requestId: ctx.requestId, strict });
  }

  teams(ctx: RequestContext, accountId: number, ids: Ids, strict = false): Promise<Map<number, Team>> {
    return this.kit.readThrough(this.pool, 'team', accountId, ids, { requestId: ctx.requestId, strict });
  }

  /**
   * Current members only: a removed agent stays in the copies (marked `removed`) so old
   * messages keep their sender's name, but cannot be assigned or added to an inbox.
   */
  async memberAgents(ctx: RequestContext, accountId: number, ids: Ids): Promise<Map<number, Agent>> {
    const all = await this.agents(ctx, accountId, ids, true);
    return new Map([...all].filter(([, a]) => a.removed !== true));
  }

  /** Contacts, agents, teams and bots in one read (a presented page names all four). */
  many(ctx: RequestContext, accountId: number, ids: { contact: Ids; agent: Ids; team: Ids; agent_bot: Ids }) {
    return this.kit.readThroughKinds(this.pool, accountId, ids, { requestId: ctx.requestId });
  }

  /** `many` when a statement of the caller's read the copies' rows already (the list's page): only the misses are read through. */
  manyFrom(ctx: RequestContext, accountId: number, ids: { contact: Ids; agent: Ids; team: Ids; agent_bot: Ids }, rows: Array<{ kind: string; id: number; data: unknown }>) {
    return this.kit.completeKinds(this.pool, accountId, ids, rows, { requestId: ctx.requestId });
  }

  bots(ctx: RequestContext, accountId: number, ids: Ids): Promise<Map<number, AgentBot>> {
    return this.kit.readThrough(this.pool, 'agent_bot', accountId, ids, { requestId: ctx.requestId });
  }

  async contact(ctx: RequestContext, accountId: number, id: number | null): Promise<ContactSnapshot | null> {
    return this.kit.readOne(this.pool, 'contact', accountId, id, { requestId: ctx.requestId });
  }

  async agent(ctx: RequestContext, accountId: number, id: number | null): Promise<Agent | null> {
    return this.kit.readOne(this.pool, 'agent', accountId, id, { requestId: ctx.requestId });
  }

  async team(ctx: RequestContext, accountId: number, id: number | null): Promise<Team | null> {
    return this.kit.readOne(this.pool, 'team', accountId, id, { requestId: ctx.requestId });
  }

  /** A contact the owner just answered with (resolving a contact inbox): kept unless an event brought a copy. */
  async rememberContact(accountId: number, contact: ContactSnapshot, opts: { missing?: boolean } = {}): Promise<void> {
    // Stored once: from then on the copy follows the contact's events, as every copy does (what
    // changes without an event, its last activity, is not worth a write per request). `missing`:
    // the caller saw no copy, so it is stored whatever this process stored before.
    const key = `${accountId}:${contact.id}`;
    if (this.remembered.has(key) && !opts.missing) return;
    await this.kit.upsert(this.pool, 'contact', accountId, contact.id, contact, READ_THROUGH_VERSION);
    this.remembered.add(key);
    if (this.remembered.size > 5000) this.remembered.delete(this.remembered.values().next().value as string);
  }
}

