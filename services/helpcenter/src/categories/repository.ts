import type { Executor } from '@parley/shared';

export interface CategoryRow {
  id: number;
  account_id: number;
  portal_id: number;
  locale: string;
  slug: string;
  name: string;
  description: string | null;
  position: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface CategoryFields {
  locale: string;
  slug: string;
  name: string;
  description: string | null;
  position: number | null;
}

const COLUMNS = 'id, account_id, portal_id, locale, slug, name, description, position, created_at, updated_at';

export async function listCategories(db: Executor, accountId: number, portalId: number, locale: string | null, limit: number, offset: number): Promise<CategoryRow[]> {
  const { rows } = await db.query<CategoryRow>(
    `SELECT ${COLUMNS} FROM categories
      WHERE account_id = $1 AND portal_id = $2 AND ($3::text IS NULL OR locale = $3)
      ORDER BY position ASC NULLS LAST, id ASC LIMIT $4 OFFSET $5`,
    [accountId, portalId, locale, limit, offset],
  );
  return rows;
}

export async function countCategories(db: Executor, accountId: number, portalId: number, locale: string | null): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM categories WHERE account_id = $1 AND portal_id = $2 AND ($3::text IS NULL OR locale = $3)',
    [accountId, portalId, locale],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function findCategory(db: Executor, accountId: number, portalId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<CategoryRow | null> {
  const { rows } = await db.query<CategoryRow>(
    `SELECT ${COLUMNS} FROM categories WHERE account_id = $1 AND portal_id = $2 AND id = $3${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, portalId, id],
  );
  return rows[0] ?? null;
}

export async function categoriesByIds(db: Executor, ids: number[]): Promise<CategoryRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<CategoryRow>(`SELECT ${COLUMNS} FROM categories WHERE id = ANY($1::int[])`, [ids]);
  return rows;
}

/** Slugs in use in a portal and locale that start like `base` (for picking a free one). */
export async function slugsLike(db: Executor, portalId: number, locale: string, base: string): Promise<string[]> {
  const { rows } = await db.query<{ slug: string }>(
    `SELECT slug FROM categories WHERE portal_id = $1 AND locale = $2 AND (slug = $3 OR slug LIKE $3 || '-%')`,
    [portalId, locale, base],
  );
  return rows.map((r) => r.slug);
}

export async function nextPosition(db: Executor, accountId: number, portalId: number, locale: string): Promise<number> {
  const { rows } = await db.query<{ max: number | null }>(
    'SELECT max(position) AS max FROM categories WHERE account_id = $1 AND portal_id = $2 AND locale = $3',
    [accountId, portalId, locale],
  );
  const max = rows[0]?.max;
  return max === null || max === undefined ? 10 : max + 10;
}

export async function insertCategory(db: Executor, accountId: number, portalId: number, f: CategoryFields): Promise<CategoryRow> {
  const { rows } = await db.query<CategoryRow>(
    `INSERT INTO categories (account_id, portal_id, locale, slug, name, description, position)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [accountId, portalId, f.locale, f.slug, f.name, f.description, f.position],
  );
  return rows[0] as CategoryRow;
}

export async function updateCategory(db: Executor, accountId: number, id: number, f: CategoryFields): Promise<CategoryRow> {
  const { rows } = await db.query<CategoryRow>(
    `UPDATE categories SET locale = $3, slug = $4, name = $5, description = $6, position = $7, updated_at = now()
      WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, f.locale, f.slug, f.name, f.description, f.position],
  );
  return rows[0] as CategoryRow;
}

export async function deleteCategory(db: Executor, accountId: number, id: number): Promise<void> {
  await db.query('DELETE FROM categories WHERE account_id = $1 AND id = $2', [accountId, id]);
}

/** Articles take their category's locale; keep them in step when the category moves. */
export async function relocaleArticles(db: Executor, accountId: number, categoryId: number, locale: string): Promise<number> {
  const r = await db.query('UPDATE articles SET locale = $3, updated_at = now() WHERE account_id = $1 AND category_id = $2 AND locale <> $3', [accountId, categoryId, locale]);
  return r.rowCount ?? 0;
}

/** Number of articles per category (all, or only published ones). */
export async function articleCounts(db: Executor, categoryIds: number[], publishedOnly: boolean): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (categoryIds.length === 0) return out;
  const { rows } = await db.query<{ category_id: number; n: string }>(
    'SELECT category_id, count(*) AS n FROM articles WHERE category_id = ANY($1::int[]) AND (NOT $2 OR status = 1) GROUP BY category_id',
    [categoryIds, publishedOnly],
  );
  for (const r of rows) out.set(r.category_id, Number(r.n));
  return out;
}
