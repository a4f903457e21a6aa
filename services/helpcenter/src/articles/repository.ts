import type { Executor } from '@parley/shared';

export interface ArticleMeta {
  title?: string | null;
  description?: string | null;
  tags?: string[];
}

export interface ArticleRow {
  id: number;
  account_id: number;
  portal_id: number;
  category_id: number | null;
  author_id: number;
  associated_article_id: number | null;
  title: string;
  slug: string;
  content: string;
  description: string | null;
  status: number;
  locale: string;
  meta: ArticleMeta;
  position: number;
  views: number;
  created_at: Date;
  updated_at: Date;
}

export type ArticleFields = Pick<
  ArticleRow,
  'category_id' | 'author_id' | 'associated_article_id' | 'title' | 'slug' | 'content' | 'description' | 'status' | 'locale' | 'meta' | 'position'
>;

const COLUMNS =
  'a.id, a.account_id, a.portal_id, a.category_id, a.author_id, a.associated_article_id, a.title, a.slug, a.content, a.description, a.status, a.locale, a.meta, a.position, a.views, a.created_at, a.updated_at';

export async function findArticle(db: Executor, accountId: number, portalId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<ArticleRow | null> {
  const { rows } = await db.query<ArticleRow>(
    `SELECT ${COLUMNS} FROM articles a WHERE a.account_id = $1 AND a.portal_id = $2 AND a.id = $3${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, portalId, id],
  );
  return rows[0] ?? null;
}

export async function insertArticle(db: Executor, accountId: number, portalId: number, f: ArticleFields): Promise<ArticleRow> {
  const { rows } = await db.query<ArticleRow>(
    `INSERT INTO articles AS a (account_id, portal_id, category_id, author_id, associated_article_id, title, slug, content, description, status, locale, meta, position)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
    [accountId, portalId, f.category_id, f.author_id, f.associated_article_id, f.title, f.slug, f.content, f.description, f.status, f.locale, JSON.stringify(f.meta), f.position],
  );
  return rows[0] as ArticleRow;
}

export async function updateArticle(db: Executor, accountId: number, id: number, f: ArticleFields): Promise<ArticleRow> {
  const { rows } = await db.query<ArticleRow>(
    `UPDATE articles AS a SET category_id = $3, author_id = $4, associated_article_id = $5, title = $6, slug = $7, content = $8,
       description = $9, status = $10, locale = $11, meta = $12, position = $13, updated_at = now()
     WHERE a.account_id = $1 AND a.id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, f.category_id, f.author_id, f.associated_article_id, f.title, f.slug, f.content, f.description, f.status, f.locale, JSON.stringify(f.meta), f.position],
  );
  return rows[0] as ArticleRow;
}

export async function setPosition(db: Executor, accountId: number, id: number, position: number): Promise<ArticleRow> {
  const { rows } = await db.query<ArticleRow>(`UPDATE articles AS a SET position = $3, updated_at = now() WHERE a.account_id = $1 AND a.id = $2 RETURNING ${COLUMNS}`, [
    accountId,
    id,
    position,
  ]);
  return rows[0] as ArticleRow;
}

export async function deleteArticle(db: Executor, accountId: number, id: number): Promise<void> {
  await db.query('DELETE FROM articles WHERE account_id = $1 AND id = $2', [accountId, id]);
}

export async function slugsLike(db: Executor, portalId: number, base: string): Promise<string[]> {
  const { rows } = await db.query<{ slug: string }>(`SELECT slug FROM articles WHERE portal_id = $1 AND (slug = $2 OR slug LIKE $2 || '-%')`, [portalId, base]);
  return rows.map((r) => r.slug);
}

/**
 * Chatwoot appends an article at max(position in its category) + 10, or 10; `except` leaves
 * one article out (the one being moved to the end). Capped at the column's maximum, so an
 * article placed at the very end never makes the next append overflow.
 */
export async function nextPosition(db: Executor, accountId: number, portalId: number, categoryId: number | null, except: number | null = null): Promise<number> {
  const { rows } = await db.query<{ max: number | null }>(
    'SELECT max(position) AS max FROM articles WHERE account_id = $1 AND portal_id = $2 AND category_id IS NOT DISTINCT FROM $3 AND id IS DISTINCT FROM $4',
    [accountId, portalId, categoryId, except],
  );
  const max = rows[0]?.max;
  return max === null || max === undefined ? 10 : Math.min(max + 10, 2_147_483_647);
}

export async function articlesByIds(db: Executor, accountId: number, portalId: number, ids: number[], opts: { forUpdate?: boolean } = {}): Promise<ArticleRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<ArticleRow>(
    `SELECT ${COLUMNS} FROM articles a WHERE a.account_id = $1 AND a.portal_id = $2 AND a.id = ANY($3::int[]) ORDER BY a.id${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, portalId, ids],
  );
  return rows;
}

/** Articles linked to these root articles (Chatwoot's `associated_articles`). */
export async function associatedOf(db: Executor, rootIds: number[], publishedOnly = false): Promise<ArticleRow[]> {
  if (rootIds.length === 0) return [];
  const { rows } = await db.query<ArticleRow>(
    `SELECT ${COLUMNS} FROM articles a WHERE a.associated_article_id = ANY($1::int[]) AND (NOT $2 OR a.status = 1) ORDER BY a.id`,
    [rootIds, publishedOnly],
  );
  return rows;
}

/** Filters of the account list; `tsquery` is already a safe `to_tsquery` string ('' = match nothing). */
export interface ArticleFilter {
  accountId: number;
  portalId: number;
  status?: number;
  categoryId?: number;
  categorySlug?: string;
  authorId?: number;
  locale?: string;
  tsquery?: string;
}

function where(f: ArticleFilter, params: unknown[]): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const parts = [`a.account_id = ${add(f.accountId)}`, `a.portal_id = ${add(f.portalId)}`];
  if (f.status !== undefined) parts.push(`a.status = ${add(f.status)}`);
  if (f.categoryId !== undefined) parts.push(`a.category_id = ${add(f.categoryId)}`);
  if (f.categorySlug !== undefined) parts.push(`a.category_id IN (SELECT c.id FROM categories c WHERE c.portal_id = a.portal_id AND c.slug = ${add(f.categorySlug)})`);
  if (f.authorId !== undefined) parts.push(`a.author_id = ${add(f.authorId)}`);
  if (f.locale !== undefined) parts.push(`a.locale = ${add(f.locale)}`);
  if (f.tsquery !== undefined) parts.push(f.tsquery === '' ? 'false' : `a.search @@ to_tsquery('simple', ${add(f.tsquery)})`);
  return parts.join(' AND ');
}

