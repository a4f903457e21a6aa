import { bootService, serviceEntry, type Logger, type ServiceName, type BaseConfig, type RunningService, type ServiceDefinition } from '@parley/shared';
import { createTestEnv, freePort, type TestEnv } from '@parley/testkit';
import { gatewayService, gatewayConfigSchema, type GatewayConfig } from '@parley/gateway';
import { conversationsService, conversationsConfigSchema } from '@parley/conversations';
import { contactsService, contactsConfigSchema } from '@parley/contacts';
import { helpcenterService, helpcenterConfigSchema } from '@parley/helpcenter';
import { automationService, automationConfigSchema } from '@parley/automation';
import { auditService, auditConfigSchema } from '@parley/audit';
import { realtimeService, realtimeConfigSchema } from '@parley/realtime';
import { reportsService, reportsConfigSchema } from '@parley/reports';

export const PLATFORM_TOKEN = 'test-platform-token-0123456789abcdef';

export interface Stack {
  env: TestEnv;
  gatewayUrl: string;
  gateway: RunningService<GatewayConfig>;
  services: Record<string, RunningService>;
  stop(): Promise<void>;
}

type Def = { def: ServiceDefinition<any>; schema: { parse(v: unknown): BaseConfig } };

/** Every service in the registry but the gateway (a new registry entry is a type error here until it is added). */
const DOWNSTREAM: Record<Exclude<ServiceName, 'gateway'>, Def> = {
  conversations: { def: conversationsService, schema: conversationsConfigSchema },
  contacts: { def: contactsService, schema: contactsConfigSchema },
  helpcenter: { def: helpcenterService, schema: helpcenterConfigSchema },
  automation: { def: automationService, schema: automationConfigSchema },
  audit: { def: auditService, schema: auditConfigSchema },
  realtime: { def: realtimeService, schema: realtimeConfigSchema },
  reports: { def: reportsService, schema: reportsConfigSchema },
};
type Downstream = keyof typeof DOWNSTREAM;
const urlKeyOf = (name: string): string => serviceEntry(name as ServiceName).urlKey;

/**
 * The whole system in-process on free ports, against this file's database and bus
 * namespace: every downstream service, then the gateway pointed at them.
 */
export async function startStack(
  opts: {
    only?: string[];
    gateway?: Record<string, unknown>;
    service?: Record<string, Record<string, unknown>>;
    /** Each service's DATABASE_URL from the file's (fault tests route one service through a gate). */
    databaseUrl?: (service: string, url: string) => string;
    /** Settings for every service and the gateway (a private Redis, say). */
    all?: Record<string, unknown>;
    /** A service's logger (tests that read what a service logged); quiet otherwise. */
    log?: (service: string) => Logger | undefined;
  } = {},
): Promise<Stack> {
  const env = await createTestEnv();
  const names = opts.only ?? Object.keys(DOWNSTREAM);
  const services: Record<string, RunningService> = {};
  const urls: Record<string, string> = {};
  // Services find each other (and the gateway's internal API) through these; fill them in
  // as ports become known. Unstarted services point at a closed port (503 when called).
  for (const name of Object.keys(DOWNSTREAM)) urls[urlKeyOf(name)] = 'http://127.0.0.1:9';
  const gwPort = await freePort();
  urls[urlKeyOf('gateway')] = `http://127.0.0.1:${gwPort}`;
  const ports: Record<string, number> = {};
  for (const name of names) {
    ports[name] = await freePort();
    urls[urlKeyOf(name)] = `http://127.0.0.1:${ports[name]}`;
  }
  for (const name of names) {
    const d = DOWNSTREAM[name as Downstream];
    const dbUrl = opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl(name, env.config.DATABASE_URL) } : {};
    const config = d.schema.parse({ ...env.config, ...urls, PORT: ports[name], ...dbUrl, ...(opts.all ?? {}), ...(opts.service?.[name] ?? {}) });
    services[name] = await bootService(d.def, config, { port: ports[name] as number, host: '127.0.0.1', migrate: false, log: opts.log?.(name) });
  }
  const gwDbUrl = opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl('gateway', env.config.DATABASE_URL) } : {};
  const gwConfig = gatewayConfigSchema.parse({ ...env.config, ...urls, PLATFORM_API_TOKEN: PLATFORM_TOKEN, ...gwDbUrl, ...(opts.all ?? {}), ...(opts.gateway ?? {}) });
  const gateway = (await bootService(gatewayService, gwConfig, { port: gwPort, host: '127.0.0.1', migrate: false, log: opts.log?.('gateway') })) as RunningService<GatewayConfig>;
  return {
    env,
    gatewayUrl: gateway.url,
    gateway,
    services,
    async stop() {
      await gateway.stop();
      await Promise.all(Object.values(services).map((s) => s.stop()));
      await env.close();
    },
  };
}
