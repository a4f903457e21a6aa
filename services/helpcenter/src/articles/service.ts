import { randomBytes } from 'node:crypto';
import {
  diff,
  NotFoundError,
  ValidationError,
  withTransaction,
  writeEvent,
  type Executor,
  type NewEvent,
  type Pool,
  type RequestContext,
  type ServiceDeps,
} from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import { baseSlug, firstFreeSlug, retryOnSlugRace } from '../common/slugs';
import { findCategory, type CategoryRow } from '../categories/repository';
import type { PortalRow } from '../portals/repository';
import { assertAllowedLocale, callerUserId } from '../portals/service';
import { rememberAuthor, requireAgent } from '../authors/copies';
import { presentArticles, presentOne, type Article } from './present';
import * as repo from './repository';
import type { ArticleFields, ArticleMeta, ArticleRow } from './repository';
import { STATUS, statusName, type CreateArticleInput, type ListArticlesQuery, type MetaInput, type UpdateArticleInput } from './schemas';
import { toTsQuery } from './search';

export const ARTICLE_PAGE_SIZE = 25;
const MAX_REORDER = 1000;

type Deps = ServiceDeps<HelpcenterConfig>;

export async function requireArticle(db: Executor, portal: PortalRow, id: number, opts: { forUpdate?: boolean } = {}): Promise<ArticleRow> {
  const row = await repo.findArticle(db, portal.account_id, portal.id, id, opts);
  if (!row) throw new NotFoundError('Article', 'id');
  return row;
}

async function categoryInPortal(db: Executor, portal: PortalRow, id: number): Promise<CategoryRow> {
  const c = await findCategory(db, portal.account_id, portal.id, id);
  if (!c) throw ValidationError.field('category_id', 'does not exist in this portal', 'not_found');
  return c;
}

/**
 * The article to link to, normalised to its root (Chatwoot keeps associations one level
 * deep). Checked before anything is written: Chatwoot inserts first and 404s afterwards.
 */
async function associatedRoot(db: Executor, portal: PortalRow, id: number, self: number | null): Promise<number> {
  const a = await repo.findArticle(db, portal.account_id, portal.id, id);
  if (!a) throw ValidationError.field('associated_article_id', 'does not exist in this portal', 'not_found');
  const root = a.associated_article_id ?? a.id;
  if (self !== null && root === self) throw ValidationError.field('associated_article_id', 'cannot link an article to itself');
  return root;
}

function metaOf(m: MetaInput | null | undefined): ArticleMeta {
  if (!m) return {};
  const out: ArticleMeta = {};
  if (m.title !== undefined) out.title = m.title;
  if (m.description !== undefined) out.description = m.description;
  if (m.tags !== undefined) out.tags = m.tags;
  return out;
}

/**
 * Status moves the issue allows: draft <-> published -> archived. Archiving is final (an
 * archived article can still be deleted); a draft is published before it is archived.
 * Chatwoot lets any status move to any other; creating with any status stays allowed.
 */
const TRANSITIONS: Record<number, readonly number[]> = {
  [STATUS.draft]: [STATUS.published],
  [STATUS.published]: [STATUS.draft, STATUS.archived],
  [STATUS.archived]: [],
};

export function assertTransition(from: number, to: number): void {
  if (from === to || (TRANSITIONS[from] ?? []).includes(to)) return;
  throw ValidationError.field('status', `cannot change from ${statusName(from)} to ${statusName(to)} (allowed: draft <-> published, published -> archived)`, 'invalid_transition');
}

/** `article.created`/`updated`, plus `published`/`archived` when the status moved there. */
function statusEvents(accountId: number, data: Article, before: number | null, after: number): NewEvent[] {
  if (before === after) return [];
  if (after === STATUS.published) return [{ type: 'article.published', accountId, data }];
  if (after === STATUS.archived) return [{ type: 'article.archived', accountId, data }];
  return [];
}

async function emit(tx: Executor, ctx: RequestContext, events: NewEvent[]): Promise<void> {
  for (const e of events) await writeEvent(tx, ctx, e);
}

