import type { Executor } from '@parley/shared';

export interface PortalConfig {
  allowed_locales: string[];
  default_locale: string;
}

export interface PortalRow {
  id: number;
  account_id: number;
  name: string;
  slug: string;
  custom_domain: string | null;
  color: string | null;
  header_text: string | null;
  homepage_link: string | null;
  page_title: string | null;
  config: PortalConfig;
  archived: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface PortalFields {
  name: string;
  slug: string;
  custom_domain: string | null;
  color: string | null;
  header_text: string | null;
  homepage_link: string | null;
  page_title: string | null;
  config: PortalConfig;
  archived: boolean;
}

const COLUMNS = 'id, account_id, name, slug, custom_domain, color, header_text, homepage_link, page_title, config, archived, created_at, updated_at';

export async function findPortalBySlug(db: Executor, accountId: number, slug: string, opts: { forUpdate?: boolean } = {}): Promise<PortalRow | null> {
  const { rows } = await db.query<PortalRow>(
    `SELECT ${COLUMNS} FROM portals WHERE account_id = $1 AND slug = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId, slug],
  );
  return rows[0] ?? null;
}

/** Public lookup: slugs are global; archived portals are not served. */
export async function findLivePortalBySlug(db: Executor, slug: string): Promise<PortalRow | null> {
  const { rows } = await db.query<PortalRow>(`SELECT ${COLUMNS} FROM portals WHERE slug = $1 AND NOT archived`, [slug]);
  return rows[0] ?? null;
}

export async function listPortals(db: Executor, accountId: number): Promise<PortalRow[]> {
  const { rows } = await db.query<PortalRow>(`SELECT ${COLUMNS} FROM portals WHERE account_id = $1 ORDER BY id`, [accountId]);
  return rows;
}

export async function insertPortal(db: Executor, accountId: number, f: PortalFields): Promise<PortalRow> {
  const { rows } = await db.query<PortalRow>(
    `INSERT INTO portals (account_id, name, slug, custom_domain, color, header_text, homepage_link, page_title, config, archived)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [accountId, f.name, f.slug, f.custom_domain, f.color, f.header_text, f.homepage_link, f.page_title, JSON.stringify(f.config), f.archived],
  );
  return rows[0] as PortalRow;
}

export async function updatePortal(db: Executor, accountId: number, id: number, f: PortalFields): Promise<PortalRow> {
  const { rows } = await db.query<PortalRow>(
    `UPDATE portals SET name = $3, slug = $4, custom_domain = $5, color = $6, header_text = $7, homepage_link = $8,
       page_title = $9, config = $10, archived = $11, updated_at = now()
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, f.name, f.slug, f.custom_domain, f.color, f.header_text, f.homepage_link, f.page_title, JSON.stringify(f.config), f.archived],
  );
  return rows[0] as PortalRow;
}

export async function deletePortal(db: Executor, accountId: number, id: number): Promise<void> {
  await db.query('DELETE FROM portals WHERE account_id = $1 AND id = $2', [accountId, id]);
}

export async function deletePortalsOfAccount(db: Executor, accountId: number): Promise<number> {
  const r = await db.query('DELETE FROM portals WHERE account_id = $1', [accountId]);
  return r.rowCount ?? 0;
}

export interface ArticleCounts {
  all: number;
  draft: number;
  published: number;
  archived: number;
  mine: number;
}

/** Article counts per portal, by status and for one author (`mine`), optionally for one locale. */
export async function articleCountsByPortal(db: Executor, accountId: number, portalIds: number[], userId: number | null, locale: string | null = null): Promise<Map<number, ArticleCounts>> {
  const out = new Map<number, ArticleCounts>();
  if (portalIds.length === 0) return out;
  const { rows } = await db.query<{ portal_id: number; all: string; draft: string; published: string; archived: string; mine: string }>(
    `SELECT portal_id, count(*) AS all,
            count(*) FILTER (WHERE status = 0) AS draft,
            count(*) FILTER (WHERE status = 1) AS published,
            count(*) FILTER (WHERE status = 2) AS archived,
            count(*) FILTER (WHERE author_id = $3) AS mine
       FROM articles
      WHERE account_id = $1 AND portal_id = ANY($2::int[]) AND ($4::text IS NULL OR locale = $4)
      GROUP BY portal_id`,
    [accountId, portalIds, userId, locale],
  );
  for (const r of rows) {
    out.set(r.portal_id, { all: Number(r.all), draft: Number(r.draft), published: Number(r.published), archived: Number(r.archived), mine: Number(r.mine) });
  }
  return out;
}

export interface LocaleCounts {
  articles: number;
  categories: number;
}

/**
 * Per-portal, per-locale counts of categories and articles (all statuses, or only published
 * ones for the public API).
 */
export async function localeCountsByPortal(db: Executor, portalIds: number[], publishedOnly: boolean): Promise<Map<number, Map<string, LocaleCounts>>> {
  const out = new Map<number, Map<string, LocaleCounts>>();
  if (portalIds.length === 0) return out;
  const { rows } = await db.query<{ portal_id: number; locale: string; articles: string; categories: string }>(
    `SELECT portal_id, locale, sum(articles) AS articles, sum(categories) AS categories FROM (
       SELECT portal_id, locale, count(*) AS articles, 0 AS categories FROM articles
        WHERE portal_id = ANY($1::int[]) AND (NOT $2 OR status = 1) GROUP BY portal_id, locale
       UNION ALL
       SELECT portal_id, locale, 0, count(*) FROM categories WHERE portal_id = ANY($1::int[]) GROUP BY portal_id, locale
     ) t GROUP BY portal_id, locale`,
    [portalIds, publishedOnly],
  );
  for (const r of rows) {
    let m = out.get(r.portal_id);
    if (!m) out.set(r.portal_id, (m = new Map()));
    m.set(r.locale, { articles: Number(r.articles), categories: Number(r.categories) });
  }
  return out;
}
