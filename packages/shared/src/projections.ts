import { fewRows, prepared, type Executor } from './db';
import type { Logger } from './logger';
import { AppError } from './errors';
import { accountOf } from './events/handlers';
import type { Agent, AgentBot, AgentBotEvent, ContactSnapshot, Inbox, Team, User } from './contracts';
import type { BaseConfig } from './config';
import { createPeers, type PeerCallOptions, type Peers } from './peers';

/**
 * The projection kit: every local copy of another service's records goes through it. One
 * table per service (`projections`, created by the service's migration with the kernel's
 * `SELECT create_projection_table()`), one row per record:
 * `(account_id, kind, id, data jsonb, version_at)`.
 *
 * - Ordered by the owner's version: `version_at` is the `occurred_at` the owner gave the event in
 *   the transaction that made the change, so an older event never overwrites newer data.
 * - A removal leaves a tombstone (`data` NULL) at the removal's version: owners never reuse ids,
 *   so nothing brings a removed record back, and no read asks the owner about it again.
 * - A read-through (a record no event has brought yet) is stored at `-infinity`: whatever event
 *   comes later replaces it, so the copy converges on the owner's newest event.
 * - Cascades (contact removed -> its conversations go) are the service's own, in its handlers.
 */
export const PROJECTION_TABLE = 'projections';

/** The version a read-through answer is stored at: older than any event. */
export const READ_THROUGH_VERSION = '-infinity';

/** An agent copy: the gateway's Agent, plus `display_name` once a `user.updated` told it, and `removed` where a service keeps removed agents. */
export type AgentCopy = Agent & { display_name?: string | null; removed?: boolean };
/** A bot copy: from `agent_bot.*` events (with `account_id`) or the internal API (with `thumbnail` and `bot_type`). */
export type AgentBotCopy = Pick<AgentBotEvent, 'id' | 'name' | 'description' | 'outgoing_url'> & { account_id?: number | null } & Partial<Pick<AgentBot, 'thumbnail' | 'bot_type'>>;

/** What each kind of copy holds (the owner's contract). */
export interface ProjectedKinds {
  contact: ContactSnapshot;
  agent: AgentCopy;
  team: Team;
  agent_bot: AgentBotCopy;
  inbox: Inbox;
}
export type ProjectedKind = keyof ProjectedKinds;

/** Where a miss of each kind is read through to: the owner's internal API, through the peers client. */
const OWNERS: { [K in ProjectedKind]: (peers: Peers, accountId: number, id: number, o: PeerCallOptions) => Promise<ProjectedKinds[K]> } = {
  contact: (p, a, id, o) => p.contacts.contact(a, id, o),
  agent: (p, a, id, o) => p.identity.agent(a, id, o),
  team: (p, a, id, o) => p.identity.team(a, id, o),
  agent_bot: (p, a, id, o) => p.identity.agentBot(a, id, o),
  inbox: (p, a, id, o) => p.conversations.inbox(a, id, o),
};

export type Version = string | Date;

export interface ReadThroughOptions {
  /** The request or event id the owner's logs will show. */
  requestId?: string;
  /** An owner that fails (other than 404) throws instead of leaving the record out: for checks that must not guess. */
  strict?: boolean;
  /** Store a 404 as a forgettable tombstone (at `-infinity`, so any later event still wins): the owner is not asked again. */
  rememberMisses?: boolean;
}

export interface ProjectionKitOptions {
  log: Logger;
  /** Needed for read-throughs only. */
  peers?: Peers;
  /** After a lenient lookup of a kind fails, that kind is not asked for again for this long (PEER_LOOKUP_BACKOFF_MS). */
  backoffMs?: number;
  table?: string;
  /** The clock the back-off reads (tests move it instead of waiting). */
  now?: () => number;
}

const validIds = (ids: Iterable<number | null | undefined>): number[] => [...new Set([...ids].filter((id): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id > 0))];

/**
 * The (kind, id) pairs of the copies asked for by kind, each valid id once, as the two parallel
 * arrays a statement unnests (`unnest($k::text[], $i::int[]) AS w (kind, id)`): what
 * `readThroughKinds` reads, for a caller reading the copies in a statement of its own.
 */
export function wantedPairs(wanted: Record<string, Iterable<number | null | undefined>>): { kinds: string[]; ids: number[] } {
  const kinds: string[] = [];
  const ids: number[] = [];
  for (const [kind, list] of Object.entries(wanted)) {
    for (const id of validIds(list)) {
      kinds.push(kind);
      ids.push(id);
    }
  }
  return { kinds, ids };
}

