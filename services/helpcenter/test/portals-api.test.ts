import { randomAccountId, uniq } from '@parley/testkit';
import { emptyResponse, portalListResponse, portalResponse } from '../src/portals/schemas';
import { apiFor, expectError, expectSchema, outboxEvents, useHelpcenter } from './helpers';

describe('portals API (service level)', () => {
  const hc = useHelpcenter();

  it('when an administrator creates a portal, then it answers the portal, it reads back by slug and portal.created is recorded', async () => {
    const accountId = randomAccountId();
    const api = apiFor(hc.svc, accountId, 1);
    const slug = uniq('help');
    const res = await api('POST', '/portals', {
      name: 'Acme Help',
      slug,
      custom_domain: 'https://Help.Acme.test/',
      color: '#112233',
      header_text: 'How can we help?',
      homepage_link: 'https://acme.test',
      page_title: 'Acme',
      config: { allowed_locales: ['en', 'fr'], default_locale: 'fr' },
    });
    expect(res.status).toBe(200);
    expectSchema(portalResponse, res.body);
    expect(res.body).toMatchObject({
      account_id: accountId,
      name: 'Acme Help',
      slug,
      custom_domain: 'help.acme.test',
      color: '#112233',
      header_text: 'How can we help?',
      homepage_link: 'https://acme.test',
      archived: false,
      config: {
        allowed_locales: [
          { code: 'en', articles_count: 0, categories_count: 0 },
          { code: 'fr', articles_count: 0, categories_count: 0 },
        ],
        default_locale: 'fr',
      },
      meta: { all_articles_count: 0, categories_count: 0, default_locale: 'fr' },
    });

    const shown = await api('GET', `/portals/${slug}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(res.body);
    const list = await api('GET', '/portals');
    expectSchema(portalListResponse, list.body);
    expect(list.body.payload.map((p: any) => p.slug)).toEqual([slug]);
    expect(list.body.meta).toEqual({ current_page: 1, portals_count: 1 });

    const [ev] = await outboxEvents(hc.db, 'portal.created', res.body.id);
    expect(ev).toMatchObject({ account_id: accountId, actor: { type: 'user', id: 1 }, data: { id: res.body.id, slug } });
  });

  it('when a portal is created with only a name and slug, then the config defaults to English and the colour to Chatwoot blue', async () => {
    const api = apiFor(hc.svc, randomAccountId(), 1);
    const res = await api('POST', '/portals', { portal: { name: 'Docs', slug: uniq('docs') } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ color: '#1f93ff', custom_domain: null, config: { allowed_locales: [{ code: 'en' }], default_locale: 'en' } });
  });

  it('when a portal is updated, then only the given fields change, config is merged and portal.updated carries the changes', async () => {
    const api = apiFor(hc.svc, randomAccountId(), 1);
    const slug = uniq('p');
    const created = (await api('POST', '/portals', { name: 'Old', slug, config: { allowed_locales: ['en'] } })).body;
    const res = await api('PATCH', `/portals/${slug}`, { name: 'New', config: { allowed_locales: ['en', 'de'] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New', slug, config: { allowed_locales: [{ code: 'en' }, { code: 'de' }], default_locale: 'en' } });
    const [ev] = await outboxEvents(hc.db, 'portal.updated', created.id);
    expect(ev.changes).toEqual({
      name: ['Old', 'New'],
      config: [
        { allowed_locales: ['en'], default_locale: 'en' },
        { allowed_locales: ['en', 'de'], default_locale: 'en' },
      ],
    });

    const renamed = uniq('renamed');
    const moved = await api('PUT', `/portals/${slug}`, { slug: renamed, archived: true });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ slug: renamed, archived: true });
    expectError(await api('GET', `/portals/${slug}`), 404, 'portal_slug', 'not_found');
    expect((await api('GET', `/portals/${renamed}`)).status).toBe(200);
  });

  it('when a portal is deleted, then it is gone with its categories and articles and portal.deleted is recorded', async () => {
    const accountId = randomAccountId();
    hc.stub.addAgent(accountId, 1);
    const api = apiFor(hc.svc, accountId, 1);
    const slug = uniq('gone');
    const portal = (await api('POST', '/portals', { name: 'Gone', slug })).body;
    const category = (await api('POST', `/portals/${slug}/categories`, { name: 'C' })).body.payload;
    await api('POST', `/portals/${slug}/articles`, { title: 'A', content: 'x', author_id: 1, category_id: category.id });
    const res = await api('DELETE', `/portals/${slug}`);
    expect(res.status).toBe(200);
    expectSchema(emptyResponse, res.body);
    expectError(await api('GET', `/portals/${slug}`), 404, 'portal_slug');
    const left = await hc.db.query('SELECT (SELECT count(*) FROM helpcenter.categories WHERE portal_id = $1)::int AS c, (SELECT count(*) FROM helpcenter.articles WHERE portal_id = $1)::int AS a', [portal.id]);
    expect(left.rows[0]).toEqual({ c: 0, a: 0 });
    expect(await outboxEvents(hc.db, 'portal.deleted', portal.id)).toHaveLength(1);
  });

  it('when a slug or custom domain is taken (in any account), then 409 naming the field', async () => {
    const slug = uniq('taken');
    const domain = `${uniq('d')}.example.com`;
    expect((await apiFor(hc.svc, randomAccountId(), 1)('POST', '/portals', { name: 'A', slug, custom_domain: domain })).status).toBe(200);
    const other = apiFor(hc.svc, randomAccountId(), 1);
    expectError(await other('POST', '/portals', { name: 'B', slug }), 409, 'slug', 'taken');
    expectError(await other('POST', '/portals', { name: 'B', slug: uniq('free'), custom_domain: domain }), 409, 'custom_domain', 'taken');
  });

  it('when the body is invalid, then 422 naming each offending field and nothing is created', async () => {
    const api = apiFor(hc.svc, randomAccountId(), 1);
    const cases: Array<[unknown, string]> = [
      [{ slug: uniq('s') }, 'name'],
      [{ name: '   ', slug: uniq('s') }, 'name'],
      [{ name: 'x'.repeat(256), slug: uniq('s') }, 'name'],
      [{ name: 'N' }, 'slug'],
      [{ name: 'N', slug: 'Has Spaces' }, 'slug'],
      [{ name: 'N', slug: uniq('s'), color: 'blue' }, 'color'],
      [{ name: 'N', slug: uniq('s'), homepage_link: 'javascript:alert(1)' }, 'homepage_link'],
      [{ name: 'N', slug: uniq('s'), custom_domain: 'not a domain' }, 'custom_domain'],
      [{ name: 'N', slug: uniq('s'), config: { allowed_locales: ['english!'] } }, 'config.allowed_locales.0'],
      [{ name: 'N', slug: uniq('s'), config: { theme: 'dark' } }, 'config'],
      [{ name: 'N', slug: uniq('s'), config: { allowed_locales: ['en'], default_locale: 'fr' } }, 'config.default_locale'],
      [{ name: 'N', slug: uniq('s'), archived: 'yes' }, 'archived'],
    ];
    for (const [body, field] of cases) expectError(await api('POST', '/portals', body), 422, field);
    expect((await api('GET', '/portals')).body.payload).toEqual([]);
    expectError(await api('POST', '/portals', '{"name": '), 400, 'body', 'malformed_json');
  });

  it('when an agent calls, then reads work and every write is 403', async () => {
    const accountId = randomAccountId();
    const admin = apiFor(hc.svc, accountId, 1);
    const slug = uniq('ro');
    await admin('POST', '/portals', { name: 'Read only', slug });
    const agent = { role: 'agent' as const, actor: { type: 'user' as const, id: 2 } };
    expect((await admin('GET', '/portals', undefined, agent)).status).toBe(200);
    expect((await admin('GET', `/portals/${slug}`, undefined, agent)).status).toBe(200);
    expectError(await admin('POST', '/portals', { name: 'X', slug: uniq('x') }, agent), 403, undefined, 'forbidden');
    expectError(await admin('PATCH', `/portals/${slug}`, { name: 'X' }, agent), 403, undefined, 'forbidden');
    expectError(await admin('DELETE', `/portals/${slug}`, undefined, agent), 403, undefined, 'forbidden');
    expect((await admin('GET', `/portals/${slug}`)).body.name).toBe('Read only');
  });

  it("when another account's portal is named, then 404, also for writes", async () => {
    const slug = uniq('mine');
    await apiFor(hc.svc, randomAccountId(), 1)('POST', '/portals', { name: 'Mine', slug });
    const stranger = apiFor(hc.svc, randomAccountId(), 1);
    expectError(await stranger('GET', `/portals/${slug}`), 404, 'portal_slug', 'not_found');
    expectError(await stranger('PATCH', `/portals/${slug}`, { name: 'Hijacked' }), 404, 'portal_slug');
    expectError(await stranger('DELETE', `/portals/${slug}`), 404, 'portal_slug');
    expectError(await stranger('GET', `/portals/${slug}/articles`), 404, 'portal_slug');
  });
});
