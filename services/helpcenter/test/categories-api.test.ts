import { randomAccountId, uniq } from '@parley/testkit';
import { categoryListResponse, categoryShowResponse } from '../src/categories/schemas';
import { apiFor, expectError, expectSchema, outboxEvents, useHelpcenter, type Api } from './helpers';

describe('categories API (service level)', () => {
  const hc = useHelpcenter();

  /** An account with a portal in English (default) and French. */
  async function portal(): Promise<{ api: Api; slug: string; accountId: number }> {
    const accountId = randomAccountId();
    hc.stub.addAgent(accountId, 1);
    const api = apiFor(hc.svc, accountId, 1);
    const slug = uniq('hc');
    const res = await api('POST', '/portals', { name: 'Help', slug, config: { allowed_locales: ['en', 'fr'], default_locale: 'en' } });
    expect(res.status).toBe(200);
    return { api, slug, accountId };
  }

  it('when an administrator creates a category, then it answers {payload} in the default locale, appended at the end, and category.created is recorded', async () => {
    const { api, slug, accountId } = await portal();
    const first = await api('POST', `/portals/${slug}/categories`, { name: 'Getting started', description: 'Basics' });
    expect(first.status).toBe(200);
    expectSchema(categoryShowResponse, first.body);
    expect(first.body.payload).toMatchObject({ account_id: accountId, name: 'Getting started', slug: 'getting-started', locale: 'en', description: 'Basics', position: 10, meta: { articles_count: 0 } });
    const second = await api('POST', `/portals/${slug}/categories`, { category: { name: 'Billing' } });
    expect(second.body.payload).toMatchObject({ slug: 'billing', position: 20 });
    const [ev] = await outboxEvents(hc.db, 'category.created', first.body.payload.id);
    expect(ev).toMatchObject({ account_id: accountId, data: { id: first.body.payload.id, slug: 'getting-started' } });
  });

  it('when two categories share a name, then the generated slug is made unique; a given slug taken in the same locale is 409, in another locale it is fine', async () => {
    const { api, slug } = await portal();
    const a = (await api('POST', `/portals/${slug}/categories`, { name: 'FAQ' })).body.payload;
    const b = (await api('POST', `/portals/${slug}/categories`, { name: 'FAQ' })).body.payload;
    expect([a.slug, b.slug]).toEqual(['faq', 'faq-2']);
    expectError(await api('POST', `/portals/${slug}/categories`, { name: 'Other', slug: 'faq' }), 409, 'slug', 'taken');
    const fr = await api('POST', `/portals/${slug}/categories`, { name: 'FAQ', slug: 'faq', locale: 'fr' });
    expect(fr.status).toBe(200);
    expect(fr.body.payload).toMatchObject({ slug: 'faq', locale: 'fr', position: 10 });
  });

  it('when categories are listed, then by position, narrowed by locale, 25 a page', async () => {
    const { api, slug } = await portal();
    await api('POST', `/portals/${slug}/categories`, { name: 'Last', position: 99 });
    await api('POST', `/portals/${slug}/categories`, { name: 'First', position: 1 });
    await api('POST', `/portals/${slug}/categories`, { name: 'Premier', locale: 'fr' });
    const all = await api('GET', `/portals/${slug}/categories`);
    expectSchema(categoryListResponse, all.body);
    expect(all.body.payload.map((c: any) => c.name)).toEqual(['First', 'Premier', 'Last']);
    const fr = await api('GET', `/portals/${slug}/categories?locale=fr`);
    expect(fr.body).toMatchObject({ meta: { categories_count: 1, current_page: 1 } });
    expect(fr.body.payload.map((c: any) => c.name)).toEqual(['Premier']);
    for (let i = 0; i < 25; i++) await api('POST', `/portals/${slug}/categories`, { name: `Bulk ${i}`, locale: 'fr' });
    const p2 = await api('GET', `/portals/${slug}/categories?locale=fr&page=2`);
    expect(p2.body.meta).toEqual({ categories_count: 26, current_page: 2 });
    expect(p2.body.payload.map((c: any) => c.name)).toEqual(['Bulk 24']);
    expectError(await api('GET', `/portals/${slug}/categories?page=0`), 400, 'page');
    expectError(await api('GET', `/portals/${slug}/categories?locale=%20!`), 400, 'locale');
  });

  it('when a category is updated, then the changes are recorded and its articles follow a new locale', async () => {
    const { api, slug } = await portal();
    const cat = (await api('POST', `/portals/${slug}/categories`, { name: 'Billing' })).body.payload;
    const art = (await api('POST', `/portals/${slug}/articles`, { title: 'Invoices', content: 'x', author_id: 1, category_id: cat.id })).body;
    expect(art.locale).toBe('en');
    const res = await api('PATCH', `/portals/${slug}/categories/${cat.id}`, { name: 'Facturation', locale: 'fr', position: 5 });
    expect(res.status).toBe(200);
    expect(res.body.payload).toMatchObject({ id: cat.id, name: 'Facturation', locale: 'fr', position: 5, meta: { articles_count: 1 } });
    const [ev] = await outboxEvents(hc.db, 'category.updated', cat.id);
    expect(ev.changes).toEqual({ name: ['Billing', 'Facturation'], locale: ['en', 'fr'], position: [10, 5] });
    expect((await api('GET', `/portals/${slug}/articles/${art.id}`)).body).toMatchObject({ locale: 'fr', category: { id: cat.id, locale: 'fr' } });
    const shown = await api('GET', `/portals/${slug}/categories/${cat.id}`);
    expect(shown.body).toEqual(res.body);
  });

  it('when a category is deleted, then its articles stay without a category and category.deleted is recorded', async () => {
    const { api, slug } = await portal();
    const cat = (await api('POST', `/portals/${slug}/categories`, { name: 'Temp' })).body.payload;
    const art = (await api('POST', `/portals/${slug}/articles`, { title: 'Kept', content: 'x', author_id: 1, category_id: cat.id })).body;
    const res = await api('DELETE', `/portals/${slug}/categories/${cat.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await api('GET', `/portals/${slug}/categories/${cat.id}`), 404, 'id', 'not_found');
    expect((await api('GET', `/portals/${slug}/articles/${art.id}`)).body).toMatchObject({ category_id: 0, category: { id: null, name: null } });
    expect(await outboxEvents(hc.db, 'category.deleted', cat.id)).toHaveLength(1);
  });

  it('when the input is invalid, then 422 naming the field, and unknown ids are 404', async () => {
    const { api, slug } = await portal();
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'N', slug: 'Not A Slug' }, 'slug'],
      [{ name: 'N', locale: 'de' }, 'locale'],
      [{ name: 'N', locale: 42 }, 'locale'],
      [{ name: 'N', position: 'first' }, 'position'],
      [{ name: 'N', description: 'x'.repeat(20_001) }, 'description'],
    ];
    for (const [body, field] of cases) expectError(await api('POST', `/portals/${slug}/categories`, body), 422, field);
    const cat = (await api('POST', `/portals/${slug}/categories`, { name: 'Ok' })).body.payload;
    expectError(await api('PATCH', `/portals/${slug}/categories/${cat.id}`, { locale: 'de' }), 422, 'locale');
    expectError(await api('PATCH', `/portals/${slug}/categories/999999`, { name: 'x' }), 404, 'id');
    expectError(await api('GET', `/portals/${slug}/categories/abc`), 404, 'id');
    expectError(await api('POST', `/portals/${uniq('nope')}/categories`, { name: 'x' }), 404, 'portal_slug');
  });

  it('when an agent calls, then listing and showing work and writes are 403', async () => {
    const { api, slug } = await portal();
    const cat = (await api('POST', `/portals/${slug}/categories`, { name: 'Agents read' })).body.payload;
    const agent = { role: 'agent' as const, actor: { type: 'user' as const, id: 2 } };
    expect((await api('GET', `/portals/${slug}/categories`, undefined, agent)).status).toBe(200);
    expect((await api('GET', `/portals/${slug}/categories/${cat.id}`, undefined, agent)).status).toBe(200);
    expectError(await api('POST', `/portals/${slug}/categories`, { name: 'x' }, agent), 403);
    expectError(await api('PATCH', `/portals/${slug}/categories/${cat.id}`, { name: 'x' }, agent), 403);
    expectError(await api('DELETE', `/portals/${slug}/categories/${cat.id}`, undefined, agent), 403);
  });
});
