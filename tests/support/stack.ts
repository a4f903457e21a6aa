import { bootService, type BaseConfig, type RunningService, type ServiceDefinition } from '@parley/shared';
import { createTestEnv, type TestEnv } from '@parley/testkit';
import { gatewayService, gatewayConfigSchema, type GatewayConfig } from '@parley/gateway';
import { conversationsService, conversationsConfigSchema } from '@parley/conversations';
import { contactsService, contactsConfigSchema } from '@parley/contacts';
import { helpcenterService, helpcenterConfigSchema } from '@parley/helpcenter';
import { automationService, automationConfigSchema } from '@parley/automation';
import { auditService, auditConfigSchema } from '@parley/audit';

export const PLATFORM_TOKEN = 'test-platform-token-0123456789abcdef';

export interface Stack {
  env: TestEnv;
  gatewayUrl: string;
  gateway: RunningService<GatewayConfig>;
  services: Record<string, RunningService>;
  stop(): Promise<void>;
}

type Def = { def: ServiceDefinition<any>; schema: { parse(v: unknown): BaseConfig } };

const DOWNSTREAM: Record<string, Def> = {
  conversations: { def: conversationsService, schema: conversationsConfigSchema },
  contacts: { def: contactsService, schema: contactsConfigSchema },
  helpcenter: { def: helpcenterService, schema: helpcenterConfigSchema },
  automation: { def: automationService, schema: automationConfigSchema },
  audit: { def: auditService, schema: auditConfigSchema },
};

const URL_KEYS: Record<string, string> = {
  conversations: 'CONVERSATIONS_URL',
  contacts: 'CONTACTS_URL',
  helpcenter: 'HELPCENTER_URL',
  automation: 'AUTOMATION_URL',
  audit: 'AUDIT_URL',
};

/**
 * The whole system in-process on free ports, against this file's database and bus
 * namespace: every downstream service, then the gateway pointed at them.
 */
export async function startStack(opts: { only?: string[]; gateway?: Record<string, unknown>; service?: Record<string, Record<string, unknown>> } = {}): Promise<Stack> {
  const env = await createTestEnv();
  const names = opts.only ?? Object.keys(DOWNSTREAM);
  const services: Record<string, RunningService> = {};
  const urls: Record<string, string> = {};
  // Services find each other (and the gateway's internal API) through these; fill them in
  // as ports become known. Unstarted services point at a closed port (503 when called).
  for (const key of Object.values(URL_KEYS)) urls[key] = 'http://127.0.0.1:9';
  const gwPort = await freePort();
  urls['GATEWAY_INTERNAL_URL'] = `http://127.0.0.1:${gwPort}`;
  const ports: Record<string, number> = {};
  for (const name of names) {
    ports[name] = await freePort();
    urls[URL_KEYS[name] as string] = `http://127.0.0.1:${ports[name]}`;
  }
  for (const name of names) {
    const d = DOWNSTREAM[name] as Def;
    const config = d.schema.parse({ ...env.config, ...urls, PORT: ports[name], ...(opts.service?.[name] ?? {}) });
    services[name] = await bootService(d.def, config, { port: ports[name] as number, host: '127.0.0.1', migrate: false });
  }
  const gwConfig = gatewayConfigSchema.parse({ ...env.config, ...urls, PLATFORM_API_TOKEN: PLATFORM_TOKEN, ...(opts.gateway ?? {}) });
  const gateway = (await bootService(gatewayService, gwConfig, { port: gwPort, host: '127.0.0.1', migrate: false })) as RunningService<GatewayConfig>;
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

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
