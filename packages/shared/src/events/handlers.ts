import type { PoolClient } from 'pg';
import { PoisonMessageError } from '../consumer';
import type { ConsumerSpec } from '../runtime';
import type { EventData, EventType } from './catalogue';
import type { EventEnvelope, TypedEnvelope } from './envelope';

/**
 * A handler of one or more event types: runs inside the consumer's transaction (the one that
 * also records the event id in `processed_events`, so a redelivery has no second effect) and
 * gets the event's data typed and validated by its contract.
 */
export type EventHandlerFor<T extends EventType> = (tx: PoolClient, data: EventData<T>, event: TypedEnvelope<T>) => Promise<void>;

/** Registers the handler of one type, or of several that share a contract (`['agent.added', 'agent.updated']`). */
export type On = <T extends EventType>(types: T | readonly T[], handler: EventHandlerFor<T>) => void;

/**
 * A consumer declared per event type (Immich's EventMap): the queue `<service>.<name>` is bound
 * to exactly the types that have a handler, and each message goes to its type's handler.
 *
 *     defineConsumer('projections', (on) => {
 *       on('contact.deleted', async (tx, contact, event) => { ... });   // contact: ContactSnapshot
 *       on(['agent.added', 'agent.updated'], async (tx, agent) => { ... });
 *     });
 */
export function defineConsumer(name: string, register: (on: On) => void): Extract<ConsumerSpec, { handle: unknown }> {
  const handlers = new Map<string, EventHandlerFor<EventType>>();
  const on: On = (types, handler) => {
    for (const type of (typeof types === 'string' ? [types] : types) as EventType[]) {
      if (handlers.has(type)) throw new Error(`consumer ${name}: two handlers for ${type}`);
      handlers.set(type, handler as unknown as EventHandlerFor<EventType>);
    }
  };
  register(on);
  return {
    name,
    bindings: [...handlers.keys()],
    handle: async (tx, event) => {
      const handler = handlers.get(event.type);
      // The queue is bound to handled types only; anything else is a stale binding: nothing to do.
      if (!handler) return;
      await handler(tx, event.data as EventData<EventType>, event as TypedEnvelope);
    },
  };
}

/** The account an event is about: the envelope's, else its record's own `account_id` (poison without one). */
export function accountOf(event: Pick<EventEnvelope, 'type' | 'account_id' | 'data'>): number {
  const own = event.data['account_id'];
  const id = event.account_id ?? (typeof own === 'number' ? own : null);
  if (id === null) throw new PoisonMessageError(`${event.type} without an account`);
  return id;
}
