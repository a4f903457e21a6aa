import { unixSeconds, type Executor } from '@parley/shared';
import { categoriesByIds, type CategoryRow } from '../categories/repository';
import { categorySummary } from '../categories/present';
import { authorsByIds, type AgentData } from '../authors/repository';
import { associatedOf, type ArticleRow } from './repository';
import { statusName } from './schemas';

function associatedSummary(a: ArticleRow) {
  return { id: a.id, title: a.title, slug: a.slug, status: statusName(a.status), locale: a.locale, category_id: a.category_id, updated_at: unixSeconds(a.updated_at) };
}

/**
 * SPEC's Article record (id, content, meta, position, status name, title, slug, views,
 * portal_id, account_id, author_id, category_id, folder_id, associated_article_id) plus the
 * fields Chatwoot's article partial adds (description, locale, category{}, author{},
 * associated_articles, updated_at), so clients of either kind find what they read.
 */
export function presentArticle(row: ArticleRow, category: CategoryRow | null | undefined, author: AgentData | null | undefined, associated: ArticleRow[]) {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    content: row.content,
    description: row.description,
    status: statusName(row.status),
    position: row.position,
    views: row.views,
    locale: row.locale,
    meta: row.meta ?? {},
    portal_id: row.portal_id,
    account_id: row.account_id,
    author_id: row.author_id,
    category_id: row.category_id,
    // Chatwoot's folders are unused; SPEC lists the field, so it is always null.
    folder_id: null,
    associated_article_id: row.associated_article_id,
    category: categorySummary(category),
    author: author ?? null,
    associated_articles: associated.map(associatedSummary),
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

export type Article = ReturnType<typeof presentArticle>;

/** Loads the categories, authors and associated articles of a page of rows (three queries). */
export async function presentArticles(db: Executor, rows: ArticleRow[]): Promise<Article[]> {
  if (rows.length === 0) return [];
  const accountId = (rows[0] as ArticleRow).account_id;
  const categoryIds = [...new Set(rows.map((r) => r.category_id).filter((id): id is number => id !== null))];
  const [categories, authors, associated] = await Promise.all([
    categoriesByIds(db, categoryIds),
    authorsByIds(db, accountId, rows.map((r) => r.author_id)),
    associatedOf(db, rows.map((r) => r.id)),
  ]);
  const catById = new Map(categories.map((c) => [c.id, c]));
  return rows.map((r) =>
    presentArticle(
      r,
      r.category_id === null ? null : catById.get(r.category_id),
      authors.get(r.author_id),
      associated.filter((a) => a.associated_article_id === r.id),
    ),
  );
}

export async function presentOne(db: Executor, row: ArticleRow): Promise<Article> {
  return (await presentArticles(db, [row]))[0] as Article;
}

/** An author as anonymous readers see it: a name and a picture, no email or role. */
function publicAuthor(a: AgentData | undefined) {
  if (!a) return null;
  const name = typeof a['name'] === 'string' ? a['name'] : null;
  return {
    name,
    available_name: typeof a['available_name'] === 'string' ? a['available_name'] : name,
    thumbnail: typeof a['thumbnail'] === 'string' ? a['thumbnail'] : '',
  };
}

/** A published article for the public API (no author id/email, no account or internal ids beyond the article's). */
export async function presentPublicArticles(db: Executor, rows: ArticleRow[]) {
  if (rows.length === 0) return [];
  const accountId = (rows[0] as ArticleRow).account_id;
  const categoryIds = [...new Set(rows.map((r) => r.category_id).filter((id): id is number => id !== null))];
  const [categories, authors, associated] = await Promise.all([
    categoriesByIds(db, categoryIds),
    authorsByIds(db, accountId, rows.map((r) => r.author_id)),
    associatedOf(db, rows.map((r) => r.id), true),
  ]);
  const catById = new Map(categories.map((c) => [c.id, c]));
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    slug: r.slug,
    content: r.content,
    description: r.description,
    status: statusName(r.status),
    position: r.position,
    views: r.views,
    locale: r.locale,
    meta: r.meta ?? {},
    portal_id: r.portal_id,
    category_id: r.category_id,
    category: categorySummary(r.category_id === null ? null : catById.get(r.category_id)),
    author: publicAuthor(authors.get(r.author_id)),
    associated_articles: associated.filter((a) => a.associated_article_id === r.id).map((a) => ({ id: a.id, title: a.title, slug: a.slug, locale: a.locale })),
    updated_at: unixSeconds(r.updated_at),
  }));
}
