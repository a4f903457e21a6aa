import { uniq } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody, type ApiResponse } from '../../support/http';
import { expectFields, type SpecFieldType } from '../../support/spec-fields';

/*
 * SPEC operation 3 (`POST /api/v1/accounts/{account_id}/portals/{id}/articles`, `id` the
 * portal slug) through the gateway: every field of SPEC's Article record with its type,
 * `status` given as 0/1/2 and as the names (answered by name), and the error answers with
 * SPEC's Error body. Every answer is also checked against the OpenAPI document by the client.
 */

/** SPEC "Article": the fields and their types (SPEC writes no `|null` for any of them). */
const ARTICLE_FIELDS: Record<string, SpecFieldType> = {
  id: 'integer',
  content: 'string',
  meta: 'object',
  position: 'integer',
  status: 'string',
  title: 'string',
  slug: 'string',
  views: 'integer',
  portal_id: 'integer',
  account_id: 'integer',
  author_id: 'integer',
  category_id: 'integer',
  folder_id: 'integer',
  associated_article_id: 'integer',
};

function expectArticleRecord(a: any): void {
  expectFields(a, ARTICLE_FIELDS);
  expect(['draft', 'published', 'archived']).toContain(a.status);
}

describe('SPEC operation 3: create article in a portal, through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let other: SeededAccount;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    other = await seedAccount(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const portals = (a: SeededAccount = acc) => `/api/v1/accounts/${a.accountId}/portals`;

  function ok(res: ApiResponse, what: string): any {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
    return res.body;
  }

  async function portal(a: SeededAccount = acc): Promise<{ slug: string; id: number; category: any }> {
    const slug = uniq('spec-kb');
    const p = ok(await call('POST', portals(a), { token: a.admin.token, body: { name: 'Spec KB', slug, config: { allowed_locales: ['en', 'de'], default_locale: 'en' } } }), 'portal');
    const category = ok(await call('POST', `${portals(a)}/${slug}/categories`, { token: a.admin.token, body: { name: 'Guides', locale: 'de' } }), 'category').payload;
    return { slug, id: p.id, category };
  }

  const create = (slug: string, body: unknown, token = acc.admin.token, a: SeededAccount = acc) => call('POST', `${portals(a)}/${slug}/articles`, { token, body });

  it('when an administrator creates an article with every SPEC body field, then the answer is the Article record with every field typed as SPEC says', async () => {
    const { slug, id: portalId, category } = await portal();
    const root = ok(await create(slug, { title: 'Root', content: 'The first one', author_id: acc.admin.userId }), 'root');
    const res = await create(slug, {
      title: 'Change your e-mail',
      slug: 'change-email',
      position: 7,
      content: 'Settings, then Profile.',
      description: 'Short answer',
      category_id: category.id,
      author_id: acc.agent.userId,
      associated_article_id: root.id,
      status: 1,
      locale: 'en',
      meta: { tags: ['profile', 'email'], title: 'E-mail', description: 'Changing it' },
    });
    expect(res.status).toBe(200);
    expectArticleRecord(res.body);
    expect(res.body).toMatchObject({
      title: 'Change your e-mail',
      slug: 'change-email',
      position: 7,
      content: 'Settings, then Profile.',
      status: 'published',
      views: 0,
      portal_id: portalId,
      account_id: acc.accountId,
      author_id: acc.agent.userId,
      category_id: category.id,
      associated_article_id: root.id,
      meta: { tags: ['profile', 'email'], title: 'E-mail', description: 'Changing it' },
    });
    // An article in a category takes the category's locale (Chatwoot).
    expect(res.body.locale).toBe('de');
    // Show answers the same record.
    const shown = ok(await call('GET', `${portals()}/${slug}/articles/${res.body.id}`, { token: acc.agent.token }), 'show');
    expect(shown).toEqual(res.body);
  });

  it('when only the required fields are sent, then the ids SPEC types as numbers are still numbers (0 for none), position is appended and the status is draft', async () => {
    const { slug } = await portal();
    const first = ok(await create(slug, { title: 'Loose', content: 'No category', author_id: acc.admin.userId }), 'first');
    expectArticleRecord(first);
    expect(first).toMatchObject({ status: 'draft', category_id: 0, folder_id: 0, associated_article_id: 0, position: 10, meta: {}, slug: 'loose' });
    expect(first.category).toEqual({ id: null, name: null, slug: null, locale: null });
    const second = ok(await create(slug, { title: 'Loose', content: 'Same title', author_id: acc.admin.userId }), 'second');
    expect(second).toMatchObject({ position: 20, slug: 'loose-2' });
  });

  it.each([
    [0, 'draft'],
    [1, 'published'],
    [2, 'archived'],
    ['draft', 'draft'],
    ['published', 'published'],
    ['archived', 'archived'],
    ['Published', 'published'],
    ['2', 'archived'],
  ])('when status %p is given, then the article is %s and the answer names it', async (input, name) => {
    const { slug } = await portal();
    const res = await create(slug, { title: `Status ${String(input)}`, content: 'x', author_id: acc.admin.userId, status: input });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(name);
  });

  it.each([[3], [-1], [1.5], ['live'], [true], [null]])('when status %p is given, then 422 naming status', async (input) => {
    const { slug } = await portal();
    const res = await create(slug, { title: 'Bad status', content: 'x', author_id: acc.admin.userId, status: input });
    expect(res.status).toBe(422);
    expectErrorBody(res.body);
    expect(res.body.errors.map((e: any) => e.field)).toContain('status');
  });

  it('when a position is cleared on update, then the article is appended again and position stays a number', async () => {
    const { slug } = await portal();
    const a = ok(await create(slug, { title: 'A', content: 'x', author_id: acc.admin.userId }), 'a');
    ok(await create(slug, { title: 'B', content: 'x', author_id: acc.admin.userId }), 'b');
    const res = await call('PATCH', `${portals()}/${slug}/articles/${a.id}`, { token: acc.admin.token, body: { position: null } });
    expect(res.status).toBe(200);
    expectArticleRecord(res.body);
    expect(res.body.position).toBe(30);
  });

  it('when category_id or associated_article_id is sent back as 0 (the record\'s "none"), then it means none', async () => {
    const { slug, category } = await portal();
    const root = ok(await create(slug, { title: 'Root', content: 'x', author_id: acc.admin.userId }), 'root');
    const a = ok(await create(slug, { title: 'Linked', content: 'x', author_id: acc.admin.userId, category_id: category.id, associated_article_id: root.id }), 'a');
    const res = await call('PATCH', `${portals()}/${slug}/articles/${a.id}`, { token: acc.admin.token, body: { ...a, category_id: 0, associated_article_id: 0, title: 'Unlinked' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Unlinked', category_id: 0, associated_article_id: 0, category: { id: null } });
    const created = await create(slug, { title: 'Zero', content: 'x', author_id: acc.admin.userId, category_id: 0, associated_article_id: 0 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ category_id: 0, associated_article_id: 0 });
  });

  it('when the body is wrapped under `article` (Chatwoot clients), then it is read the same', async () => {
    const { slug } = await portal();
    const res = await create(slug, { article: { title: 'Wrapped', content: 'x', author_id: acc.admin.userId, status: 'published' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Wrapped', status: 'published' });
  });

  describe('errors, each with SPEC\'s Error body', () => {
    it('when a required field is missing or the author is not an agent of this account, then 422 naming the field', async () => {
      const { slug } = await portal();
      const missing = await create(slug, { slug: 'no-title' });
      expect(missing.status).toBe(422);
      expectErrorBody(missing.body);
      expect(missing.body.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(['title', 'content', 'author_id']));

      const stranger = await create(slug, { title: 'T', content: 'x', author_id: other.admin.userId });
      expect(stranger.status).toBe(422);
      expectErrorBody(stranger.body);
      expect(stranger.body.errors[0].field).toBe('author_id');
    });

    it('when the category or associated article belongs to another account\'s portal, then 422 naming the field and nothing is written', async () => {
      const { slug } = await portal();
      const theirs = await portal(other);
      const theirArticle = ok(await create(theirs.slug, { title: 'Theirs', content: 'x', author_id: other.admin.userId }, other.admin.token, other), 'theirs');
      const cat = await create(slug, { title: 'T', content: 'x', author_id: acc.admin.userId, category_id: theirs.category.id });
      expect(cat.status).toBe(422);
      expect(cat.body.errors[0].field).toBe('category_id');
      const assoc = await create(slug, { title: 'T', content: 'x', author_id: acc.admin.userId, associated_article_id: theirArticle.id });
      expect(assoc.status).toBe(422);
      expect(assoc.body.errors[0].field).toBe('associated_article_id');
      const list = ok(await call('GET', `${portals()}/${slug}/articles`, { token: acc.admin.token }), 'list');
      expect(list.payload).toEqual([]);
    });

    it('when the portal is unknown or another account\'s, then 404', async () => {
      const theirs = await portal(other);
      for (const slug of ['no-such-portal', theirs.slug]) {
        const res = await create(slug, { title: 'T', content: 'x', author_id: acc.admin.userId });
        expect(res.status).toBe(404);
        expectErrorBody(res.body, 'not_found');
      }
    });

    it('when an agent or a bot creates, then 403; without a known token, 401', async () => {
      const { slug } = await portal();
      const body = { title: 'T', content: 'x', author_id: acc.agent.userId };
      const agent = await create(slug, body, acc.agent.token);
      expect(agent.status).toBe(403);
      expectErrorBody(agent.body);
      const bot = await acc.addBot();
      const asBot = await create(slug, body, bot.token);
      expect(asBot.status).toBe(403);
      expectErrorBody(asBot.body);
      const unknown = await create(slug, body, 'not-a-token');
      expect(unknown.status).toBe(401);
      expectErrorBody(unknown.body);
    });

    it('when the body is malformed JSON, then 400; when a slug is taken in the portal, then 409 naming slug', async () => {
      const { slug } = await portal();
      const bad = await call('POST', `${portals()}/${slug}/articles`, { token: acc.admin.token, raw: '{"title": ' });
      expect(bad.status).toBe(400);
      expectErrorBody(bad.body);
      ok(await create(slug, { title: 'One', slug: 'taken', content: 'x', author_id: acc.admin.userId }), 'one');
      const dup = await create(slug, { title: 'Two', slug: 'taken', content: 'x', author_id: acc.admin.userId });
      expect(dup.status).toBe(409);
      expectErrorBody(dup.body);
      expect(dup.body.errors[0].field).toBe('slug');
    });
  });
});
