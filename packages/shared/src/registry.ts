import { z } from 'zod';

/**
 * The one list of services. Everything that names a service reads it: config defaults (each
 * service's `PORT`, every `*_URL` a service uses to call another), the gateway's routing,
 * `scripts/services.js` (start, migrate, the deploy and metrics tests), jest's module map and the
 * test stacks. docker-compose.yml and deploy/k8s are static files; tests/deploy checks them against
 * this list.
 *
 * - `port`: the default HTTP port (compose and Kubernetes use the same).
 * - `urlKey`: the config key holding the service's base URL for its peers.
 * - `scale`: `cpu` (HTTP-bound: an HPA on CPU) or `queue` (a consumer: KEDA on the depth of each of
 *   its `queues`, the durable queues it consumes).
 * - `semiSpaceMb`: the cap on V8's young generation, MB a semi-space (`--max-semi-space-size`, on the
 *   service's command line in compose and Kubernetes and from `pnpm start`; the image's NODE_OPTIONS
 *   sets 8 for the rest). The consumers take 16, V8's own cap: every event they handle is garbage
 *   by the batch's end, and at 8 their scavenges cost a message create ~5% of its CPU (docs/deploy.md).
 *   The conversations service takes 32: a list page's rows and answer (73 KB) are live while
 *   scavenges run, and at 8 copying them cost the list ~0.5-0.7 CPU ms a page (docs/deploy.md). The
 *   larger young generation is given back about 7 s into a quiet spell (HEAP_TRIM_IDLE_MS).
 *
 * Adding a service: one entry here, in start order (the gateway last, once its upstreams are up).
 */
export const SERVICE_REGISTRY = [
  { name: 'conversations', port: 3001, urlKey: 'CONVERSATIONS_URL', scale: 'cpu', queues: ['conversations.projections'], semiSpaceMb: 32 },
  { name: 'contacts', port: 3002, urlKey: 'CONTACTS_URL', scale: 'cpu', queues: ['contacts.events'] },
  { name: 'helpcenter', port: 3003, urlKey: 'HELPCENTER_URL', scale: 'cpu', queues: ['helpcenter.identity'] },
  { name: 'automation', port: 3004, urlKey: 'AUTOMATION_URL', scale: 'queue', queues: ['automation.rules', 'automation.webhooks', 'automation.projections'], semiSpaceMb: 16 },
  { name: 'audit', port: 3005, urlKey: 'AUDIT_URL', scale: 'queue', queues: ['audit.events'], semiSpaceMb: 16 },
  { name: 'realtime', port: 3006, urlKey: 'REALTIME_URL', scale: 'queue', queues: ['realtime.fanout'], semiSpaceMb: 16 },
  { name: 'reports', port: 3007, urlKey: 'REPORTS_URL', scale: 'queue', queues: ['reports.events'], semiSpaceMb: 16 },
  { name: 'gateway', port: 3000, urlKey: 'GATEWAY_INTERNAL_URL', scale: 'cpu', queues: [] },
] as const satisfies ReadonlyArray<{ name: string; port: number; urlKey: `${string}_URL`; scale: 'cpu' | 'queue'; queues: readonly string[]; semiSpaceMb?: number }>;

export type ServiceEntry = (typeof SERVICE_REGISTRY)[number];
export type ServiceName = ServiceEntry['name'];
export type ServiceUrlKey = ServiceEntry['urlKey'];

export function serviceEntry<N extends ServiceName>(name: N): Extract<ServiceEntry, { name: N }> {
  const entry = SERVICE_REGISTRY.find((s) => s.name === name);
  if (!entry) throw new Error(`unknown service ${name}`);
  return entry as Extract<ServiceEntry, { name: N }>;
}

/** A service's `PORT` setting, defaulting to its registry port. */
export function portSetting(name: ServiceName) {
  return z.coerce.number().int().min(0).max(65535).default(serviceEntry(name).port);
}

/** Every service's base-URL setting (`CONVERSATIONS_URL`, ...), defaulting to localhost and its registry port. */
export function serviceUrlSettings(): { [K in ServiceUrlKey]: z.ZodDefault<z.ZodString> } {
  return Object.fromEntries(SERVICE_REGISTRY.map((s) => [s.urlKey, z.string().url().default(`http://127.0.0.1:${s.port}`)])) as {
    [K in ServiceUrlKey]: z.ZodDefault<z.ZodString>;
  };
}
