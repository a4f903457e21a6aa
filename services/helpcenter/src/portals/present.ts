import { unixSeconds } from '@parley/shared';
import type { ArticleCounts, LocaleCounts, PortalRow } from './repository';
import type { PortalJson, PublicPortalJson } from './schemas';

export const DEFAULT_COLOR = '#1f93ff';

const ZERO: ArticleCounts = { all: 0, draft: 0, published: 0, archived: 0, mine: 0 };

export interface PortalStats {
  articles: ArticleCounts;
  locales: Map<string, LocaleCounts>;
}

function allowedLocales(row: PortalRow, locales: Map<string, LocaleCounts>) {
  return row.config.allowed_locales.map((code) => ({
    code,
    articles_count: locales.get(code)?.articles ?? 0,
    categories_count: locales.get(code)?.categories ?? 0,
  }));
}

/** Chatwoot's portal partial: `config.allowed_locales` as `{code, articles_count, categories_count}`. */
export function presentPortal(row: PortalRow, stats?: Partial<PortalStats>): PortalJson {
  const a = stats?.articles ?? ZERO;
  const locales = stats?.locales ?? new Map<string, LocaleCounts>();
  let categories = 0;
  for (const c of locales.values()) categories += c.categories;
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    slug: row.slug,
    color: row.color ?? DEFAULT_COLOR,
    custom_domain: row.custom_domain,
    header_text: row.header_text,
    homepage_link: row.homepage_link,
    page_title: row.page_title,
    archived: row.archived,
    config: {
      allowed_locales: allowedLocales(row, locales),
      default_locale: row.config.default_locale,
    },
    meta: {
      all_articles_count: a.all,
      archived_articles_count: a.archived,
      published_count: a.published,
      draft_articles_count: a.draft,
      mine_articles_count: a.mine,
      categories_count: categories,
      default_locale: row.config.default_locale,
    },
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

export type Portal = PortalJson;

/** What an anonymous reader sees: no account id, no draft counts. */
export function presentPublicPortal(row: PortalRow, locales: Map<string, LocaleCounts>): PublicPortalJson {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    color: row.color ?? DEFAULT_COLOR,
    custom_domain: row.custom_domain,
    header_text: row.header_text,
    homepage_link: row.homepage_link,
    page_title: row.page_title,
    config: {
      allowed_locales: allowedLocales(row, locales),
      default_locale: row.config.default_locale,
    },
  };
}
