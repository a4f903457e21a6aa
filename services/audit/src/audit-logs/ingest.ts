import type { ConsumerSpec, EventEnvelope, Logger, PoolClient } from '@parley/shared';
import { AUDITED_EVENT_TYPES, entryFromEvent } from './mapping';
import { insertEntry, lockAuditable } from './repository';

/**
 * Records one event, inside the consumer's transaction (which also holds the kernel's
 * processed_events row): both commit together or neither does, so a crash or redelivery
 * can neither lose nor double an entry. The UNIQUE event_id is a second guard for replays
 * that bypass processed_events (e.g. a re-run after that table was pruned).
 */
export async function recordEvent(tx: PoolClient, event: EventEnvelope, log: Logger): Promise<void> {
  const entry = entryFromEvent(event);
  if (!entry) {
    log.debug({ type: event.type, eventId: event.id }, 'not an auditable event; skipped');
    return;
  }
  await lockAuditable(tx, entry.accountId, entry.auditableType, entry.auditableId);
  const written = await insertEntry(tx, entry);
  if (!written) log.info({ type: event.type, eventId: event.id }, 'audit entry for this event exists already');
}

/** The `audit.events` queue, bound to every auditable event type. */
export function auditConsumer(log: Logger): ConsumerSpec {
  return {
    name: 'events',
    bindings: [...AUDITED_EVENT_TYPES],
    handle: (tx, event) => recordEvent(tx, event, log),
  };
}