export async function createArticle(deps: Deps, ctx: RequestContext, portal: PortalRow, input: CreateArticleInput): Promise<Article> {
  const accountId = portal.account_id;
  // Local checks first (cheap, and they should not depend on the identity service being up).
  const category = input.category_id ? await categoryInPortal(deps.pool, portal, input.category_id) : null;
  const associated = input.associated_article_id ? await associatedRoot(deps.pool, portal, input.associated_article_id, null) : null;
  const agent = await requireAgent(deps, ctx, accountId, input.author_id);
  // Chatwoot: an article in a category takes the category's locale.
  const locale = category?.locale ?? input.locale ?? portal.config.default_locale;
  if (!category) assertAllowedLocale(portal, locale);
  const status = input.status ?? STATUS.draft;
  const generated = input.slug === undefined;

  return retryOnSlugRace('articles__slug', generated, (retry) =>
    withTransaction(deps.pool, async (tx) => {
      let slug = input.slug as string;
      if (generated) {
        const base = baseSlug(input.title, 'article');
        slug = retry > 0 ? `${base}-${randomBytes(3).toString('hex')}` : firstFreeSlug(base, await repo.slugsLike(tx, portal.id, base));
      }
      const fields: ArticleFields = {
        category_id: category?.id ?? null,
        author_id: input.author_id,
        associated_article_id: associated,
        title: input.title,
        slug,
        content: input.content,
        description: input.description ?? null,
        status,
        locale,
        meta: metaOf(input.meta),
        position: input.position ?? (await repo.nextPosition(tx, accountId, portal.id, category?.id ?? null)),
      };
      const row = await repo.insertArticle(tx, accountId, portal.id, fields);
      await rememberAuthor(tx, accountId, agent);
      const article = await presentOne(tx, row);
      await emit(tx, ctx, [{ type: 'article.created', accountId, data: article }, ...statusEvents(accountId, article, null, status)]);
      return article;
    }),
  );
}

const CHANGE_KEYS: Array<keyof ArticleFields> = [
  'title',
  'slug',
  'content',
  'description',
  'status',
  'category_id',
  'author_id',
  'associated_article_id',
  'locale',
  'meta',
  'position',
];

export async function updateArticle(deps: Deps, ctx: RequestContext, portal: PortalRow, id: number, input: UpdateArticleInput): Promise<Article> {
  const accountId = portal.account_id;
  const existing = await requireArticle(deps.pool, portal, id);
  if (input.status !== undefined) assertTransition(existing.status, input.status);
  const newCategory = input.category_id ? await categoryInPortal(deps.pool, portal, input.category_id) : null;
  const associated =
    input.associated_article_id === undefined ? undefined : input.associated_article_id === null ? null : await associatedRoot(deps.pool, portal, input.associated_article_id, id);
  const authorChanged = input.author_id !== undefined && input.author_id !== existing.author_id;
  const agent = authorChanged ? await requireAgent(deps, ctx, accountId, input.author_id as number) : null;

  return withTransaction(deps.pool, async (tx) => {
    const before = await requireArticle(tx, portal, id, { forUpdate: true });
    const categoryId = input.category_id === undefined ? before.category_id : (newCategory?.id ?? null);
    const category = input.category_id === undefined ? (before.category_id === null ? null : await findCategory(tx, accountId, portal.id, before.category_id)) : newCategory;
    const categoryMoved = categoryId !== before.category_id;
    const current: ArticleFields = {
      category_id: before.category_id,
      author_id: before.author_id,
      associated_article_id: before.associated_article_id,
      title: before.title,
      slug: before.slug,
      content: before.content,
      description: before.description,
      status: before.status,
      locale: before.locale,
      meta: before.meta ?? {},
      position: before.position,
    };
    const next: ArticleFields = {
      category_id: categoryId,
      author_id: input.author_id ?? before.author_id,
      associated_article_id: associated === undefined ? before.associated_article_id : associated,
      title: input.title ?? before.title,
      slug: input.slug ?? before.slug,
      content: input.content ?? before.content,
      description: input.description === undefined ? before.description : input.description,
      status: input.status ?? before.status,
      // Chatwoot: an article in a category takes the category's locale.
      locale: category?.locale ?? input.locale ?? before.locale,
      meta: input.meta === undefined ? current.meta : metaOf(input.meta),
      // A given position wins; moving to another category, or clearing the position (null),
      // appends the article at the end of its category: the record always has a position.
      position:
        typeof input.position === 'number'
          ? input.position
          : categoryMoved || input.position === null
            ? await repo.nextPosition(tx, accountId, portal.id, categoryId, before.id)
            : before.position,
    };
    // Checked again under the row lock: a concurrent update may have moved the status.
    assertTransition(before.status, next.status);
    if (!category && next.locale !== before.locale) assertAllowedLocale(portal, next.locale);
    const changes = diff(current as unknown as Record<string, unknown>, next as unknown as Record<string, unknown>, CHANGE_KEYS);
    if (Object.keys(changes).length === 0) return presentOne(tx, before);
    // Changes speak the API's words: the status by name, as the Article record has it.
    if (changes['status']) changes['status'] = [statusName(before.status), statusName(next.status)];
    const row = await repo.updateArticle(tx, accountId, before.id, next);
    if (agent) await rememberAuthor(tx, accountId, agent);
    const article = await presentOne(tx, row);
    await emit(tx, ctx, [{ type: 'article.updated', accountId, data: article, changes }, ...statusEvents(accountId, article, before.status, next.status)]);
    return article;
  });
}

