import { unixSeconds } from '@parley/shared';
import type { CategoryRow } from './repository';
import type { CategoryJson, CategorySummaryJson, PublicCategoryJson } from './schemas';

/** Chatwoot's category partial, plus `portal_id` and the article count. */
export function presentCategory(row: CategoryRow, articlesCount = 0): CategoryJson {
  return {
    id: row.id,
    account_id: row.account_id,
    portal_id: row.portal_id,
    name: row.name,
    slug: row.slug,
    locale: row.locale,
    description: row.description,
    position: row.position,
    meta: { articles_count: articlesCount },
    created_at: unixSeconds(row.created_at),
    updated_at: unixSeconds(row.updated_at),
  };
}

export type Category = CategoryJson;

/** What an anonymous reader sees (published article count only). */
export function presentPublicCategory(row: CategoryRow, publishedCount: number): PublicCategoryJson {
  return {
    id: row.id,
    portal_id: row.portal_id,
    name: row.name,
    slug: row.slug,
    locale: row.locale,
    description: row.description,
    position: row.position,
    meta: { articles_count: publishedCount },
  };
}

/** The `category` object inside an article answer; always present, null fields when none. */
export function categorySummary(row: CategoryRow | null | undefined): CategorySummaryJson {
  return { id: row?.id ?? null, name: row?.name ?? null, slug: row?.slug ?? null, locale: row?.locale ?? null };
}
