import { unixSeconds, type AgentCopy, type Executor } from '@parley/shared';
import { categoriesByIds, type CategoryRow } from '../categories/repository';
import { categorySummary } from '../categories/present';
import { authorCopies } from '../authors/copies';
import { associatedOf, type ArticleRow } from './repository';
import { statusName, type ArticleJson, type AuthorJson, type PublicArticleJson } from './schemas';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

/** The agent partial from the author projection, every field typed (null when unknown). */
function presentAuthor(a: AgentCopy | undefined): AuthorJson | null {
  if (!a) return null;
  return {
    id: a.id,
    account_id: int(a['account_id']),
    name: str(a['name']),
    available_name: str(a['available_name']) ?? str(a['name']),
    email: str(a['email']),
    role: str(a['role']),
    availability_status: str(a['availability_status']),
    auto_offline: bool(a['auto_offline']),
    confirmed: bool(a['confirmed']),
    provider: str(a['provider']),
    thumbnail: str(a['thumbnail']),
    custom_role_id: int(a['custom_role_id']),
  };
}

function associatedSummary(a: ArticleRow) {
  return { id: a.id, title: a.title, slug: a.slug, status: statusName(a.status), locale: a.locale, category_id: a.category_id, updated_at: unixSeconds(a.updated_at) };
}

/**
 * SPEC's Article record (id, content, meta, position, status name, title, slug, views,
 * portal_id, account_id, author_id, category_id, folder_id, associated_article_id, every id a
 * number) plus the
 * fields Chatwoot's article partial adds (description, locale, category{}, author{},
 * associated_articles, updated_at), so clients of either kind find what they read.
 */
export function presentArticle(row: ArticleRow, category: CategoryRow | null | undefined, author: AgentCopy | null | undefined, associated: ArticleRow[]): ArticleJson {
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
    // SPEC types these ids as numbers (no null): 0 says "none", as Chatwoot's views write
    // a missing number. Folders are unused, so folder_id is always 0.
    category_id: row.category_id ?? 0,
    folder_id: 0,
    associated_article_id: row.associated_article_id ?? 0,
    category: categorySummary(category),
    author: presentAuthor(author ?? undefined),
    associated_articles: associated.map(associatedSummary),
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

export type Article = ArticleJson;

/** Loads the categories, authors and associated articles of a page of rows (three queries). */
export async function presentArticles(db: Executor, rows: ArticleRow[]): Promise<Article[]> {
  if (rows.length === 0) return [];
  const accountId = (rows[0] as ArticleRow).account_id;
  const categoryIds = [...new Set(rows.map((r) => r.category_id).filter((id): id is number => id !== null))];
  // One after the other: `db` may be a transaction's client, which runs one query at a time.
  const categories = await categoriesByIds(db, categoryIds);
  const authors = await authorCopies.readMany(db, 'agent', accountId, rows.map((r) => r.author_id));
  const associated = await associatedOf(db, rows.map((r) => r.id));
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
function publicAuthor(a: AgentCopy | undefined): PublicArticleJson['author'] {
  if (!a) return null;
  const name = str(a['name']);
  return { name, available_name: str(a['available_name']) ?? name, thumbnail: str(a['thumbnail']) ?? '' };
}

/** A published article for the public API (no author id/email, no account or internal ids beyond the article's). */
export async function presentPublicArticles(db: Executor, rows: ArticleRow[]): Promise<PublicArticleJson[]> {
  if (rows.length === 0) return [];
  const accountId = (rows[0] as ArticleRow).account_id;
  const categoryIds = [...new Set(rows.map((r) => r.category_id).filter((id): id is number => id !== null))];
  const categories = await categoriesByIds(db, categoryIds);
  const authors = await authorCopies.readMany(db, 'agent', accountId, rows.map((r) => r.author_id));
  const associated = await associatedOf(db, rows.map((r) => r.id), true);
  const catById = new Map(categories.map((c) => [c.id, c]));
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    slug: r.slug,
    content: r.content,
    description: r.description,
    status: 'published' as const,
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
