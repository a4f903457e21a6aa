/**
 * Imported first by every service's `main.ts`: when OTEL_EXPORTER_OTLP_ENDPOINT is set, starts
 * OpenTelemetry before express, pg, amqplib and ioredis are loaded, so their instrumentations
 * patch them. When it is not set this loads nothing but the OpenTelemetry API.
 * The service is named by OTEL_SERVICE_NAME, else by its path (`services/<name>/dist/main.js`).
 */
import { startTracingFromEnv } from './tracing';

const fromPath = /services[\\/]([^\\/]+)[\\/]/.exec(process.argv[1] ?? '')?.[1];
startTracingFromEnv(process.env, fromPath ?? 'parley');
