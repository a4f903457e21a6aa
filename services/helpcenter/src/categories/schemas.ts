import { z } from 'zod';
import { LIMITS, localeSchema, optionalText, pageQuery, positionInput, requiredText, slugSchema } from '../common/validation';

const fields = {
  name: requiredText(LIMITS.name),
  slug: slugSchema.optional(),
  locale: localeSchema.optional(),
  description: optionalText(LIMITS.description).optional(),
  position: positionInput().nullable().optional(),
};

export const createCategoryBody = z.object(fields);
export const updateCategoryBody = z.object({ ...fields, name: fields.name.optional() });
export type CreateCategoryInput = z.infer<typeof createCategoryBody>;
export type UpdateCategoryInput = z.infer<typeof updateCategoryBody>;

export const listCategoriesQuery = z.object({ locale: localeSchema.optional(), page: pageQuery });

// ---- answers ----

const count = z.number().int().min(0);

/** Chatwoot's category partial plus `portal_id`; `meta.articles_count` counts every status. */
export const categoryResponse = z
  .object({
    id: z.number().int(),
    account_id: z.number().int(),
    portal_id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    locale: z.string(),
    description: z.string().nullable(),
    position: z.number().int().nullable(),
    meta: z.object({ articles_count: count }),
    created_at: z.number().int().describe('Unix seconds'),
    updated_at: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'Category' });
export type CategoryJson = z.infer<typeof categoryResponse>;

export const categoryShowResponse = z.object({ payload: categoryResponse });
export const categoryListResponse = z.object({
  payload: z.array(categoryResponse),
  meta: z.object({ current_page: z.number().int(), categories_count: count }),
});

/** A category as anonymous readers see it (no account or timestamps): `meta.articles_count` counts published articles. */
export const publicCategoryResponse = categoryResponse.omit({ account_id: true, created_at: true, updated_at: true }).meta({ id: 'PublicCategory' });
export type PublicCategoryJson = z.infer<typeof publicCategoryResponse>;

export const publicCategoryListResponse = z.object({
  payload: z.array(publicCategoryResponse),
  meta: z.object({ current_page: z.number().int(), categories_count: count }),
});

/** The `category` object inside an article answer: always there, all null without a category. */
export const categorySummaryResponse = z.object({
  id: z.number().int().nullable(),
  name: z.string().nullable(),
  slug: z.string().nullable(),
  locale: z.string().nullable(),
});
export type CategorySummaryJson = z.infer<typeof categorySummaryResponse>;

