import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then the SDK is loaded,
 * spans go to that endpoint over OTLP/HTTP, and the maintained instrumentations for http,
 * express, pg, amqplib and ioredis record each call. When off, nothing is loaded and every
 * helper below returns at its first line.
 *
 * The trace context crosses every hop in our own envelopes too, so one trace follows a message
 * even where no instrumentation sees the hop: the gateway puts `traceparent` in the signed
 * context (services continue from it), producers write it into the event envelope with the
 * outbox row (consumers continue from it), and the webhook consumer stores it with each
 * delivery (the sender continues from it and passes it to the receiver).
 */

let enabled = false;
let tracerName = 'parley';
let running: Tracing | null = null;

export function tracingEnabled(): boolean {
  return enabled;
}

export interface TracingOptions {
  serviceName: string;
  /** Where spans go; by default OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT. Tests pass an in-memory exporter. */
  exporter?: SpanExporter;
  /** Export each span when it ends (tests) instead of in batches. */
  simple?: boolean;
  /** Patch http, express, pg, amqplib and ioredis (default true; must run before they are loaded). */
  instrument?: boolean;
  /** Share of new traces kept (a trace started upstream keeps its caller's decision); default 1. */
  sampleRatio?: number;
}

export interface Tracing {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for this process (once). Call it before anything loads express, pg,
 * amqplib or ioredis, or their instrumentations see nothing: `main.ts` files import
 * `@parley/shared/dist/tracing-register` first.
 */
export function startTracing(opts: TracingOptions): Tracing {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { TracerProvider, BatchSpanProcessor, SimpleSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  let exporter = opts.exporter;
  if (!exporter) {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter() as unknown as SpanExporter;
  }
  const processor = opts.simple ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter });
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(opts.sampleRatio ?? 1) });
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': opts.serviceName }), spanProcessors: [processor], sampler });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  if (opts.instrument !== false) {
    const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
    const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
    const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
    const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
    const { AmqplibInstrumentation } = require('@opentelemetry/instrumentation-amqplib') as typeof import('@opentelemetry/instrumentation-amqplib');
    const { IORedisInstrumentation } = require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
    registerInstrumentations({
      tracerProvider: provider,
      instrumentations: [
        // Probes and scrapes are not worth a trace each.
        new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz|metrics)(\?|$)/.test(req.url ?? '') }),
        new ExpressInstrumentation(),
        // Only inside a request or an event: the relay's and workers' polling is not a trace each.
        new PgInstrumentation({ requireParentSpan: true }),
        new AmqplibInstrumentation(),
        new IORedisInstrumentation({ requireParentSpan: true }),
      ],
    });
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  tracerName = opts.serviceName;
  enabled = true;
  return (running = {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      enabled = false;
      await provider.shutdown();
      running = null;
      trace.disable();
      propagation.disable();
      context.disable();
    },
  });
}

/** Flushes and stops tracing if it runs (a process exiting after SIGTERM: spans still batched are sent). */
export async function shutdownTracing(): Promise<void> {
  await running?.shutdown().catch(() => undefined);
}

/** Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (OTEL_SERVICE_NAME names the service); otherwise does nothing. */
export function startTracingFromEnv(env: NodeJS.ProcessEnv = process.env, fallbackName = 'parley'): Tracing | null {
  if (!env['OTEL_EXPORTER_OTLP_ENDPOINT'] || enabled) return null;
  const ratio = Number(env['OTEL_TRACES_SAMPLER_ARG'] ?? 1);
  return startTracing({ serviceName: env['OTEL_SERVICE_NAME'] || fallbackName, sampleRatio: Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1 });
}

/** The active trace context as a W3C `traceparent`, or undefined (tracing off, or no span). */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'];
}

/** Runs `fn` with `traceparent` as the active context (tracing on), so spans it makes join that trace. */
export function withTraceparent<T>(traceparent: string | null | undefined, fn: () => T): T {
  if (!enabled || !traceparent) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent }), fn);
}

/** The trace id inside a `traceparent` (32 hex digits), or null. */
export function traceIdOf(traceparent: string | undefined | null): string | null {
  const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent ?? '');
  return m ? (m[1] as string) : null;
}

export interface SpanOptions {
  kind: 'server' | 'client' | 'consumer' | 'producer' | 'internal';
  /** Continue this trace (a `traceparent` from a signed context, an envelope or a stored row). */
  parent?: string | null;
  attributes?: Attributes;
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, consumer: SpanKind.CONSUMER, producer: SpanKind.PRODUCER, internal: SpanKind.INTERNAL };

function parentContext(parent: string | null | undefined): Context {
  return parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : context.active();
}

/**
 * Runs `fn` inside a new span (active for everything it starts), a child of `parent` when
 * given; ends it when `fn` settles, recording an error. With tracing off it just runs `fn`.
 */
export async function inSpan<T>(name: string, opts: SpanOptions, fn: (span: Span | null) => Promise<T>): Promise<T> {
  if (!enabled) return fn(null);
  const tracer = trace.getTracer(tracerName);
  const span = tracer.startSpan(name, { kind: KINDS[opts.kind], attributes: opts.attributes }, parentContext(opts.parent));
  try {
    return await context.with(trace.setSpan(parentContext(opts.parent), span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    throw err;
  } finally {
    span.end();
  }
}

export interface ServerSpan {
  /** Runs `fn` with the span active (for everything it starts). */
  run<T>(fn: () => T): T;
  end(name: string, attributes: Attributes, error: boolean): void;
}

/**
 * For a request a middleware sees: a server span, a child of `parent`, unless tracing is off
 * or the http instrumentation already made one for this trace (then null: nothing to add).
 */
export function serverSpan(name: string, parent: string | null | undefined): ServerSpan | null {
  if (!enabled) return null;
  const active = trace.getActiveSpan();
  if (active && active.isRecording() && (!parent || active.spanContext().traceId === traceIdOf(parent))) return null;
  const parentCtx = parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : ROOT_CONTEXT;
  const span = trace.getTracer(tracerName).startSpan(name, { kind: SpanKind.SERVER }, parentCtx);
  const ctx = trace.setSpan(parentCtx, span);
  return {
    run: (fn) => context.with(ctx, fn),
    end(finalName, attributes, error) {
      span.updateName(finalName);
      span.setAttributes(attributes);
      if (error) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
