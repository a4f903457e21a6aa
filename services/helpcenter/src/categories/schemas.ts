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
