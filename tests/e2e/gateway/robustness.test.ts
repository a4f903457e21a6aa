import { PLATFORM_TOKEN, startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';

/**
 * "Bad input is never a 500": every operation of the published document, called with real
 * records in its path, gets malformed bodies, values of the wrong type, huge and NUL-laden
 * strings, odd query values and odd path segments. Every answer must be below 500, and every
 * error answer SPEC's Error body. New routes are covered as soon as they are documented.
 */

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  $ref?: string;
}
interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}
type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('no operation answers 500 to bad input', () => {
  let stack: Stack;
  let acc: SeededAccount;
  let doc: Doc;
  const ids: Record<string, string> = {};

  async function api(method: string, path: string, token: string | null, body?: unknown): Promise<any> {
    const res = await fetch(stack.gatewayUrl + path, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { api_access_token: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`setup ${method} ${path} -> ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : {};
  }

  beforeAll(async () => {
    stack = await startStack({ gateway: { RATE_LIMIT_PER_IP: 1_000_000, RATE_LIMIT_PER_TOKEN: 1_000_000 } });
    acc = await seedAccount(stack);
    doc = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as Doc;
    const a = `/api/v1/accounts/${acc.accountId}`;
    const t = acc.admin.token;
    const inbox = await api('POST', `${a}/inboxes`, t, { name: 'Robust inbox', channel: { type: 'api' } });
    const pub = `/public/api/v1/inboxes/${inbox.inbox_identifier}`;
    const contact = await api('POST', `${pub}/contacts`, null, { name: 'Robin', email: 'robin@example.com' });
    const conv = await api('POST', `${pub}/contacts/${contact.source_id}/conversations`, null, {});
    const msg = await api('POST', `${pub}/contacts/${contact.source_id}/conversations/${conv.id}/messages`, null, { content: 'hello' });
    const label = await api('POST', `${a}/labels`, t, { title: 'robust' });
    const canned = await api('POST', `${a}/canned_responses`, t, { short_code: 'robust', content: 'Hi' });
    const team = await api('POST', `${a}/teams`, t, { name: 'Robust team' });
    const bot = await api('POST', `${a}/agent_bots`, t, { name: 'Robust bot' });
    const rule = await api('POST', `${a}/automation_rules`, t, {
      name: 'Robust rule', event_name: 'message_created', active: false,
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['x'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: ['robust'] }],
    });
    const hook = await api('POST', `${a}/webhooks`, t, { url: 'https://example.com/robust' });
    const portal = await api('POST', `${a}/portals`, t, { name: 'Robust docs', slug: 'robust-docs' });
    const category = await api('POST', `${a}/portals/${portal.slug}/categories`, t, { name: 'Robust', slug: 'robust', locale: 'en' });
    const article = await api('POST', `${a}/portals/${portal.slug}/articles`, t, { title: 'Robust', content: 'Text', author_id: acc.admin.userId, category_id: category.id, status: 1 });
    const spare = await seedAccount(stack);
    const spareUser = await api('POST', '/platform/api/v1/users', PLATFORM_TOKEN, { name: 'Spare', email: 'spare-robust@example.com' });
    const spareBot = await api('POST', '/platform/api/v1/agent_bots', PLATFORM_TOKEN, { name: 'Spare bot' });
    Object.assign(ids, {
      account_id: String(acc.accountId), conversation_id: String(conv.id), contact_id: String(contact.id), inbox_id: String(inbox.id),
      message_id: String(msg.id), team_id: String(team.id), webhook_id: String(hook.payload.webhook.id), portal_slug: portal.slug,
      article_slug: article.slug, inbox_identifier: inbox.inbox_identifier, contact_identifier: contact.source_id, token: 'no-such-avatar',
      // `{id}` by the collection it follows
      'agent_bots/{id}': String(bot.id), 'automation_rules/{id}': String(rule.payload[0].id), 'contacts/{id}': String(contact.id),
      'canned_responses/{id}': String(canned.id), 'agents/{id}': String(acc.agent.userId), 'inboxes/{id}': String(inbox.id),
      'labels/{id}': String(label.id), 'articles/{id}': String(article.id), 'categories/{id}': String(category.id), 'attachments/{id}': '1',
      'messages/{id}': String(msg.id), 'platform/accounts/{id}': String(spare.accountId), 'platform/users/{id}': String(spareUser.id),
      'platform/agent_bots/{id}': String(spareBot.id),
    });
  });
  afterAll(() => stack?.stop());

  function fill(path: string, override?: { name: string; value: string }): string {
    return path.replace(/\{([a-z_]+)\}/g, (_m, name: string, offset: number) => {
      if (override && override.name === name && name !== 'account_id') return override.value;
      if (name !== 'id') return ids[name] ?? '1';
      const before = path.slice(0, offset).replace(/\/$/, '');
      const collection = before.slice(before.lastIndexOf('/') + 1);
      const key = path.startsWith('/platform/') ? `platform/${collection}/{id}` : `${collection}/{id}`;
      return ids[key] ?? '1';
    });
  }

  function resolve(s: Schema | undefined): Schema {
    let cur = s ?? {};
    for (let i = 0; i < 5 && cur.$ref; i++) cur = doc.components?.schemas?.[cur.$ref.split('/').pop() as string] ?? {};
    return cur;
  }

  /** Top-level properties of a body schema (through $ref and anyOf/oneOf branches). */
  function properties(s: Schema | undefined): Record<string, Schema> {
    const r = resolve(s);
    const out: Record<string, Schema> = { ...(r.properties ?? {}) };
    for (const b of [...(r.anyOf ?? []), ...(r.oneOf ?? [])]) Object.assign(out, properties(b));
    return out;
  }

  function wrongValue(s: Schema): unknown {
    const r = resolve(s);
    const types = new Set([r.type ?? [], ...(r.anyOf ?? []).map((b) => resolve(b).type ?? [])].flat());
    if (types.has('string')) return { not: ['a', 'string'] };
    if (types.has('array')) return 'not-an-array';
    if (types.has('object')) return [1, 2, 3];
    return 'zz\u0000zz';
  }

  function badBodies(op: Operation): Array<[string, string]> {
    if (!op.requestBody) return [['garbage body', '{"unexpected": true}']];
    const schema = Object.values(op.requestBody.content)[0]?.schema;
    const props = Object.keys(properties(schema));
    const wrong = Object.fromEntries(Object.entries(properties(schema)).map(([k, v]) => [k, wrongValue(v)]));
    const huge = Object.fromEntries(props.map((k) => [k, 'x'.repeat(70_000)]));
    const nul = Object.fromEntries(props.map((k) => [k, 'a\u0000b']));
    const deep = Object.fromEntries(props.map((k) => [k, { a: { b: { c: [null, { d: -1e308 }] } } }]));
    const numbers = Object.fromEntries(props.map((k) => [k, 99999999999999999999]));
    return [
      ['malformed JSON', '{"a": '],
      ['array body', '[1, 2]'],
      ['string body', '"text"'],
      ['null body', 'null'],
      ['empty object', '{}'],
      ['wrong types', JSON.stringify(wrong)],
      ['huge strings', JSON.stringify(huge)],
      ['NUL characters', JSON.stringify(nul)],
      ['deep objects', JSON.stringify(deep)],
      ['huge numbers', JSON.stringify(numbers)],
    ];
  }

  function tokenFor(op: Operation): string | null {
    const scheme = Object.keys(op.security?.[0] ?? {})[0];
    if (!scheme) return null;
    return scheme === 'platformAppApiKey' ? PLATFORM_TOKEN : acc.admin.token;
  }

  it('when every documented operation gets malformed bodies, wrong types, huge or NUL strings, odd queries and odd path values, then nothing answers 5xx and every error is the Error body', async () => {
    const calls: Array<{ method: string; template: string; op: Operation }> = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (op) calls.push({ method, template, op });
      }
    }
    // Deletes last (and the platform's account and user deletes very last), so records stay for the rest.
    const rank = (c: { method: string; template: string }) => (c.method === 'delete' ? (c.template.startsWith('/platform/') ? 2 : 1) : 0);
    calls.sort((x, y) => rank(x) - rank(y));
    expect(calls.length).toBeGreaterThan(100);

    const failures: string[] = [];
    let sent = 0;
    const send = async (method: string, path: string, token: string | null, body: string | undefined, what: string) => {
      const res = await fetch(stack.gatewayUrl + path, {
        method: method.toUpperCase(),
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { api_access_token: token } : {}) },
        body,
      });
      sent++;
      const text = await res.text();
      if (res.status >= 500) {
        failures.push(`${method.toUpperCase()} ${path.slice(0, 160)} (${what}) -> ${res.status} ${text.slice(0, 200)}`);
        return;
      }
      if (res.status >= 400 && res.headers.get('content-type')?.includes('json')) {
        const b = JSON.parse(text);
        const ok = typeof b?.description === 'string' && Array.isArray(b?.errors) && b.errors.length > 0 && b.errors.every((e: any) => typeof e.field === 'string' && typeof e.message === 'string' && typeof e.code === 'string');
        if (!ok) failures.push(`${method.toUpperCase()} ${path.slice(0, 160)} (${what}) -> ${res.status} without the Error body: ${text.slice(0, 200)}`);
      }
    };

    for (const { method, template, op } of calls) {
      const token = tokenFor(op);
      const path = fill(template);
      const hasBody = method !== 'get' && method !== 'delete';
      for (const [what, body] of hasBody ? badBodies(op) : []) await send(method, path, token, body, what);
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      if (query.length > 0) {
        for (const [what, value] of [['array values', '[]=a&NAME[]=b'], ['object values', '[a][b]=1'], ['NUL', '=%00'], ['negative', '=-1'], ['huge number', '=99999999999999999999'], ['long', `=${'q'.repeat(5000)}`]]) {
          const qs = query.map((n) => `${n}${value!.replace('NAME', n)}`).join('&');
          await send(method, `${path}?${qs}`, token, hasBody ? '{}' : undefined, `query ${what}`);
        }
      }
      for (const name of [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string).filter((n) => n !== 'account_id')) {
        for (const value of ['%00', '-1', '99999999999999999999', 'not-an-id', 'z'.repeat(300), '%E0%A4%A']) {
          await send(method, fill(template, { name, value }), token, hasBody ? '{}' : undefined, `path ${name}=${value.slice(0, 20)}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  }, 600_000);
});
