import { AppError, type Executor, type Logger } from '@parley/shared';

/** The records other services own that this one keeps a copy of (the `records` table). */
export type RecordKind = 'contact' | 'agent' | 'team' | 'agent_bot';

/** What a lookup of `id` stands for in logs: `contact 12`. */
const label = (kind: RecordKind, id: number) => `${kind} ${id}`;

/** Stores the owner's latest snapshot; an older event never overwrites a newer one. */
export async function upsertRecord(db: Executor, kind: RecordKind, accountId: number, id: number, data: unknown, occurredAt: string): Promise<void> {
  await db.query(
    `INSERT INTO records (account_id, kind, id, data, occurred_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, kind, id) DO UPDATE SET data = EXCLUDED.data, occurred_at = EXCLUDED.occurred_at
     WHERE records.occurred_at <= EXCLUDED.occurred_at`,
    [accountId, kind, id, JSON.stringify(data), occurredAt],
  );
}

export async function deleteRecord(db: Executor, kind: RecordKind, accountId: number, id: number): Promise<void> {
  await db.query('DELETE FROM records WHERE account_id = $1 AND kind = $2 AND id = $3', [accountId, kind, id]);
}

/** The stored snapshots of the given ids (missing ids are simply absent). */
export async function projectedRecords<T>(db: Executor, kind: RecordKind, accountId: number, ids: number[]): Promise<Map<number, T>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: number; data: T }>('SELECT id, data FROM records WHERE account_id = $1 AND kind = $2 AND id = ANY ($3::int[])', [accountId, kind, ids]);
  return new Map(rows.map((r) => [r.id, r.data]));
}

export interface ReadThrough<T> {
  kind: RecordKind;
  accountId: number;
  log: Logger;
  /** Asks the owner's internal API for one record. */
  fetch: (id: number) => Promise<T>;
  /** An unreachable owner throws instead of yielding nothing (for callers that must not guess). */
  strict?: boolean;
  /**
   * Lenient callers share one of these: after a failed lookup, that kind is not asked for again
   * until `backoffMs` has passed.
   */
  breaker?: OwnerBreaker;
}

/** Until when lenient lookups of each kind are skipped, after its owner failed to answer. */
export class OwnerBreaker {
  private readonly downUntil = new Map<RecordKind, number>();

  constructor(private readonly backoffMs: number) {}

  isOpen(kind: RecordKind): boolean {
    return (this.downUntil.get(kind) ?? 0) > Date.now();
  }

  tripped(kind: RecordKind): void {
    if (this.backoffMs > 0) this.downUntil.set(kind, Date.now() + this.backoffMs);
  }
}

/**
 * The records from the projection, and those it lacks (an event not handled yet, a record
 * older than this service) from their owner, stored as of the epoch so that any event, newer
 * by definition, replaces them. Unknown ids (404) are left out; an owner that does not answer
 * leaves them out too (or throws, when `strict`), so payloads go out minimal rather than late,
 * and while the breaker is open lenient lookups of that kind are not even tried.
 */
export async function recordsFor<T>(db: Executor, rt: ReadThrough<T>, wanted: Array<number | null | undefined>): Promise<Map<number, T>> {
  const ids = [...new Set(wanted.filter((id): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id > 0))];
  const found = await projectedRecords<T>(db, rt.kind, rt.accountId, ids);
  for (const id of ids) {
    if (found.has(id)) continue;
    if (!rt.strict && rt.breaker?.isOpen(rt.kind)) continue;
    try {
      const rec = await rt.fetch(id);
      await upsertRecord(db, rt.kind, rt.accountId, id, { ...rec, id }, new Date(0).toISOString());
      found.set(id, rec);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) continue;
      rt.breaker?.tripped(rt.kind);
      if (rt.strict) throw err;
      rt.log.warn({ accountId: rt.accountId, err: (err as Error).message }, `${label(rt.kind, id)} lookup failed`);
    }
  }
  return found;
}

/** One record through `recordsFor`. */
export async function recordFor<T>(db: Executor, rt: ReadThrough<T>, id: number | null | undefined): Promise<T | null> {
  if (typeof id !== 'number') return null;
  return (await recordsFor(db, rt, [id])).get(id) ?? null;
}
