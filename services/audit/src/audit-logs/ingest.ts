import type { EventEnvelope, PoolClient } from '@parley/shared';
import { entryFromEvent, type NewAuditEntry } from './mapping';
import { addToCounts, auditableKey, existingEventIds, insertEntries, reserveVersions, type VersionedEntry } from './repository';

/**
 * Records a batch of events in the caller's transaction: the kernel's batch consumer has already
 * recorded their ids in processed_events in this transaction and left out events seen before, so
 * entries, versions and per-account counts commit together with those ids or not at all, and a
 * crash or a redelivery can neither lose nor double an entry. The unique event id on the log is a
 * second guard for replays that bypass processed_events (e.g. after it was pruned). Versions follow
 * the order of the batch. An event that names no record or account is poison
 * (`PoisonMessageError` from the mapping: the consumer dead-letters it alone). Returns how many
 * entries were written.
 */
export async function ingestEvents(tx: PoolClient, events: EventEnvelope[]): Promise<number> {
  return recordEntries(tx, events.map((event) => entryFromEvent(event)).filter((e): e is NewAuditEntry => e !== null));
}

async function recordEntries(tx: PoolClient, fresh: NewAuditEntry[]): Promise<number> {
  if (fresh.length === 0) return 0;
  const recorded = await existingEventIds(tx, fresh.map((e) => e.eventId));
  const entries = fresh.filter((e) => !recorded.has(e.eventId));
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
