import type { PoolClient } from 'pg';
import { PoisonMessageError, type BatchOptions, type HeaderBinding } from '../consumer';
import type { ConsumerSpec } from '../runtime';
import type { EventData, EventType } from './catalogue';
import type { EventEnvelope, TypedEnvelope } from './envelope';

/**
 * A handler of one or more event types: runs inside the consumer's transaction (the one that
 * also records the event id in `processed_events`, so a redelivery has no second effect) and
 * gets the event's data typed and validated by its contract.
 */
export type EventHandlerFor<T extends EventType> = (tx: PoolClient, data: EventData<T>, event: TypedEnvelope<T>) => Promise<void>;

/**
 * Registers the handler of one type, or of several that share a contract (`['agent.added', 'agent.updated']`).
 * `when` says which of those events the handler does anything with: the others are acked
 * without a transaction (the kernel consumer's `wants`), e.g. contacts handles only a contact's
 * own `message.created`, not agents' replies.
 */
export type On = <T extends EventType>(
  types: T | readonly T[],
  handler: EventHandlerFor<T>,
  opts?: {
    when?: (data: EventData<T>, event: TypedEnvelope<T>) => boolean;
    /**
     * The published headers (`routingHeaders`) an event of these types must have for the queue to
     * get it at all: the broker filters, so the others cost no delivery (a contact's messages:
     * `{ [SENDER_TYPE_HEADER]: 'Contact' }`), or several sets, any of which lets an event in
     * (every message but activity messages: `['0', '1', '3'].map((t) => ({ [MESSAGE_TYPE_HEADER]: t }))`).
     * `when` still decides for what does arrive.
     */
    headers?: Record<string, string> | ReadonlyArray<Record<string, string>>;
  },
) => void;

type HandleSpec = Extract<ConsumerSpec, { handle: unknown }>;
type BatchSpec = Extract<ConsumerSpec, { batch: unknown }>;

/**
 * A consumer declared per event type (Immich's EventMap): the queue `<service>.<name>` is bound
 * to exactly the types that have a handler, and each message goes to its type's handler.
 *
 *     defineConsumer('projections', (on) => {
 *       on('contact.deleted', async (tx, contact, event) => { ... });   // contact: ContactSnapshot
 *       on(['agent.added', 'agent.updated'], async (tx, agent) => { ... });
 *     });
 */
export function defineConsumer(name: string, register: (on: On) => void): HandleSpec {
  const handlers = new Map<string, EventHandlerFor<EventType>>();
  const filters = new Map<string, (data: unknown, event: unknown) => boolean>();
  const headerBindings: HeaderBinding[] = [];
  const on: On = (types, handler, opts) => {
    for (const type of (typeof types === 'string' ? [types] : types) as EventType[]) {
      if (handlers.has(type)) throw new Error(`consumer ${name}: two handlers for ${type}`);
      handlers.set(type, handler as unknown as EventHandlerFor<EventType>);
      if (opts?.when) filters.set(type, opts.when as unknown as (data: unknown, event: unknown) => boolean);
      // Several header sets: the queue gets an event that matches any of them.
      for (const headers of opts?.headers === undefined ? [] : Array.isArray(opts.headers) ? opts.headers : [opts.headers]) headerBindings.push({ type, headers });
    }
  };
  register(on);
  const filtered = new Set(headerBindings.map((b) => b.type));
  return {
    name,
    bindings: [...handlers.keys()].filter((t) => !filtered.has(t)),
    ...(headerBindings.length > 0 ? { headerBindings } : {}),
    // A stale binding's type (no handler) and events a handler's `when` declines need no transaction.
    wants: (event) => {
      if (!handlers.has(event.type)) return false;
      const when = filters.get(event.type);
      return when ? when(event.data, event) : true;
    },
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

/**
 * A per-message consumer run in batch mode (the kernel consumer's `batch`): the events that
 * arrive together are handled one after the other, in arrival order, in one transaction with
 * one processed_events insert, instead of a transaction each. Exactly-once is unchanged (a
 * failing batch is handled again one message at a time, so one bad event holds up no other);
 * under load the batches grow, when idle each event goes at once.
 *
 * Only for handlers whose effects are all in that transaction (a handler that calls another
 * service to change something would repeat the call when its batch is retried).
 */
export function inBatches(
  spec: HandleSpec,
  opts: {
    size: number;
    /** A number, or each event's own wait (BatchOptions' `maxWaitMs`). */
    maxWaitMs: BatchOptions['maxWaitMs'];
    /** Runs first, in the batch's transaction, with all its events: reads the handlers would each make, made at once. */
    before?: (tx: PoolClient, events: EventEnvelope[]) => Promise<void>;
  },
): BatchSpec {
  const { handle, ...rest } = spec;
  return {
    ...rest,
    batch: {
      size: opts.size,
      maxWaitMs: opts.maxWaitMs,
      handle: async (tx, events, each) => {
        await opts.before?.(tx, events);
        // Each event in its own consumer span: a delivery it queues stays in the request's trace.
        for (const event of events) await each(event, () => handle(tx, event));
      },
    },
  };
}
