import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { actorSchema, type RequestContext } from '../context';
import { describeIssues, parseContract } from '../contracts/common';
import { eventCatalogue, type EventData, type EventType } from './catalogue';
import { currentTraceparent } from '../tracing';

export const EXCHANGE = 'domain.events';
export const DEAD_LETTER_EXCHANGE = 'domain.events.dlx';
/**
 * Published with every event: its type (also the routing key), for bindings through a headers
 * exchange. Not `x-` names: RabbitMQ's headers exchange leaves those out of its match.
 */
export const TYPE_HEADER = 'parley-type';
/** Published with every event of MESSAGE_HEADER_TYPES: the sender's type (`Contact`, `User`, `AgentBot`, ...; absent when nobody sent it). */
export const SENDER_TYPE_HEADER = 'parley-sender-type';
/** The event types published with the sender and message type headers (the relay reads them from `data`). */
export const MESSAGE_HEADER_TYPES: readonly string[] = ['message.created', 'message.updated'];
/** Published with every event of MESSAGE_HEADER_TYPES: its `message_type` as text (`'0'` incoming, `'1'` outgoing, `'2'` activity, `'3'` template). */
export const MESSAGE_TYPE_HEADER = 'parley-message-type';
/** Header sets (`on(type, handler, { headers })`) that let in every message but activity messages (type 2). */
export const NOT_ACTIVITY_MESSAGES: ReadonlyArray<Record<string, string>> = ['0', '1', '3'].map((t) => ({ [MESSAGE_TYPE_HEADER]: t }));
/**
 * Published with every event by a relay that sets every routing header above (`ROUTED_VALUE`):
 * a queue's filter drops an event of a filtered type that matches none of its bindings only
 * when it carries this, so that one from an older relay, which lacks a header a binding tests,
 * still reaches the queue (whose `wants` decides) instead of being dropped.
 */
export const ROUTED_HEADER = 'parley-routed';
export const ROUTED_VALUE = '2';

/**
 * The content type of a message that carries several events (a JSON array of envelopes): the
 * relay's bundles of one claim's events with the same routing (type and headers), so the broker
 * stores, routes and delivers them once, not once an event. A message of `application/json`
 * carries one envelope, as every producer but the relay publishes.
 */
export const BUNDLE_CONTENT_TYPE = 'application/vnd.parley.events+json';

/**
 * The events a message carries, unvalidated: its one envelope, or a bundle's (BUNDLE_CONTENT_TYPE).
 * Null when the body is not JSON, or a bundle's is not a non-empty array.
 */
export function eventsOfMessage(content: Buffer, contentType: string | undefined): unknown[] | null {
  let raw: unknown;
  try {
    raw = JSON.parse(content.toString('utf8'));
  } catch {
    return null;
  }
  if (contentType !== BUNDLE_CONTENT_TYPE) return [raw];
  return Array.isArray(raw) && raw.length > 0 ? raw : null;
}

/** `{field: [before, after]}` */
export const changesSchema = z.record(z.string(), z.tuple([z.unknown(), z.unknown()]));
export type Changes = z.infer<typeof changesSchema>;

export const envelopeSchema = z.object({
  id: z.uuid(),
  type: z.string().min(1),
  version: z.number().int().positive(),
  occurred_at: z.iso.datetime({ offset: true }),
  account_id: z.number().int().nullable(),
  actor: actorSchema,
  request_id: z.string().nullable(),
  causation_id: z.string().nullable().optional(),
  /**
   * Only checked to be an object here: `parseEnvelope` parses it against its type's contract next,
   * and reading every field as a record first (a copy of the object) was that work twice: the
   * envelope's own parse went from 6.7 to 2.1 µs a message event (docs/benchmarks.md, "Other
   * benchmarks"), in every consumer of every event.
   */
  data: z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { message: 'Invalid input: expected object' }),
  changes: changesSchema.nullable().optional(),
  /** Request metadata the audit log records (client IP of the request that caused it). */
  meta: z.object({ ip: z.string().nullable().optional() }).optional(),
  /** W3C trace context of the span that wrote the event (tracing on): consumers continue the trace. */
  traceparent: z.string().max(128).optional(),
});
export type EventEnvelope = z.infer<typeof envelopeSchema>;

/** An envelope whose `data` is the contract of its type (what `defineConsumer` handlers get). */
export type TypedEnvelope<T extends EventType = EventType> = Omit<EventEnvelope, 'type' | 'data'> & { type: T; data: EventData<T> };

export interface NewEvent {
  type: EventType;
  accountId: number | null;
  data: Record<string, unknown>;
  changes?: Changes | null;
  causationId?: string | null;
}

/** Thrown when a producer writes data its contract does not describe (a bug, never bad input). */
export class ContractViolationError extends Error {}

/**
 * Builds a full envelope from the request context. The data must be exactly its type's contract
 * (no missing, mistyped or unknown field), so what is published is what the contract says.
 */
export function buildEnvelope(ctx: RequestContext, ev: NewEvent): EventEnvelope {
  const checked = eventCatalogue[ev.type].safeParse(ev.data);
  if (!checked.success) throw new ContractViolationError(`${ev.type} data breaks its contract: ${describeIssues(checked.error, 'data')}`);
  const data = checked.data as Record<string, unknown>;
  const traceparent = currentTraceparent() ?? ctx.traceparent;
  return {
    // Time-ordered (RFC 9562 version 7: the millisecond first, then a counter and random bits): every index keyed
    // by event id (the outbox's, each consumer's processed_events) takes new ids at its right
    // edge instead of on a random page (docs/architecture.md, "Events").
    id: uuidv7(),
    type: ev.type,
    version: 1,
    occurred_at: new Date().toISOString(),
    account_id: ev.accountId,
    actor: ctx.actor,
    request_id: ctx.requestId,
    causation_id: ev.causationId ?? null,
    data,
    changes: ev.changes ?? null,
    meta: { ip: ctx.ip },
    ...(traceparent ? { traceparent } : {}),
  };
}

/**
 * Validates a message off the wire: the envelope, then the data of a known type against its
 * contract (fields a newer producer added are dropped, so `data` is exactly the contract).
 * Returns an error string for poison messages instead of throwing.
 */
export function parseEnvelope(raw: unknown): { ok: true; envelope: EventEnvelope } | { ok: false; error: string } {
  const env = envelopeSchema.safeParse(raw);
  if (!env.success) return { ok: false, error: env.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const schema = (eventCatalogue as Record<string, z.ZodType>)[env.data.type];
  if (!schema) return { ok: false, error: `unknown event type ${env.data.type}` };
  const data = parseContract(schema, env.data.data);
  if (!data.success) return { ok: false, error: describeIssues(data.error, 'data') };
  return { ok: true, envelope: { ...env.data, data: data.data as Record<string, unknown> } };
}

/** Diff of two flat snapshots, for `changes` (only keys whose JSON differs). */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>, keys?: string[]): Changes {
  const out: Changes = {};
  for (const k of keys ?? Object.keys(after)) {
    if (JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null)) out[k] = [before[k] ?? null, after[k] ?? null];
  }
  return out;
}
