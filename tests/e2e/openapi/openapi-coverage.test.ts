import type { ServiceDefinition } from '@parley/shared';
import { gatewayService } from '@parley/gateway';
import { conversationsService } from '@parley/conversations';
import { contactsService } from '@parley/contacts';
import { helpcenterService } from '@parley/helpcenter';
import { automationService } from '@parley/automation';
import { auditService } from '@parley/audit';
import { reportsService } from '@parley/reports';
import { startStack, type Stack } from '../../support/stack';
import { contractDocument, registeredRoutes, routeKey } from '../../support/contract';

/**
 * Route coverage: the routes each service's express app really registers (read from its
 * router, so nothing in the route files has to change) against the operations the document
 * says that service answers. A route nobody documented, or a documented operation no route
 * serves, fails here by name.
 */

const DEFINITIONS: Record<string, ServiceDefinition<any>> = {
  gateway: gatewayService,
  conversations: conversationsService,
  contacts: contactsService,
  helpcenter: helpcenterService,
  automation: automationService,
  audit: auditService,
  reports: reportsService,
};

/** What integrators can call through the gateway (not /internal, /healthz, /readyz or the docs). */
const PUBLIC_PREFIXES = ['/api/', '/public/', '/platform/', '/cable'];

describe('every route is in the OpenAPI document and the document has no route that does not exist', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  function routesOf(service: string): Map<string, string> {
    // A second app instance over the running service's connections: only its router is read.
    const deps = service === 'gateway' ? stack.gateway.deps : stack.services[service]!.deps;
    const app = (DEFINITIONS[service] as ServiceDefinition<any>).createApp(deps);
    const routes = registeredRoutes(app).filter((r) => PUBLIC_PREFIXES.some((p) => r.path.startsWith(p)));
    return new Map(routes.map((r) => [routeKey(r.method, r.path), `${r.method.toUpperCase()} ${r.path}`]));
  }

  function documentedBy(service: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const [path, byMethod] of Object.entries(contractDocument().paths)) {
      for (const [method, op] of Object.entries(byMethod)) {
        if (op?.['x-parley-service'] === service) out.set(routeKey(method, path), `${method.toUpperCase()} ${path} (${op.operationId})`);
      }
    }
    return out;
  }

  it('when the routes are read from the apps, then the reader finds them (a known route of each kind)', () => {
    expect([...routesOf('gateway').keys()]).toEqual(expect.arrayContaining(['GET /api/v1/profile', 'DELETE /api/v1/accounts/{}/agents/{}', 'POST /platform/api/v1/accounts']));
    expect([...routesOf('audit').keys()]).toContain('GET /api/v1/accounts/{}/audit_logs');
    // Routers nested in routers (helpcenter mounts portals inside an account router).
    expect([...routesOf('helpcenter').keys()]).toEqual(expect.arrayContaining(['GET /api/v1/accounts/{}/portals', 'POST /api/v1/accounts/{}/portals/{}/articles']));
  });

  it.each(Object.keys(DEFINITIONS))('when %s is compared with the document, then nothing is missing or extra', (service) => {
    const registered = routesOf(service);
    const documented = documentedBy(service);
    const missing = [...registered].filter(([k]) => !documented.has(k)).map(([, v]) => v).sort();
    const extra = [...documented].filter(([k]) => !registered.has(k)).map(([, v]) => v).sort();
    expect({ service, 'registered but not documented': missing, 'documented but not registered': extra }).toEqual({
      service,
      'registered but not documented': [],
      'documented but not registered': [],
    });
  });
});
