import { randomUUID } from 'node:crypto';
import { AmqpConnection, buildEnvelope, createLogger } from '@parley/shared';
import { agentSnapshot, infra, randomAccountId, uniq, waitFor } from '@parley/testkit';
import { articleListResponse, articleResponse } from '../src/articles/schemas';
import { apiFor, expectError, expectSchema, outboxEvents, useHelpcenter, type Api } from './helpers';

describe('articles API (service level)', () => {
  const hc = useHelpcenter();

  const AUTHOR = 11;

  interface Fixture {
    api: Api;
    accountId: number;
    slug: string;
    portalId: number;
    categories: { guides: any; billing: any; french: any };
    art(body?: Record<string, unknown>): Promise<any>;
  }

  /** An account whose administrator (user 11, an agent per identity) owns a portal with three categories. */
  async function fixture(): Promise<Fixture> {
    const accountId = randomAccountId();
    hc.stub.addAgent(accountId, AUTHOR, { name: 'Ada Author', email: 'ada@example.com' });
    const api = apiFor(hc.svc, accountId, AUTHOR);
    const slug = uniq('kb');
    const portal = await api('POST', '/portals', { name: 'KB', slug, config: { allowed_locales: ['en', 'fr'] } });
    expect(portal.status).toBe(200);
    const cat = async (body: Record<string, unknown>) => (await api('POST', `/portals/${slug}/categories`, body)).body.payload;
    const categories = { guides: await cat({ name: 'Guides' }), billing: await cat({ name: 'Billing' }), french: await cat({ name: 'Guides FR', locale: 'fr' }) };
    const art = async (body: Record<string, unknown> = {}) => {
      const res = await api('POST', `/portals/${slug}/articles`, { title: uniq('Article'), content: 'Some content', author_id: AUTHOR, ...body });
      if (res.status !== 200) throw new Error(`create article: ${res.status} ${res.text}`);
      return res.body;
    };
    return { api, accountId, slug, portalId: portal.body.id, categories, art };
  }

  it('when an administrator creates an article (SPEC op 3), then it answers the Article record with the status name, and article.created is recorded', async () => {
    const f = await fixture();
    const res = await f.api('POST', `/portals/${f.slug}/articles`, {
      title: 'Resetting your password',
      slug: 'reset-password',
      position: 3,
      content: 'Open settings.',
      description: 'How to reset',
      category_id: f.categories.guides.id,
      author_id: AUTHOR,
      status: 1,
      locale: 'en',
      meta: { tags: ['account', 'password'], title: 'Reset', description: 'Reset your password' },
    });
    expect(res.status).toBe(200);
    expectSchema(articleResponse, res.body);
    expect(res.body).toMatchObject({
      title: 'Resetting your password',
      slug: 'reset-password',
      position: 3,
      content: 'Open settings.',
      description: 'How to reset',
      status: 'published',
      views: 0,
      locale: 'en',
      meta: { tags: ['account', 'password'], title: 'Reset', description: 'Reset your password' },
      portal_id: f.portalId,
      account_id: f.accountId,
      author_id: AUTHOR,
      category_id: f.categories.guides.id,
      folder_id: 0,
      associated_article_id: 0,
      category: { id: f.categories.guides.id, name: 'Guides', slug: 'guides', locale: 'en' },
      author: { id: AUTHOR, name: 'Ada Author', email: 'ada@example.com' },
      associated_articles: [],
    });
    expect(hc.stub.calls).toContain(`GET /internal/accounts/${f.accountId}/agents/${AUTHOR}`);
    expect((await f.api('GET', `/portals/${f.slug}/articles/${res.body.id}`)).body).toEqual(res.body);
    const created = await outboxEvents(hc.db, 'article.created', res.body.id);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ account_id: f.accountId, actor: { type: 'user', id: AUTHOR }, data: { id: res.body.id, status: 'published' } });
    expect(await outboxEvents(hc.db, 'article.published', res.body.id)).toHaveLength(1);
  });

  it('when status is given as 0/1/2, a name or a digit string, then it is stored and answered by name; anything else is 422', async () => {
    const f = await fixture();
    const cases: Array<[unknown, string]> = [
      [0, 'draft'],
      [1, 'published'],
      [2, 'archived'],
      ['draft', 'draft'],
      ['published', 'published'],
      ['archived', 'archived'],
      ['1', 'published'],
    ];
    for (const [status, name] of cases) expect((await f.art({ status })).status).toBe(name);
    expect((await f.art()).status).toBe('draft');
    for (const status of [3, -1, 1.5, 'live', true, null, [1]]) {
      expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR, status }), 422, 'status');
    }
  });

  it('when no slug is given, then one is generated from the title and kept unique in the portal; a given slug that is taken is 409', async () => {
    const f = await fixture();
    const a = await f.art({ title: 'Éclair: how to pay?' });
    const b = await f.art({ title: 'Éclair: how to pay?' });
    expect([a.slug, b.slug]).toEqual(['eclair-how-to-pay', 'eclair-how-to-pay-2']);
    expect((await f.art({ title: '!!!' })).slug).toBe('article');
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR, slug: a.slug }), 409, 'slug', 'taken');
    // Slugs are per portal: another portal may reuse it.
    const other = uniq('other');
    await f.api('POST', '/portals', { name: 'Other', slug: other });
    expect((await f.api('POST', `/portals/${other}/articles`, { title: 'T', content: 'C', author_id: AUTHOR, slug: a.slug })).status).toBe(200);
  });

  it('when no position is given, then the article goes after the last one of its category', async () => {
    const f = await fixture();
    const g1 = await f.art({ category_id: f.categories.guides.id });
    const g2 = await f.art({ category_id: f.categories.guides.id });
    const b1 = await f.art({ category_id: f.categories.billing.id });
    const g3 = await f.art({ category_id: f.categories.guides.id, position: 100 });
    const g4 = await f.art({ category_id: f.categories.guides.id });
    const loose = await f.art();
    expect([g1.position, g2.position, b1.position, g3.position, g4.position, loose.position]).toEqual([10, 20, 10, 100, 110, 10]);
  });

  it('when the author is not an agent of the account, then 422 naming author_id; when identity fails, then 503; nothing is written either way', async () => {
    const f = await fixture();
    hc.stub.addAgent(randomAccountId(), 77); // an agent, but of another account
    const before = await hc.db.query('SELECT count(*)::int AS n FROM helpcenter.articles WHERE account_id = $1', [f.accountId]);
    for (const author_id of [77, 999_999]) {
      expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id }), 422, 'author_id', 'not_found');
    }
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C' }), 422, 'author_id');
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: 'me' }), 422, 'author_id');
    hc.stub.failing.add('agents');
    try {
      expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR }), 503, undefined, 'unavailable');
    } finally {
      hc.stub.failing.delete('agents');
    }
    const after = await hc.db.query('SELECT count(*)::int AS n FROM helpcenter.articles WHERE account_id = $1', [f.accountId]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('when the author changes, then the new one is checked too', async () => {
    const f = await fixture();
    const a = await f.art();
    expectError(await f.api('PATCH', `/portals/${f.slug}/articles/${a.id}`, { author_id: 4242 }), 422, 'author_id');
    hc.stub.addAgent(f.accountId, 4242, { name: 'Bea' });
    const res = await f.api('PATCH', `/portals/${f.slug}/articles/${a.id}`, { author_id: 4242 });
    expect(res.body).toMatchObject({ author_id: 4242, author: { id: 4242, name: 'Bea' } });
  });

  it('when a category or associated article is unknown or in another portal, then 422 naming the field and nothing is written', async () => {
    const f = await fixture();
    const g = await fixture();
    const foreignCategory = g.categories.guides.id;
    const foreignArticle = (await g.art()).id;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ category_id: 987_654 }, 'category_id'],
      [{ category_id: foreignCategory }, 'category_id'],
      [{ associated_article_id: 987_654 }, 'associated_article_id'],
      [{ associated_article_id: foreignArticle }, 'associated_article_id'],
    ];
    for (const [extra, field] of cases) {
      expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR, ...extra }), 422, field, 'not_found');
    }
    expect((await f.api('GET', `/portals/${f.slug}/articles`)).body.meta.all_articles_count).toBe(0);
  });

  it('when an article is linked to a linked article, then it is linked to the root, and the root lists both', async () => {
    const f = await fixture();
    const root = await f.art({ title: 'Root' });
    const child = await f.art({ title: 'Child', associated_article_id: root.id });
    const grandchild = await f.art({ title: 'Grandchild', associated_article_id: child.id });
    expect([child.associated_article_id, grandchild.associated_article_id]).toEqual([root.id, root.id]);
    const shown = (await f.api('GET', `/portals/${f.slug}/articles/${root.id}`)).body;
    expect(shown.associated_articles.map((a: any) => a.id)).toEqual([child.id, grandchild.id]);
    expectError(await f.api('PATCH', `/portals/${f.slug}/articles/${root.id}`, { associated_article_id: child.id }), 422, 'associated_article_id');
  });

  it('when the article is in a category, then it takes the category locale; without one the locale must be allowed by the portal', async () => {
    const f = await fixture();
    expect((await f.art({ category_id: f.categories.french.id, locale: 'en' })).locale).toBe('fr');
    expect((await f.art({ locale: 'fr' })).locale).toBe('fr');
    expect((await f.art()).locale).toBe('en');
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR, locale: 'de' }), 422, 'locale', 'inclusion');
  });

  it('when fields are missing, too long or of the wrong type, then 422 naming each field', async () => {
    const f = await fixture();
    const base = { title: 'T', content: 'C', author_id: AUTHOR };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: undefined }, 'title'],
      [{ title: '  ' }, 'title'],
      [{ title: 'x'.repeat(256) }, 'title'],
      [{ content: undefined }, 'content'],
      [{ content: '' }, 'content'],
      [{ content: 'x'.repeat(150_001) }, 'content'],
      [{ description: 'x'.repeat(20_001) }, 'description'],
      [{ slug: 'Bad Slug' }, 'slug'],
      [{ position: 'top' }, 'position'],
      [{ category_id: -1 }, 'category_id'],
      [{ meta: { tags: 'a,b' } }, 'meta.tags'],
      [{ meta: { tags: [''] } }, 'meta.tags.0'],
      [{ meta: { title: 'x'.repeat(256) } }, 'meta.title'],
      [{ locale: 'english!' }, 'locale'],
    ];
    for (const [extra, field] of cases) expectError(await f.api('POST', `/portals/${f.slug}/articles`, { ...base, ...extra }), 422, field);
    // Several problems at once: each is named.
    const many = await f.api('POST', `/portals/${f.slug}/articles`, { status: 9 });
    expectError(many, 422);
    expect(many.body.errors.map((e: any) => e.field).sort()).toEqual(['author_id', 'content', 'status', 'title']);
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, '{"title":'), 400, 'body', 'malformed_json');
    expectError(await f.api('POST', `/portals/${uniq('missing')}/articles`, base), 404, 'portal_slug');
  });

  it('when articles are listed, then filters by status, category, author, locale and text apply, 25 a page, with counts', async () => {
    const f = await fixture();
    hc.stub.addAgent(f.accountId, 12);
    const mine = [];
    for (let i = 0; i < 27; i++) mine.push(await f.art({ title: `Guide ${i}`, category_id: f.categories.guides.id, status: i % 3 === 0 ? 1 : 0 }));
    const refund = await f.art({ title: 'Refund policy', content: 'How refunds are processed', category_id: f.categories.billing.id, author_id: 12, status: 1 });
    const french = await f.art({ title: 'Remboursement', content: 'Comment obtenir un remboursement', category_id: f.categories.french.id, author_id: 12 });
    const path = `/portals/${f.slug}/articles`;

    const p1 = await f.api('GET', path);
    expect(p1.status).toBe(200);
    expectSchema(articleListResponse, p1.body);
    expect(p1.body.payload).toHaveLength(25);
    expect(p1.body.meta).toEqual({ all_articles_count: 29, articles_count: 29, archived_articles_count: 0, draft_articles_count: 19, published_count: 10, mine_articles_count: 27, current_page: 1 });
    const p2 = await f.api('GET', `${path}?page=2`);
    expect(p2.body.payload).toHaveLength(4);
    expect(new Set([...p1.body.payload, ...p2.body.payload].map((a: any) => a.id)).size).toBe(29);

    const published = await f.api('GET', `${path}?status=published`);
    expect(published.body.payload).toHaveLength(10);
    expect(published.body.payload.every((a: any) => a.status === 'published')).toBe(true);
    expect((await f.api('GET', `${path}?status=1`)).body.payload).toHaveLength(10);

    const guides = await f.api('GET', `${path}?category_slug=guides`);
    expect(guides.body.payload.map((a: any) => a.title)).toEqual(mine.slice(0, 25).map((a) => a.title)); // by position
    expect((await f.api('GET', `${path}?category_id=${f.categories.billing.id}`)).body.payload.map((a: any) => a.id)).toEqual([refund.id]);
    expect((await f.api('GET', `${path}?author_id=12`)).body.payload.map((a: any) => a.id).sort()).toEqual([refund.id, french.id].sort());
    expect((await f.api('GET', `${path}?locale=fr`)).body.payload.map((a: any) => a.id)).toEqual([french.id]);
    const search = await f.api('GET', `${path}?query=refu`);
    expect(search.body.payload.map((a: any) => a.id)).toEqual([refund.id]);
    expect(search.body.meta.articles_count).toBe(1);
    expect((await f.api('GET', `${path}?query=${encodeURIComponent('remboursement obtenir')}`)).body.payload.map((a: any) => a.id)).toEqual([french.id]);
    expect((await f.api('GET', `${path}?query=${encodeURIComponent("'); drop table articles; --")}`)).status).toBe(200);

    for (const q of ['status=live', 'page=0', 'page=x', 'author_id=abc', 'category_id=-3', 'locale=%21']) {
      expectError(await f.api('GET', `${path}?${q}`), 400);
    }
  });

  it('when the status moves draft -> published -> draft -> published -> archived, then each step is recorded; archived is final and a draft cannot be archived', async () => {
    const f = await fixture();
    const a = await f.art();
    const step = (status: unknown) => f.api('PATCH', `/portals/${f.slug}/articles/${a.id}`, { status });
    expect((await step(1)).body.status).toBe('published');
    expect((await step('draft')).body.status).toBe('draft');
    expectError(await step(2), 422, 'status', 'invalid_transition');
    expect((await step('published')).body.status).toBe('published');
    expect((await step('archived')).body.status).toBe('archived');
    for (const s of [0, 1]) expectError(await step(s), 422, 'status', 'invalid_transition');
    expect((await f.api('GET', `/portals/${f.slug}/articles/${a.id}`)).body.status).toBe('archived');
    const updates = await outboxEvents(hc.db, 'article.updated', a.id);
    expect(updates.map((e) => e.changes)).toEqual([
      { status: ['draft', 'published'] },
      { status: ['published', 'draft'] },
      { status: ['draft', 'published'] },
      { status: ['published', 'archived'] },
    ]);
    expect(await outboxEvents(hc.db, 'article.published', a.id)).toHaveLength(2);
    expect(await outboxEvents(hc.db, 'article.archived', a.id)).toHaveLength(1);
  });

  it('when an article is updated, then only the given fields change, moving category appends it there, and nothing changing records nothing', async () => {
    const f = await fixture();
    await f.art({ category_id: f.categories.billing.id });
    const a = await f.art({ category_id: f.categories.guides.id, meta: { tags: ['x'] } });
    const res = await f.api('PUT', `/portals/${f.slug}/articles/${a.id}`, { article: { title: 'New title', category_id: f.categories.billing.id, meta: { title: 'SEO' } } });
    expect(res.status).toBe(200);
    expectSchema(articleResponse, res.body);
    expect(res.body).toMatchObject({ title: 'New title', slug: a.slug, content: a.content, category_id: f.categories.billing.id, position: 20, meta: { title: 'SEO' } });
    const [ev] = await outboxEvents(hc.db, 'article.updated', a.id);
    expect(ev.changes).toEqual({ title: [a.title, 'New title'], category_id: [f.categories.guides.id, f.categories.billing.id], meta: [{ tags: ['x'] }, { title: 'SEO' }], position: [10, 20] });
    const same = await f.api('PATCH', `/portals/${f.slug}/articles/${a.id}`, { title: 'New title' });
    expect(same.status).toBe(200);
    expect(await outboxEvents(hc.db, 'article.updated', a.id)).toHaveLength(1);
    expectError(await f.api('PATCH', `/portals/${f.slug}/articles/${a.id}`, { title: '' }), 422, 'title');
    expectError(await f.api('PATCH', `/portals/${f.slug}/articles/424242`, { title: 'x' }), 404, 'id');
  });

  it('when articles are reordered, then their positions change; an id from another portal fails the whole request', async () => {
    const f = await fixture();
    const [a, b, c] = [await f.art(), await f.art(), await f.art()];
    const res = await f.api('POST', `/portals/${f.slug}/articles/reorder`, { positions_hash: { [a.id]: 3, [b.id]: 1, [c.id]: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const list = await f.api('GET', `/portals/${f.slug}/articles`);
    const pos = Object.fromEntries(list.body.payload.map((x: any) => [x.id, x.position]));
    expect([pos[a.id], pos[b.id], pos[c.id]]).toEqual([3, 1, 2]);
    expect((await outboxEvents(hc.db, 'article.updated', a.id))[0].changes).toEqual({ position: [10, 3] });

    const foreign = (await (await fixture()).art()).id;
    expectError(await f.api('POST', `/portals/${f.slug}/articles/reorder`, { positions_hash: { [a.id]: 50, [foreign]: 1 } }), 422, 'positions_hash', 'not_found');
    expect((await f.api('GET', `/portals/${f.slug}/articles/${a.id}`)).body.position).toBe(3);
    expectError(await f.api('POST', `/portals/${f.slug}/articles/reorder`, {}), 422, 'positions_hash');
    expectError(await f.api('POST', `/portals/${f.slug}/articles/reorder`, { positions_hash: { abc: 1 } }), 422);
  });

  it('when an article is deleted, then it is gone and article.deleted is recorded', async () => {
    const f = await fixture();
    const a = await f.art();
    const res = await f.api('DELETE', `/portals/${f.slug}/articles/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await f.api('GET', `/portals/${f.slug}/articles/${a.id}`), 404, 'id', 'not_found');
    expectError(await f.api('DELETE', `/portals/${f.slug}/articles/${a.id}`), 404, 'id');
    const [ev] = await outboxEvents(hc.db, 'article.deleted', a.id);
    expect(ev).toMatchObject({ account_id: f.accountId, data: { id: a.id, title: a.title } });
  });

  it('when an agent calls, then list and show work and create, update, reorder and delete are 403', async () => {
    const f = await fixture();
    const a = await f.art();
    const agent = { role: 'agent' as const, actor: { type: 'user' as const, id: 2 } };
    expect((await f.api('GET', `/portals/${f.slug}/articles`, undefined, agent)).status).toBe(200);
    expect((await f.api('GET', `/portals/${f.slug}/articles/${a.id}`, undefined, agent)).status).toBe(200);
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR }, agent), 403, undefined, 'forbidden');
    expectError(await f.api('PATCH', `/portals/${f.slug}/articles/${a.id}`, { title: 'x' }, agent), 403, undefined, 'forbidden');
    expectError(await f.api('POST', `/portals/${f.slug}/articles/reorder`, { positions_hash: { [a.id]: 1 } }, agent), 403);
    expectError(await f.api('DELETE', `/portals/${f.slug}/articles/${a.id}`, undefined, agent), 403);
    const bot = { role: null, actor: { type: 'agent_bot' as const, id: 5 } };
    expectError(await f.api('POST', `/portals/${f.slug}/articles`, { title: 'T', content: 'C', author_id: AUTHOR }, bot), 403);
    expect((await f.api('GET', `/portals/${f.slug}/articles/${a.id}`)).body.title).toBe(a.title);
  });

  it("when identity says an author's name changed, then articles show the new name", async () => {
    const f = await fixture();
    const a = await f.art();
    const conn = new AmqpConnection(infra().amqpUrl, createLogger('hc-test-bus', 'silent'), hc.env.namespace);
    try {
      const ev = buildEnvelope(
        { requestId: randomUUID(), accountId: f.accountId, actor: { type: 'user', id: 1 }, role: 'administrator', features: {}, ip: null, issuedAt: Date.now() },
        { type: 'agent.updated', accountId: f.accountId, data: agentSnapshot(f.accountId, AUTHOR, { name: 'Ada Lovelace', available_name: 'Ada L.', email: 'ada@example.com', role: 'administrator' }) },
      );
      const ch = await conn.confirmChannel();
      ch.publish(conn.exchange, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true, contentType: 'application/json', messageId: ev.id });
      await ch.waitForConfirms();
      await waitFor(async () => (await f.api('GET', `/portals/${f.slug}/articles/${a.id}`)).body.author.name === 'Ada Lovelace', { what: 'author renamed' });
      expect((await f.api('GET', `/portals/${f.slug}/articles/${a.id}`)).body.author).toMatchObject({ id: AUTHOR, name: 'Ada Lovelace', available_name: 'Ada L.' });
    } finally {
      await conn.close();
    }
  });
});
