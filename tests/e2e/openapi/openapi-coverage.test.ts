import fs from 'node:fs';
import path from 'node:path';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { PLATFORM_TOKEN, startStack, type Stack } from '../../support/stack';
import { contractDocument } from '../../support/contract';
import { createApiInbox } from '../../support/contacts';
import { publicContact } from '../../support/conversations';
import { client } from '../../support/http';

/**
 * Route coverage. Every public route is declared once with the route kit, and the document is
 * built from those declarations, so the two cannot drift inside a service. What can still go
 * wrong: a route registered around the kit (then undocumented), or a documented operation the
 * gateway does not route to its service. Both are checked here: the first by reading the
 * services' sources, the second by calling every documented operation through the gateway and
 * asking that it lands on a handler (any answer but "no route").
 */

const ROOT = path.resolve(__dirname, '../../..');
/** Paths integrators call through the gateway (internal APIs and the docs pages are not the API). */
const PUBLIC_PATH = /^['"`]\/(api|public|platform)\b/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/**
 * A public path with placeholders: the account's id below /api, a real inbox and contact below
 * /public (the gateway finds the owner by them), ids nobody has, identifiers that name nothing.
 */
function concretePath(template: string, real: { accountId: number; inbox: string; contact: string }): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (name === 'account_id') return template.startsWith('/platform/') ? '2147480000' : String(real.accountId);
    if (name === 'inbox_identifier') return real.inbox;
    if (name === 'contact_identifier') return real.contact;
    if (name === 'id' || name.endsWith('_id')) return '2147480000';
    return 'zz-nothing-here';
  });
}

describe('every documented operation is served, and no public route goes around the route kit', () => {
  let stack: Stack;
  let acc: SeededAccount;
  let real: { accountId: number; inbox: string; contact: string };

  beforeAll(async () => {
    stack = await startStack();
    acc = await seedAccount(stack);
    const inbox = await createApiInbox(client(stack.gatewayUrl), acc);
    const contact = await publicContact(client(stack.gatewayUrl), inbox);
    real = { accountId: acc.accountId, inbox: inbox.inbox_identifier, contact: contact.source_id };
  });
  afterAll(() => stack?.stop());

  it('when the services\' sources are read, then no public path is registered on express directly (only through routesRouter)', () => {
    const offenders: string[] = [];
    for (const service of fs.readdirSync(path.join(ROOT, 'services'))) {
      const src = path.join(ROOT, 'services', service, 'src');
      if (!fs.existsSync(src)) continue;
      for (const file of sourceFiles(src)) {
        const text = fs.readFileSync(file, 'utf8');
        for (const m of text.matchAll(/\.(get|post|put|patch|delete|all)\(\s*(['"`][^'"`]*['"`])/g)) {
          if (PUBLIC_PATH.test(m[2]!)) offenders.push(`${path.relative(ROOT, file)}: ${m[1]}(${m[2]})`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  async function call(method: string, template: string, security: unknown[]): Promise<{ status: number; body: any }> {
    const p = concretePath(template, real);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (p.startsWith('/platform/')) headers['api_access_token'] = PLATFORM_TOKEN;
    else if (security.length > 0) headers['api_access_token'] = acc.admin.token;
    const res = await fetch(stack.gatewayUrl + p, { method: method.toUpperCase(), headers, body: method === 'get' || method === 'delete' ? undefined : '{}' });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body };
  }

  const noRoute = (body: any): boolean => Array.isArray(body?.errors) && body.errors.some((e: { code?: string }) => e.code === 'route_not_found');

  it('when a path no operation documents is called, then the answer says there is no route (so the check below can fail)', async () => {
    const r = await call('get', '/api/v1/accounts/{account_id}/conversations/{conversation_id}/no_such_thing', ['userApiKey']);
    expect({ status: r.status, body: r.body }).toMatchObject({ status: 404, body: { errors: [{ code: 'route_not_found' }] } });
    const r2 = await call('post', '/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/no_such_thing', []);
    expect({ status: r2.status, body: r2.body }).toMatchObject({ status: 404, body: { errors: [{ code: 'route_not_found' }] } });
    // One the gateway itself does not route.
    const r3 = await call('get', '/public/api/v1/no_such_thing', []);
    expect({ status: r3.status, body: r3.body }).toMatchObject({ status: 404, body: { errors: [{ code: 'route_not_found' }] } });
  });

  it('when every documented operation is called through the gateway, then each lands on a handler (no "no route", no 5xx)', async () => {
    const ops: Array<{ method: string; template: string; security: unknown[] }> = [];
    for (const [template, byMethod] of Object.entries(contractDocument().paths)) {
      if (template === '/cable') continue; // a WebSocket upgrade, checked by tests/e2e/realtime
      for (const [method, op] of Object.entries(byMethod as Record<string, { security?: unknown[] }>)) ops.push({ method, template, security: op.security ?? [] });
    }
    // What could lock the caller out (a token reset on the profile) goes last.
    ops.sort((a, b) => Number(a.template.startsWith('/api/v1/profile')) - Number(b.template.startsWith('/api/v1/profile')));
    expect(ops.length).toBeGreaterThan(150);
    const unrouted: string[] = [];
    for (const op of ops) {
      const r = await call(op.method, op.template, op.security);
      if (noRoute(r.body) || r.status === 405 || r.status >= 500) unrouted.push(`${op.method.toUpperCase()} ${op.template} -> ${r.status} ${JSON.stringify(r.body).slice(0, 120)}`);
    }
    expect(unrouted).toEqual([]);
  }, 120_000);
});