export async function deleteArticle(pool: Pool, ctx: RequestContext, portal: PortalRow, id: number): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const row = await requireArticle(tx, portal, id, { forUpdate: true });
    const article = await presentOne(tx, row);
    await repo.deleteArticle(tx, portal.account_id, row.id);
    await writeEvent(tx, ctx, { type: 'article.deleted', accountId: portal.account_id, data: article });
  });
}

/**
 * `positions_hash: {article_id: position}`. Only articles of this portal (Chatwoot looks ids
 * up globally, across tenants); an unknown id fails the whole request, nothing is moved.
 */
export async function reorderArticles(pool: Pool, ctx: RequestContext, portal: PortalRow, positions: Record<string, number>): Promise<void> {
  const entries = Object.entries(positions).map(([k, v]) => [Number(k), v] as const);
  if (entries.length > MAX_REORDER) throw ValidationError.field('positions_hash', `has too many entries (maximum is ${MAX_REORDER})`);
  if (entries.length === 0) return;
  await withTransaction(pool, async (tx) => {
    const rows = await repo.articlesByIds(tx, portal.account_id, portal.id, entries.map(([id]) => id), { forUpdate: true });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const missing = entries.filter(([id]) => !byId.has(id)).map(([id]) => id);
    if (missing.length > 0) {
      throw new ValidationError(`positions_hash names articles that are not in this portal: ${missing.join(', ')}`, [
        { field: 'positions_hash', message: `names articles that are not in this portal: ${missing.join(', ')}`, code: 'not_found' },
      ]);
    }
    for (const [id, position] of entries) {
      const before = byId.get(id) as ArticleRow;
      if (before.position === position) continue;
      const row = await repo.setPosition(tx, portal.account_id, id, position);
      const article = await presentOne(tx, row);
      await writeEvent(tx, ctx, { type: 'article.updated', accountId: portal.account_id, data: article, changes: { position: [before.position, position] } });
    }
  });
}

export async function showArticle(pool: Pool, portal: PortalRow, id: number): Promise<Article> {
  return presentOne(pool, await requireArticle(pool, portal, id));
}

export async function listArticles(pool: Pool, ctx: RequestContext, portal: PortalRow, q: ListArticlesQuery) {
  const page = q.page ?? 1;
  const tsquery = q.query !== undefined && q.query.trim() !== '' ? toTsQuery(q.query) : undefined;
  // Chatwoot's counts use every filter except status and author.
  const base: repo.ArticleFilter = { accountId: portal.account_id, portalId: portal.id, categoryId: q.category_id, categorySlug: q.category_slug, locale: q.locale, tsquery };
  const filter: repo.ArticleFilter = { ...base, status: q.status, authorId: q.author_id };
  const byPosition = q.category_slug !== undefined || q.category_id !== undefined;
  const [rows, counts, all] = await Promise.all([
    repo.listArticles(pool, filter, byPosition, ARTICLE_PAGE_SIZE, (page - 1) * ARTICLE_PAGE_SIZE),
    repo.countArticles(pool, base, callerUserId(ctx)),
    repo.countInPortal(pool, portal.account_id, portal.id),
  ]);
  return {
    payload: await presentArticles(pool, rows),
    meta: {
      all_articles_count: all,
      articles_count: counts.total,
      archived_articles_count: counts.archived,
      draft_articles_count: counts.draft,
      published_count: counts.published,
      mine_articles_count: counts.mine,
      current_page: page,
    },
  };
}
