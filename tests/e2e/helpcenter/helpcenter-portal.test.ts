import { uniq, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody, type ApiResponse } from '../../support/http';

/*
 * Issue 6's "done when", through the gateway: an administrator builds a portal with
 * categories and articles and publishes one; an anonymous reader finds it by search;
 * drafts never show publicly; agents cannot write; every bad input is a 4xx Error body.
 * Authors are checked against the gateway's real identity API. Every answer is also
 * checked against the OpenAPI document by the test client.
 */
describe('help center through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const base = () => `/api/v1/accounts/${acc.accountId}/portals`;

  function ok(res: ApiResponse, what: string): any {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  }

  /** A portal with two categories, built by the administrator. */
  async function buildPortal(): Promise<{ slug: string; howTo: any; billing: any }> {
    const slug = uniq('acme-help');
    const admin = { token: acc.admin.token };
    ok(await call('POST', base(), { ...admin, body: { name: 'Acme Help', slug, header_text: 'How can we help?', config: { allowed_locales: ['en', 'fr'], default_locale: 'en' } } }), 'create portal');
    const howTo = ok(await call('POST', `${base()}/${slug}/categories`, { ...admin, body: { name: 'How-to', description: 'Step by step' } }), 'create category').payload;
    const billing = ok(await call('POST', `${base()}/${slug}/categories`, { ...admin, body: { name: 'Billing' } }), 'create category').payload;
    return { slug, howTo, billing };
  }

  it('when an administrator builds a portal and publishes one article, then an anonymous reader finds it by search and reads it, and drafts never show', async () => {
    const { slug, howTo, billing } = await buildPortal();
    const admin = { token: acc.admin.token };
    const published = ok(
      await call('POST', `${base()}/${slug}/articles`, {
        ...admin,
        body: {
          title: 'Export your invoices',
          content: 'Open Billing, choose a period and press Export. The spreadsheet arrives by e-mail.',
          description: 'Invoices as a spreadsheet',
          category_id: billing.id,
          author_id: acc.admin.userId,
          status: 0,
          meta: { tags: ['invoices', 'export'] },
        },
      }),
      'create article',
    );
    // SPEC op 3: the Article record itself.
    expect(published).toMatchObject({
      title: 'Export your invoices',
      slug: 'export-your-invoices',
      status: 'draft',
      position: 10,
      views: 0,
      portal_id: expect.any(Number),
      account_id: acc.accountId,
      author_id: acc.admin.userId,
      category_id: billing.id,
      folder_id: 0,
      associated_article_id: 0,
      meta: { tags: ['invoices', 'export'] },
      author: { id: acc.admin.userId, email: acc.admin.email, name: acc.admin.name },
    });
    const draft = ok(
      await call('POST', `${base()}/${slug}/articles`, {
        ...admin,
        body: { title: 'Export (unfinished notes)', content: 'Export secrets nobody should read yet', category_id: howTo.id, author_id: acc.agent.userId },
      }),
      'create draft',
    );
    expect(draft).toMatchObject({ status: 'draft', author_id: acc.agent.userId, author: { id: acc.agent.userId, role: 'agent' } });

    // Nothing is public before publishing.
    const before = await call('GET', `/public/api/v1/portals/${slug}/articles?query=export`);
    expect(before.status).toBe(200);
    expect(before.body.payload).toEqual([]);

    const publish = await call('PATCH', `${base()}/${slug}/articles/${published.id}`, { ...admin, body: { status: 1 } });
    expect(publish.status).toBe(200);
    expect(publish.body.status).toBe('published');

    // The anonymous reader: no token at all.
    const found = await call('GET', `/public/api/v1/portals/${slug}/articles?query=${encodeURIComponent('invoice expo')}`);
    expect(found.status).toBe(200);
    expect(found.body.meta).toEqual({ articles_count: 1, current_page: 1 });
    expect(found.body.payload).toHaveLength(1);
    expect(found.body.payload[0]).toMatchObject({ id: published.id, slug: 'export-your-invoices', status: 'published', category: { id: billing.id, slug: 'billing' } });
    expect(JSON.stringify(found.body)).not.toContain(acc.admin.email);

    const read = await call('GET', `/public/api/v1/portals/${slug}/articles/${published.slug}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: published.id, content: published.content, views: 1 });
    await call('GET', `/public/api/v1/portals/${slug}/articles/${published.slug}`);
    expect((await call('GET', `${base()}/${slug}/articles/${published.id}`, admin)).body.views).toBe(2);

    // The draft: not listed, not found by its words, not readable by slug.
    const all = await call('GET', `/public/api/v1/portals/${slug}/articles`);
    expect(all.body.payload.map((a: any) => a.id)).toEqual([published.id]);
    expect((await call('GET', `/public/api/v1/portals/${slug}/articles?query=secrets`)).body.payload).toEqual([]);
    const hidden = await call('GET', `/public/api/v1/portals/${slug}/articles/${draft.slug}`);
    expect(hidden.status).toBe(404);
    expectErrorBody(hidden.body, 'not_found');

    const portal = await call('GET', `/public/api/v1/portals/${slug}`);
    expect(portal.body).toMatchObject({ slug, header_text: 'How can we help?', config: { default_locale: 'en', allowed_locales: [{ code: 'en', articles_count: 1, categories_count: 2 }, { code: 'fr', articles_count: 0, categories_count: 0 }] } });
    const cats = await call('GET', `/public/api/v1/portals/${slug}/categories`);
    expect(cats.body.payload.map((c: any) => [c.slug, c.meta.articles_count])).toEqual([
      ['how-to', 0],
      ['billing', 1],
    ]);

    // The administrator sees both, with counts.
    const list = await call('GET', `${base()}/${slug}/articles`, admin);
    expect(list.body.meta).toMatchObject({ all_articles_count: 2, draft_articles_count: 1, published_count: 1, mine_articles_count: 1 });
  });

  it('when an article is archived, then it leaves the public portal, and archiving is final', async () => {
    const { slug } = await buildPortal();
    const admin = { token: acc.admin.token };
    const a = ok(await call('POST', `${base()}/${slug}/articles`, { ...admin, body: { title: 'Old pricing', content: 'Prices from 2019', author_id: acc.admin.userId, status: 'published' } }), 'create');
    expect((await call('GET', `/public/api/v1/portals/${slug}/articles/${a.slug}`)).status).toBe(200);
    expect((await call('PATCH', `${base()}/${slug}/articles/${a.id}`, { ...admin, body: { status: 2 } })).body.status).toBe('archived');
    expect((await call('GET', `/public/api/v1/portals/${slug}/articles/${a.slug}`)).status).toBe(404);
    const back = await call('PATCH', `${base()}/${slug}/articles/${a.id}`, { ...admin, body: { status: 1 } });
    expect(back.status).toBe(422);
    expectErrorBody(back.body, 'invalid_transition');
  });

  it('when an agent calls, then reading works and every write is 403 with the Error body', async () => {
    const { slug, howTo } = await buildPortal();
    const a = ok(await call('POST', `${base()}/${slug}/articles`, { token: acc.admin.token, body: { title: 'Agents read this', content: 'x', author_id: acc.admin.userId } }), 'create');
    const agent = { token: acc.agent.token };
    expect((await call('GET', base(), agent)).status).toBe(200);
    expect((await call('GET', `${base()}/${slug}`, agent)).status).toBe(200);
    expect((await call('GET', `${base()}/${slug}/categories`, agent)).status).toBe(200);
    expect((await call('GET', `${base()}/${slug}/articles`, agent)).body.payload.map((x: any) => x.id)).toEqual([a.id]);
    expect((await call('GET', `${base()}/${slug}/articles/${a.id}`, agent)).status).toBe(200);
    const writes: Array<[string, string, unknown]> = [
      ['POST', base(), { name: 'Mine now', slug: uniq('agent') }],
      ['PATCH', `${base()}/${slug}`, { name: 'Renamed' }],
      ['DELETE', `${base()}/${slug}`, undefined],
      ['POST', `${base()}/${slug}/categories`, { name: 'New' }],
      ['PATCH', `${base()}/${slug}/categories/${howTo.id}`, { name: 'New' }],
      ['DELETE', `${base()}/${slug}/categories/${howTo.id}`, undefined],
      ['POST', `${base()}/${slug}/articles`, { title: 'T', content: 'C', author_id: acc.agent.userId }],
      ['PATCH', `${base()}/${slug}/articles/${a.id}`, { status: 1 }],
      ['POST', `${base()}/${slug}/articles/reorder`, { positions_hash: { [a.id]: 1 } }],
      ['DELETE', `${base()}/${slug}/articles/${a.id}`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(method, path, { ...agent, body });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
      expectErrorBody(res.body, 'forbidden');
    }
    const after = await call('GET', `${base()}/${slug}/articles/${a.id}`, { token: acc.admin.token });
    expect(after.body).toMatchObject({ status: 'draft', title: 'Agents read this' });
  });

  it('when the input is bad, then every answer is a 4xx with the Error body naming the problem', async () => {
    const { slug } = await buildPortal();
    const other = await seedAccount(stack);
    const foreignPortal = uniq('foreign');
    ok(await call('POST', `/api/v1/accounts/${other.accountId}/portals`, { token: other.admin.token, body: { name: 'Theirs', slug: foreignPortal } }), 'foreign portal');
    const admin = { token: acc.admin.token };
    const art = `${base()}/${slug}/articles`;
    const good = { title: 'T', content: 'C', author_id: acc.admin.userId };
    const cases: Array<{ what: string; method: string; path: string; body?: unknown; raw?: string; token?: string | null; status: number; field?: string; code?: string }> = [
      { what: 'unknown portal', method: 'POST', path: `${base()}/${uniq('nope')}/articles`, body: good, status: 404, field: 'portal_slug', code: 'not_found' },
      { what: "another account's portal", method: 'GET', path: `${base()}/${foreignPortal}`, status: 404, field: 'portal_slug' },
      { what: 'author who is not a member', method: 'POST', path: art, body: { ...good, author_id: other.admin.userId }, status: 422, field: 'author_id' },
      { what: 'author who does not exist', method: 'POST', path: art, body: { ...good, author_id: 99_999_999 }, status: 422, field: 'author_id' },
      { what: 'no author', method: 'POST', path: art, body: { title: 'T', content: 'C' }, status: 422, field: 'author_id' },
      { what: 'unknown category', method: 'POST', path: art, body: { ...good, category_id: 99_999_999 }, status: 422, field: 'category_id' },
      { what: 'unknown associated article', method: 'POST', path: art, body: { ...good, associated_article_id: 99_999_999 }, status: 422, field: 'associated_article_id' },
      { what: 'status out of range', method: 'POST', path: art, body: { ...good, status: 7 }, status: 422, field: 'status' },
      { what: 'title too long', method: 'POST', path: art, body: { ...good, title: 'x'.repeat(256) }, status: 422, field: 'title' },
      { what: 'no content', method: 'POST', path: art, body: { title: 'T', author_id: acc.admin.userId }, status: 422, field: 'content' },
      { what: 'locale the portal does not offer', method: 'POST', path: art, body: { ...good, locale: 'de' }, status: 422, field: 'locale' },
      { what: 'malformed JSON', method: 'POST', path: art, raw: '{"title": "T",', status: 400, code: 'malformed_json' },
      { what: 'bad list filter', method: 'GET', path: `${art}?status=live`, status: 400, field: 'status' },
      { what: 'bad page', method: 'GET', path: `${art}?page=-2`, status: 400, field: 'page' },
      { what: 'unknown article', method: 'GET', path: `${art}/424242`, status: 404, field: 'id' },
      { what: 'portal slug taken', method: 'POST', path: base(), body: { name: 'Dup', slug }, status: 409, field: 'slug', code: 'taken' },
      { what: 'portal without name', method: 'POST', path: base(), body: { slug: uniq('x') }, status: 422, field: 'name' },
      { what: 'category in a locale the portal does not offer', method: 'POST', path: `${base()}/${slug}/categories`, body: { name: 'X', locale: 'ja' }, status: 422, field: 'locale' },
      { what: 'no token', method: 'GET', path: base(), token: null, status: 401 },
      { what: 'unknown token', method: 'GET', path: base(), token: 'not-a-real-token-0123456789', status: 401 },
      { what: 'member of another account', method: 'GET', path: base(), token: other.admin.token, status: 403 },
      { what: 'public unknown portal', method: 'GET', path: `/public/api/v1/portals/${uniq('ghost')}/articles`, token: null, status: 404, field: 'portal_slug' },
      { what: 'public bad query', method: 'GET', path: `/public/api/v1/portals/${slug}/articles?sort=random`, token: null, status: 400, field: 'sort' },
    ];
    for (const c of cases) {
      const token = c.token === null ? undefined : (c.token ?? admin.token);
      const res = await call(c.method, c.path, { token, body: c.body, raw: c.raw });
      expect({ what: c.what, status: res.status }).toEqual({ what: c.what, status: c.status });
      expectErrorBody(res.body, c.code);
      if (c.field) expect({ what: c.what, fields: res.body.errors.map((e: any) => e.field) }).toEqual({ what: c.what, fields: expect.arrayContaining([c.field]) });
    }
    // None of the refused writes left anything behind.
    expect((await call('GET', art, admin)).body.meta.all_articles_count).toBe(0);
  });

  it('when a bot token calls the help center, then 403 with the Error body', async () => {
    const bot = await acc.addBot();
    const res = await call('GET', base(), { token: bot.token });
    expect(res.status).toBe(403);
    expectErrorBody(res.body);
  });

  it('when help-center content changes, then portal, category and article entries reach the audit log', async () => {
    const { slug, billing } = await buildPortal();
    const a = ok(await call('POST', `${base()}/${slug}/articles`, { token: acc.admin.token, body: { title: 'Audited', content: 'x', author_id: acc.admin.userId, category_id: billing.id } }), 'create');
    await call('PATCH', `${base()}/${slug}/articles/${a.id}`, { token: acc.admin.token, body: { status: 'published' } });
    const entries = await waitFor(
      async () => {
        const res = await call('GET', `/api/v1/accounts/${acc.accountId}/audit_logs?auditable_type=Article`, { token: acc.admin.token });
        const mine = res.body.audit_logs.filter((e: any) => e.auditable_id === a.id);
        return mine.length >= 2 ? mine : null;
      },
      { what: 'article audit entries' },
    );
    expect(entries.map((e: any) => [e.action, e.version]).sort()).toEqual([
      ['create', 1],
      ['update', 2],
    ]);
    expect(entries.find((e: any) => e.action === 'update').audited_changes).toEqual({ status: ['draft', 'published'] });
    const portals = await call('GET', `/api/v1/accounts/${acc.accountId}/audit_logs?auditable_type=Portal`, { token: acc.admin.token });
    expect(portals.body.audit_logs.some((e: any) => e.action === 'create' && e.audited_changes.slug === slug)).toBe(true);
  });
});