/**
 * A scalar subquery answering, as one JSON array, the projection rows (tombstones included, data
 * null) of the pairs `wantedPairs` gives, passed as parameters `$kinds` (text[]) and `$kinds + 1`
 * (int[]), of the account `$account`: a column a caller's own statement adds, so the copies come
 * with it instead of a round trip of their own (`completeKinds` then reads through only misses).
 */
export function copiesColumnSql(account: number, kinds: number, table = PROJECTION_TABLE): string {
  return `(SELECT coalesce(jsonb_agg(jsonb_build_object('kind', p.kind, 'id', p.id, 'data', p.data)), '[]'::jsonb)
          FROM ${table} p JOIN unnest($${kinds}::text[], $${kinds + 1}::int[]) AS w (kind, id) ON p.kind = w.kind AND p.id = w.id
         WHERE p.account_id = $${account} AND ${fewRows('w.id')})`;
}

export class ProjectionKit {
  private readonly table: string;
  // The reads every event and page makes, prepared once per connection (db.ts `prepared`).
  private readonly readRows: ReturnType<typeof prepared>;
  private readonly readPairs: ReturnType<typeof prepared>;
  /** Until when lenient read-throughs of each kind are skipped, after its owner failed to answer. */
  private readonly downUntil = new Map<ProjectedKind, number>();

  constructor(private readonly opts: ProjectionKitOptions) {
    this.table = opts.table ?? PROJECTION_TABLE;
    this.readRows = prepared(`SELECT p.id, p.data FROM ${this.table} p JOIN unnest($3::int[]) AS w (id) ON p.id = w.id WHERE p.account_id = $1 AND p.kind = $2 AND ${fewRows('w.id')}`);
    this.readPairs = prepared(`SELECT p.kind, p.id, p.data FROM ${this.table} p JOIN unnest($2::text[], $3::int[]) AS w (kind, id) ON p.kind = w.kind AND p.id = w.id WHERE p.account_id = $1 AND ${fewRows('w.id')}`);
  }

