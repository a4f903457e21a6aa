import { randomBytes } from 'node:crypto';
import { diff, NotFoundError, withTransaction, writeEvent, type Executor, type Pool, type RequestContext } from '@parley/shared';
import { baseSlug, firstFreeSlug, retryOnSlugRace } from '../common/slugs';
import type { PortalRow } from '../portals/repository';
import { assertAllowedLocale } from '../portals/service';
import { presentCategory, type Category } from './present';
import * as repo from './repository';
import type { CategoryFields, CategoryRow } from './repository';
import type { CreateCategoryInput, UpdateCategoryInput } from './schemas';

export const CATEGORY_PAGE_SIZE = 25;

export async function requireCategory(db: Executor, portal: PortalRow, id: number, opts: { forUpdate?: boolean } = {}): Promise<CategoryRow> {
  const row = await repo.findCategory(db, portal.account_id, portal.id, id, opts);
  if (!row) throw new NotFoundError('Category', 'id');
  return row;
}

async function present(db: Executor, row: CategoryRow): Promise<Category> {
  const counts = await repo.articleCounts(db, [row.id], false);
  return presentCategory(row, counts.get(row.id) ?? 0);
}

export async function listCategories(pool: Pool, portal: PortalRow, locale: string | null, page: number): Promise<{ payload: Category[]; count: number }> {
  const [rows, count] = await Promise.all([
    repo.listCategories(pool, portal.account_id, portal.id, locale, CATEGORY_PAGE_SIZE, (page - 1) * CATEGORY_PAGE_SIZE),
    repo.countCategories(pool, portal.account_id, portal.id, locale),
  ]);
  const counts = await repo.articleCounts(pool, rows.map((r) => r.id), false);
  return { payload: rows.map((r) => presentCategory(r, counts.get(r.id) ?? 0)), count };
}

export async function showCategory(pool: Pool, portal: PortalRow, id: number): Promise<Category> {
  return present(pool, await requireCategory(pool, portal, id));
}

export async function createCategory(pool: Pool, ctx: RequestContext, portal: PortalRow, input: CreateCategoryInput): Promise<Category> {
  const locale = input.locale ?? portal.config.default_locale;
  assertAllowedLocale(portal, locale);
  const generated = input.slug === undefined;
  return retryOnSlugRace('categories__slug', generated, (retry) =>
    withTransaction(pool, async (tx) => {
      let slug = input.slug as string;
      if (generated) {
        const base = baseSlug(input.name, 'category');
        slug = retry > 0 ? `${base}-${randomBytes(3).toString('hex')}` : firstFreeSlug(base, await repo.slugsLike(tx, portal.id, locale, base));
      }
      const fields: CategoryFields = {
        locale,
        slug,
        name: input.name,
        description: input.description ?? null,
        position: input.position === undefined || input.position === null ? await repo.nextPosition(tx, portal.account_id, portal.id, locale) : input.position,
      };
      const row = await repo.insertCategory(tx, portal.account_id, portal.id, fields);
      const category = presentCategory(row, 0);
      await writeEvent(tx, ctx, { type: 'category.created', accountId: portal.account_id, data: category });
      return category;
    }),
  );
}

const CHANGE_KEYS: Array<keyof CategoryFields> = ['name', 'slug', 'locale', 'description', 'position'];

export async function updateCategory(pool: Pool, ctx: RequestContext, portal: PortalRow, id: number, input: UpdateCategoryInput): Promise<Category> {
  return withTransaction(pool, async (tx) => {
    const before = await requireCategory(tx, portal, id, { forUpdate: true });
    const current: CategoryFields = { locale: before.locale, slug: before.slug, name: before.name, description: before.description, position: before.position };
    const next: CategoryFields = {
      locale: input.locale ?? current.locale,
      slug: input.slug ?? current.slug,
      name: input.name ?? current.name,
      description: input.description === undefined ? current.description : input.description,
      position: input.position === undefined ? current.position : input.position,
    };
    if (next.locale !== current.locale) assertAllowedLocale(portal, next.locale);
    const changes = diff(current as unknown as Record<string, unknown>, next as unknown as Record<string, unknown>, CHANGE_KEYS);
    if (Object.keys(changes).length === 0) return present(tx, before);
    const row = await repo.updateCategory(tx, portal.account_id, before.id, next);
    if (next.locale !== current.locale) await repo.relocaleArticles(tx, portal.account_id, row.id, next.locale);
    const category = await present(tx, row);
    await writeEvent(tx, ctx, { type: 'category.updated', accountId: portal.account_id, data: category, changes });
    return category;
  });
}

/** The category's articles stay, without a category (Chatwoot nullifies them). */
export async function deleteCategory(pool: Pool, ctx: RequestContext, portal: PortalRow, id: number): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const row = await requireCategory(tx, portal, id, { forUpdate: true });
    const category = await present(tx, row);
    await repo.deleteCategory(tx, portal.account_id, row.id);
    await writeEvent(tx, ctx, { type: 'category.deleted', accountId: portal.account_id, data: category });
  });
}