/** One page, newest change first; by position when listing a category (Chatwoot's order). */
export async function listArticles(db: Executor, f: ArticleFilter, byPosition: boolean, limit: number, offset: number): Promise<ArticleRow[]> {
  const params: unknown[] = [];
  const w = where(f, params);
  const order = byPosition ? 'a.position ASC NULLS LAST, a.id ASC' : 'a.updated_at DESC, a.id DESC';
  params.push(limit, offset);
  const { rows } = await db.query<ArticleRow>(`SELECT ${COLUMNS} FROM articles a WHERE ${w} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`, params);
  return rows;
}

export interface ArticleListCounts {
  total: number;
  mine: number;
  draft: number;
  published: number;
  archived: number;
}

/** Counts over a filter (Chatwoot computes them without the status and author filters). */
export async function countArticles(db: Executor, f: ArticleFilter, userId: number | null): Promise<ArticleListCounts> {
  const params: unknown[] = [];
  const w = where(f, params);
  params.push(userId);
  const { rows } = await db.query<{ total: string; mine: string; draft: string; published: string; archived: string }>(
    `SELECT count(*) AS total,
            count(*) FILTER (WHERE a.author_id = $${params.length}) AS mine,
            count(*) FILTER (WHERE a.status = 0) AS draft,
            count(*) FILTER (WHERE a.status = 1) AS published,
            count(*) FILTER (WHERE a.status = 2) AS archived
       FROM articles a WHERE ${w}`,
    params,
  );
  const r = rows[0];
  return { total: Number(r?.total ?? 0), mine: Number(r?.mine ?? 0), draft: Number(r?.draft ?? 0), published: Number(r?.published ?? 0), archived: Number(r?.archived ?? 0) };
}

export async function countInPortal(db: Executor, accountId: number, portalId: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM articles WHERE account_id = $1 AND portal_id = $2', [accountId, portalId]);
  return Number(rows[0]?.n ?? 0);
}

export interface PublicFilter {
  portalId: number;
  locale?: string;
  categorySlug?: string;
  tsquery?: string;
}

function publicWhere(f: PublicFilter, params: unknown[]): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const parts = [`a.portal_id = ${add(f.portalId)}`, 'a.status = 1'];
  if (f.locale !== undefined) parts.push(`a.locale = ${add(f.locale)}`);
  if (f.categorySlug !== undefined) parts.push(`a.category_id IN (SELECT c.id FROM categories c WHERE c.portal_id = a.portal_id AND c.slug = ${add(f.categorySlug)})`);
  if (f.tsquery !== undefined) parts.push(f.tsquery === '' ? 'false' : `a.search @@ to_tsquery('simple', ${add(f.tsquery)})`);
  return parts.join(' AND ');
}

/** Published articles only; best match first when searching, else by position (or views). */
export async function listPublished(db: Executor, f: PublicFilter, sort: 'position' | 'views', limit: number, offset: number): Promise<ArticleRow[]> {
  const params: unknown[] = [];
  const w = publicWhere(f, params);
  let order = sort === 'views' ? 'a.views DESC, a.id ASC' : 'a.position ASC NULLS LAST, a.id ASC';
  const tsParam = f.tsquery ? params.indexOf(f.tsquery) + 1 : 0;
  if (tsParam > 0) order = `ts_rank(a.search, to_tsquery('simple', $${tsParam})) DESC, ${order}`;
  params.push(limit, offset);
  const { rows } = await db.query<ArticleRow>(`SELECT ${COLUMNS} FROM articles a WHERE ${w} ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`, params);
  return rows;
}

export async function countPublished(db: Executor, f: PublicFilter): Promise<number> {
  const params: unknown[] = [];
  const w = publicWhere(f, params);
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM articles a WHERE ${w}`, params);
  return Number(rows[0]?.n ?? 0);
}

/** Counts one view of a published article, atomically; null when there is no such published article. */
export async function viewPublished(db: Executor, portalId: number, slug: string): Promise<ArticleRow | null> {
  const { rows } = await db.query<ArticleRow>(`UPDATE articles AS a SET views = a.views + 1 WHERE a.portal_id = $1 AND a.slug = $2 AND a.status = 1 RETURNING ${COLUMNS}`, [
    portalId,
    slug,
  ]);
  return rows[0] ?? null;
}

export async function deleteArticlesOfAccount(db: Executor, accountId: number): Promise<void> {
  await db.query('DELETE FROM articles WHERE account_id = $1', [accountId]);
}
