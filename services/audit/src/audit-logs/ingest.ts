import type { EventEnvelope, PoolClient } from '@parley/shared';
import type { NewAuditEntry } from './mapping';
import { addToCounts, auditableKey, existingEventIds, insertEntries, reserveVersions, type VersionedEntry } from './repository';

/** The consumer's name in processed_events (and its queue, `audit.events`). */
export const AUDIT_QUEUE = 'audit.events';

export interface IngestItem {
  event: EventEnvelope;
  /** The entry the event records; null for an event that is not auditable. */
  entry: NewAuditEntry | null;
}

/**
 * Records a batch of events in the caller's transaction: the processed_events rows, the
 * entries with their versions, and the per-account counts commit together or not at all,
 * so a crash or a redelivery can neither lose nor double an entry. Events seen before
 * (redelivered, or twice in one batch) are skipped; the unique event id on the log is a
 * second guard for replays that bypass processed_events (e.g. after it was pruned).
 * Versions follow the order of the batch. Returns how many entries were written.
 */
export async function recordBatch(tx: PoolClient, items: IngestItem[]): Promise<number> {
  const byId = new Map<string, IngestItem>();
  for (const item of items) if (!byId.has(item.event.id)) byId.set(item.event.id, item);
  if (byId.size === 0) return 0;

  const fresh = await tx.query<{ event_id: string }>(
    'INSERT INTO processed_events (event_id, consumer) SELECT unnest($1::uuid[]), $2 ON CONFLICT DO NOTHING RETURNING event_id',
    [[...byId.keys()], AUDIT_QUEUE],
  );
  const freshIds = new Set(fresh.rows.map((r) => r.event_id));
  let entries = [...byId.values()].filter((i) => freshIds.has(i.event.id) && i.entry !== null).map((i) => i.entry as NewAuditEntry);
  if (entries.length === 0) return 0;
  const recorded = await existingEventIds(tx, entries.map((e) => e.eventId));
  entries = entries.filter((e) => !recorded.has(e.eventId));
  if (entries.length === 0) return 0;

  const counts = new Map<string, { accountId: number; auditableType: string; auditableId: number; count: number }>();
  for (const e of entries) {
    const key = auditableKey(e);
    const c = counts.get(key);
    if (c) c.count += 1;
    else counts.set(key, { accountId: e.accountId, auditableType: e.auditableType, auditableId: e.auditableId, count: 1 });
  }
  const next = await reserveVersions(tx, [...counts.values()]);
  const versioned: VersionedEntry[] = entries.map((e) => {
    const key = auditableKey(e);
    const version = next.get(key) as number;
    next.set(key, version + 1);
    return { ...e, version };
  });
  const added = await insertEntries(tx, versioned);
  await addToCounts(tx, added);
  let written = 0;
  for (const n of added.values()) written += n;
  return written;
}