  /**
   * Stores the owner's snapshot unless the copy is newer (or the record was removed). Returns
   * whether it was written.
   */
  async upsert<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, id: number, data: ProjectedKinds[K], version: Version): Promise<boolean> {
    const t = this.table;
    const r = await db.query(
      `INSERT INTO ${t} (account_id, kind, id, data, version_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, kind, id) DO UPDATE SET data = EXCLUDED.data, version_at = EXCLUDED.version_at
       WHERE ${t}.version_at = '-infinity' OR (${t}.data IS NOT NULL AND ${t}.version_at <= EXCLUDED.version_at)`,
      [accountId, kind, id, JSON.stringify(data), version],
    );
    return (r.rowCount ?? 0) > 0;
  }

  /** An owner's event about one of its records: stored at the event's version, in the event's account. */
  async apply<K extends ProjectedKind>(db: Executor, kind: K, event: { type: string; account_id: number | null; occurred_at: string; data: ProjectedKinds[K] }): Promise<boolean> {
    return this.upsert(db, kind, accountOf(event), event.data.id, event.data, event.occurred_at);
  }

  /** The record was removed at its owner: a tombstone at `version` (its data is not kept). */
  async remove(db: Executor, kind: ProjectedKind, accountId: number, id: number, version: Version): Promise<void> {
    const t = this.table;
    await db.query(
      `INSERT INTO ${t} (account_id, kind, id, data, version_at) VALUES ($1, $2, $3, NULL, $4)
       ON CONFLICT (account_id, kind, id) DO UPDATE SET data = NULL, version_at = GREATEST(${t}.version_at, EXCLUDED.version_at)`,
      [accountId, kind, id, version],
    );
  }

  /** Every copy of an account (`account.deleted`): no tombstones, the account's ids never come back. */
  async removeAccount(db: Executor, accountId: number): Promise<void> {
    await db.query(`DELETE FROM ${this.table} WHERE account_id = $1`, [accountId]);
  }

  /**
   * `user.updated`: a user's names, e-mail and picture show on their agent copy in every account
   * they belong to (the event names no account). Copies newer than the event keep theirs.
   */
  async patchUser(db: Executor, user: User, version: Version): Promise<number> {
    const patch = { name: user.name, display_name: user.display_name, available_name: user.display_name || user.name, email: user.email, thumbnail: user.thumbnail };
    const r = await db.query(`UPDATE ${this.table} SET data = data || $2::jsonb WHERE kind = 'agent' AND id = $1 AND data IS NOT NULL AND version_at <= $3`, [
      user.id,
      JSON.stringify(patch),
      version,
    ]);
    return r.rowCount ?? 0;
  }

  /** The copies of these ids (unknown and removed ones are absent). */
  async readMany<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, ids: Iterable<number | null | undefined>): Promise<Map<number, ProjectedKinds[K]>> {
    return live(await this.rows<K>(db, kind, accountId, validIds(ids)));
  }

  async read<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, id: number | null | undefined): Promise<ProjectedKinds[K] | null> {
    if (typeof id !== 'number') return null;
    return (await this.readMany(db, kind, accountId, [id])).get(id) ?? null;
  }

  /** Every live copy of a kind in an account, by id. */
  async list<K extends ProjectedKind>(db: Executor, kind: K, accountId: number): Promise<Array<ProjectedKinds[K]>> {
    const { rows } = await db.query<{ data: ProjectedKinds[K] }>(`SELECT data FROM ${this.table} WHERE account_id = $1 AND kind = $2 AND data IS NOT NULL ORDER BY id`, [accountId, kind]);
    return rows.map((r) => r.data);
  }

  /** The live copy whose `data[field]` is `value`, in any account (an inbox by its public identifier). */
  async findBy<K extends ProjectedKind>(db: Executor, kind: K, field: keyof ProjectedKinds[K] & string, value: string): Promise<ProjectedKinds[K] | null> {
    const { rows } = await db.query<{ data: ProjectedKinds[K] }>(`SELECT data FROM ${this.table} WHERE kind = $1 AND data->>$2 = $3 LIMIT 1`, [kind, field, value]);
    return rows[0]?.data ?? null;
  }

  /**
   * Stores what the owner answered for a record no event has brought yet (at `-infinity`), and
   * returns the copy as it now stands: the answer, or what an event (or a removal) stored first.
   */
  async remember<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, id: number, data: ProjectedKinds[K]): Promise<ProjectedKinds[K] | null> {
    const r = await db.query(`INSERT INTO ${this.table} (account_id, kind, id, data, version_at) VALUES ($1, $2, $3, $4, '-infinity') ON CONFLICT DO NOTHING`, [
      accountId,
      kind,
      id,
      JSON.stringify(data),
    ]);
    if ((r.rowCount ?? 0) > 0) return data;
    return (await this.rows<K>(db, kind, accountId, [id])).get(id) ?? null;
  }

  /**
   * The copies, and those missing (an event not handled yet, a record older than this service)
   * read through to their owner, in parallel, with the peers' lookup timeout. Unknown ids (404)
   * and removed ones are absent. An owner that fails leaves its records out (logged), or throws
   * when `strict`; after a failure, lenient lookups of that kind are skipped for `backoffMs`.
   */
  async readThrough<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, ids: Iterable<number | null | undefined>, o: ReadThroughOptions = {}): Promise<Map<number, ProjectedKinds[K]>> {
    const wanted = validIds(ids);
    return this.complete(db, kind, accountId, wanted, await this.rows<K>(db, kind, accountId, wanted), o);
  }

  /**
   * `readThrough` of several kinds at once: one query for every copy asked for (a page of
   * conversations names contacts, agents, teams and bots), then each kind's misses from its owner.
   */
  async readThroughKinds<K extends ProjectedKind>(
    db: Executor,
    accountId: number,
    wanted: { [P in K]: Iterable<number | null | undefined> },
    o: ReadThroughOptions = {},
  ): Promise<{ [P in K]: Map<number, ProjectedKinds[P]> }> {
    const pairs = wantedPairs(wanted);
    if (pairs.ids.length === 0) return this.completeKinds(db, accountId, wanted, [], o);
    const { rows } = await db.query<{ kind: K; id: number; data: unknown }>(this.readPairs([accountId, pairs.kinds, pairs.ids]));
    return this.completeKinds(db, accountId, wanted, rows, o);
  }

  /**
   * `readThroughKinds` when the copies were read already, by a statement of the caller's that
   * read them with its own rows (the conversation list's page): `rows` are the table's rows of
   * (some of) the wanted ids, tombstones included (`data` null); rows of ids not wanted are
   * ignored, and wanted ids without a row are read through to their owners.
   */
  async completeKinds<K extends ProjectedKind>(
    db: Executor,
    accountId: number,
    wanted: { [P in K]: Iterable<number | null | undefined> },
    rows: Iterable<{ kind: string; id: number; data: unknown }>,
    o: ReadThroughOptions = {},
  ): Promise<{ [P in K]: Map<number, ProjectedKinds[P]> }> {
    const kinds = Object.keys(wanted) as K[];
    const ids = new Map(kinds.map((k) => [k, validIds(wanted[k])] as const));
    const asked = new Map<string, Set<number>>(kinds.map((k) => [k, new Set(ids.get(k))]));
    const byKind = new Map<string, Map<number, unknown>>(kinds.map((k) => [k, new Map()]));
    for (const r of rows) if (asked.get(r.kind)?.has(r.id)) byKind.get(r.kind)?.set(r.id, r.data);
    const out = {} as { [P in K]: Map<number, ProjectedKinds[P]> };
    await Promise.all(
      kinds.map(async (k) => {
        out[k] = await this.complete(db, k, accountId, ids.get(k) as number[], byKind.get(k) as Map<number, ProjectedKinds[typeof k] | null>, o);
      }),
    );
    return out;
  }

  /** The live copies among `rows`, plus the misses of `wanted` read through to their owner. */
  private async complete<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, wanted: number[], rows: Map<number, ProjectedKinds[K] | null>, o: ReadThroughOptions): Promise<Map<number, ProjectedKinds[K]>> {
    const found = live(rows);
    const missing = wanted.filter((id) => !rows.has(id));
    if (missing.length === 0) return found;
    if (!o.strict && this.backingOff(kind)) return found;
    const peers = this.opts.peers;
    if (!peers) throw new Error(`projection kit: no peers client to read ${kind} through`);
    const answers = await Promise.allSettled(missing.map((id) => OWNERS[kind](peers, accountId, id, { requestId: o.requestId })));
    let failure: unknown = null;
    // One write at a time: `db` may be a transaction's client.
    for (const [i, answer] of answers.entries()) {
      const id = missing[i] as number;
      if (answer.status === 'fulfilled') {
        const copy = await this.remember(db, kind, accountId, id, answer.value);
        if (copy) found.set(id, copy);
        continue;
      }
      const err = answer.reason as Error;
      if (err instanceof AppError && err.status === 404) {
        if (o.rememberMisses) await db.query(`INSERT INTO ${this.table} (account_id, kind, id, data, version_at) VALUES ($1, $2, $3, NULL, '-infinity') ON CONFLICT DO NOTHING`, [accountId, kind, id]);
        continue;
      }
      failure ??= err;
      this.opts.log.warn({ kind, accountId, id, err: err.message }, `${kind} ${id} lookup failed`);
    }
    if (failure) {
      this.trip(kind);
      if (o.strict) throw failure;
    }
    return found;
  }

  /** One record through `readThrough`. */
  async readOne<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, id: number | null | undefined, o: ReadThroughOptions = {}): Promise<ProjectedKinds[K] | null> {
    if (typeof id !== 'number') return null;
    return (await this.readThrough(db, kind, accountId, [id], o)).get(id) ?? null;
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  private backingOff(kind: ProjectedKind): boolean {
    return (this.downUntil.get(kind) ?? 0) > this.now();
  }

  private trip(kind: ProjectedKind): void {
    const ms = this.opts.backoffMs ?? 0;
    if (ms > 0) this.downUntil.set(kind, this.now() + ms);
  }

  /** Rows of these ids, tombstones included (data null). */
  private async rows<K extends ProjectedKind>(db: Executor, kind: K, accountId: number, ids: number[]): Promise<Map<number, ProjectedKinds[K] | null>> {
    if (ids.length === 0) return new Map();
    const { rows } = await db.query<{ id: number; data: ProjectedKinds[K] | null }>(this.readRows([accountId, kind, ids]));
    return new Map(rows.map((r) => [r.id, r.data]));
  }
}

function live<T>(rows: Map<number, T | null>): Map<number, T> {
  const out = new Map<number, T>();
  for (const [id, data] of rows) if (data !== null) out.set(id, data);
  return out;
}

/** A service's peers client and projection kit, configured from its config (what its deps carry). */
export function peersAndProjections(deps: { service: string; config: BaseConfig; log: Logger }): { peers: Peers; projections: ProjectionKit } {
  const peers = createPeers(deps.service, deps.config);
  return { peers, projections: new ProjectionKit({ log: deps.log, peers, backoffMs: deps.config.PEER_LOOKUP_BACKOFF_MS }) };
}
