import { randomAccountId, uniq } from '@parley/testkit';
import { publicArticleListResponse, publicArticleResponse } from '../src/articles/schemas';
import { publicCategoryListResponse } from '../src/categories/schemas';
import { publicPortalResponse } from '../src/portals/schemas';
import { apiFor, expectError, expectSchema, publicFor, useHelpcenter, type Api } from './helpers';

describe('public help-center API (service level)', () => {
  const hc = useHelpcenter();
  const pub = (path: string) => publicFor(hc.svc)(path);

  interface Kb {
    api: Api;
    slug: string;
    category: any;
    art(body: Record<string, unknown>): Promise<any>;
  }

  async function kb(): Promise<Kb> {
    const accountId = randomAccountId();
    hc.stub.addAgent(accountId, 5, { name: 'Writer', available_name: 'Writer', email: 'writer@example.com' });
    const api = apiFor(hc.svc, accountId, 5);
    const slug = uniq('pub');
    expect((await api('POST', '/portals', { name: 'Public KB', slug, config: { allowed_locales: ['en', 'fr'] } })).status).toBe(200);
    const category = (await api('POST', `/portals/${slug}/categories`, { name: 'Shipping' })).body.payload;
    const art = async (body: Record<string, unknown>) => {
      const res = await api('POST', `/portals/${slug}/articles`, { content: 'Text', author_id: 5, ...body });
      if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
      return res.body;
    };
    return { api, slug, category, art };
  }

  it('when a reader lists articles, then only published ones appear, drafts and archived ones never', async () => {
    const k = await kb();
    const live = await k.art({ title: 'Live', status: 1, category_id: k.category.id });
    const draft = await k.art({ title: 'Draft', status: 0, category_id: k.category.id });
    const gone = await k.art({ title: 'Gone', status: 1 });
    await k.api('PATCH', `/portals/${k.slug}/articles/${gone.id}`, { status: 'archived' });
    const list = await pub(`/${k.slug}/articles`);
    expect(list.status).toBe(200);
    expectSchema(publicArticleListResponse, list.body);
    expect(list.body.payload.map((a: any) => a.id)).toEqual([live.id]);
    expect(list.body.meta).toEqual({ articles_count: 1, current_page: 1 });
    expect(list.body.payload[0]).toMatchObject({ status: 'published', category: { id: k.category.id, slug: 'shipping' }, author: { name: 'Writer', available_name: 'Writer', thumbnail: '' } });
    expect(JSON.stringify(list.body)).not.toMatch(/writer@example\.com|account_id|author_id/);
    for (const a of [draft, gone]) expectError(await pub(`/${k.slug}/articles/${a.slug}`), 404, 'article_slug', 'not_found');
    expect((await pub(`/${k.slug}/articles?query=draft`)).body.payload).toEqual([]);

    const cats = await pub(`/${k.slug}/categories`);
    expectSchema(publicCategoryListResponse, cats.body);
    expect(cats.body.payload).toEqual([expect.objectContaining({ id: k.category.id, meta: { articles_count: 1 } })]);
    const portal = await pub(`/${k.slug}`);
    expectSchema(publicPortalResponse, portal.body);
    expect(portal.body.config.allowed_locales).toEqual([
      { code: 'en', articles_count: 1, categories_count: 1 },
      { code: 'fr', articles_count: 0, categories_count: 0 },
    ]);

    // Unpublishing takes it down at once.
    await k.api('PATCH', `/portals/${k.slug}/articles/${live.id}`, { status: 'draft' });
    expect((await pub(`/${k.slug}/articles`)).body.payload).toEqual([]);
    expectError(await pub(`/${k.slug}/articles/${live.slug}`), 404);
  });

  it('when a reader searches, then every word matches as a prefix over title, description and content, best match first', async () => {
    const k = await kb();
    const inTitle = await k.art({ title: 'Tracking your parcel', content: 'Use the link in the e-mail.', status: 1 });
    const inBody = await k.art({ title: 'Delivery times', content: 'Every parcel ships within two days; tracking numbers follow.', status: 1 });
    const inDescription = await k.art({ title: 'Customs', description: 'Parcel tracking abroad', content: 'Duties may apply.', status: 1 });
    await k.art({ title: 'Tracking parcels (draft)', content: 'parcel tracking', status: 0 });
    await k.art({ title: 'Returns', content: 'Send it back.', status: 1 });

    const res = await pub(`/${k.slug}/articles?query=${encodeURIComponent('track PARCEL')}`);
    expect(res.status).toBe(200);
    expect(res.body.payload.map((a: any) => a.id)).toEqual([inTitle.id, inDescription.id, inBody.id]);
    expect(res.body.meta.articles_count).toBe(3);
    expect((await pub(`/${k.slug}/articles?query=duties`)).body.payload.map((a: any) => a.id)).toEqual([inDescription.id]);
    expect((await pub(`/${k.slug}/articles?query=${encodeURIComponent('parcel nowhere')}`)).body.payload).toEqual([]);
    // Only punctuation: no words, so nothing matches (and no tsquery syntax error).
    for (const q of ['!!!', "':*&|", '(']) {
      const r = await pub(`/${k.slug}/articles?query=${encodeURIComponent(q)}`);
      expect({ q, status: r.status, n: r.body.payload.length }).toEqual({ q, status: 200, n: 0 });
    }
    expectError(await pub(`/${k.slug}/articles?query=${'x'.repeat(501)}`), 400, 'query');
  });

  it('when the text search runs, then it can use the GIN index on the article text', async () => {
    await hc.db.query('BEGIN');
    try {
      await hc.db.query('SET LOCAL enable_seqscan = off');
      const plan = await hc.db.query(`EXPLAIN SELECT id FROM helpcenter.articles a WHERE a.search @@ to_tsquery('simple', 'parcel:* & track:*')`);
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/articles_search_idx/);
    } finally {
      await hc.db.query('ROLLBACK');
    }
  });

  it('when a published article is read, then each read counts one view, also when many arrive at once', async () => {
    const k = await kb();
    const a = await k.art({ title: 'Popular', status: 1 });
    const b = await k.art({ title: 'Less popular', status: 1 });
    const first = await pub(`/${k.slug}/articles/${a.slug}`);
    expect(first.status).toBe(200);
    expectSchema(publicArticleResponse, first.body);
    expect(first.body).toMatchObject({ id: a.id, title: 'Popular', views: 1 });
    await Promise.all(Array.from({ length: 20 }, () => pub(`/${k.slug}/articles/${a.slug}`)));
    await pub(`/${k.slug}/articles/${b.slug}`);
    expect((await k.api('GET', `/portals/${k.slug}/articles/${a.id}`)).body.views).toBe(21);
    const byViews = await pub(`/${k.slug}/articles?sort=views`);
    expect(byViews.body.payload.map((x: any) => [x.id, x.views])).toEqual([
      [a.id, 21],
      [b.id, 1],
    ]);
    // Listing does not count views.
    expect((await k.api('GET', `/portals/${k.slug}/articles/${b.id}`)).body.views).toBe(1);
  });

  it('when the portal is archived or unknown, then every public route is 404', async () => {
    const k = await kb();
    const a = await k.art({ title: 'Hidden with its portal', status: 1 });
    expect((await pub(`/${k.slug}`)).status).toBe(200);
    await k.api('PATCH', `/portals/${k.slug}`, { archived: true });
    for (const p of [`/${k.slug}`, `/${k.slug}/categories`, `/${k.slug}/articles`, `/${k.slug}/articles/${a.slug}`, `/${uniq('none')}/articles`]) {
      expectError(await pub(p), 404, 'portal_slug', 'not_found');
    }
  });

  it('when public filters are given, then locale and category narrow the list, and bad values are 400', async () => {
    const k = await kb();
    const fr = (await k.api('POST', `/portals/${k.slug}/categories`, { name: 'Livraison', locale: 'fr' })).body.payload;
    const en = await k.art({ title: 'English', status: 1, category_id: k.category.id });
    const french = await k.art({ title: 'Français', status: 1, category_id: fr.id });
    expect((await pub(`/${k.slug}/articles?locale=fr`)).body.payload.map((a: any) => a.id)).toEqual([french.id]);
    expect((await pub(`/${k.slug}/articles?category_slug=shipping`)).body.payload.map((a: any) => a.id)).toEqual([en.id]);
    expect((await pub(`/${k.slug}/categories?locale=fr`)).body.payload.map((c: any) => c.id)).toEqual([fr.id]);
    for (const q of ['sort=newest', 'page=0', 'locale=%20', 'category_slug=Not%20A%20Slug']) expectError(await pub(`/${k.slug}/articles?${q}`), 400);
  });
});
