import { z } from 'zod';
import { idInput, LIMITS, localeSchema, optionalText, pageQuery, positionInput, requiredText, slugSchema } from '../common/validation';

export const STATUS_NAMES = ['draft', 'published', 'archived'] as const;
export type StatusName = (typeof STATUS_NAMES)[number];
export const STATUS = { draft: 0, published: 1, archived: 2 } as const;

export function statusName(n: number): StatusName {
  return STATUS_NAMES[n] ?? 'draft';
}

const statusMessage = 'must be one of draft, published, archived (or 0, 1, 2)';

/** SPEC: 0/1/2; Chatwoot also takes the names. `"1"` (a 500 in Chatwoot) is accepted too. */
export const statusInput = z
  .union([z.number(), z.string()], { error: statusMessage })
  .transform((v, ctx) => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2) return v;
    if (typeof v === 'string') {
      const s = v.trim().toLowerCase();
      if ((STATUS_NAMES as readonly string[]).includes(s)) return STATUS[s as StatusName];
      if (/^[0-2]$/.test(s)) return Number(s);
    }
    ctx.addIssue({ code: 'custom', message: statusMessage });
    return z.NEVER;
  });

/** Chatwoot permits `meta: {title, description, tags: []}` (search-engine metadata). */
export const metaInput = z.object({
  title: optionalText(LIMITS.metaTitle).optional(),
  description: optionalText(LIMITS.metaDescription).optional(),
  tags: z
    .array(z.string().trim().min(1, 'must not be blank').max(LIMITS.metaTag, `is too long (maximum is ${LIMITS.metaTag} characters)`))
    .max(LIMITS.metaTags, `has too many tags (maximum is ${LIMITS.metaTags})`)
    .optional(),
});
export type MetaInput = z.infer<typeof metaInput>;

const content = z
  .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
  .refine((s) => s.trim().length > 0, 'must not be blank')
  .refine((s) => s.length <= LIMITS.content, `is too long (maximum is ${LIMITS.content} characters)`);

const fields = {
  title: requiredText(LIMITS.title),
  content,
  author_id: idInput(),
  slug: slugSchema.optional(),
  position: positionInput().nullable().optional(),
  description: optionalText(LIMITS.description).optional(),
  category_id: idInput().nullable().optional(),
  associated_article_id: idInput().nullable().optional(),
  status: statusInput.optional(),
  locale: localeSchema.optional(),
  meta: metaInput.nullable().optional(),
};

export const createArticleBody = z.object(fields);
export const updateArticleBody = z.object({
  ...fields,
  title: fields.title.optional(),
  content: fields.content.optional(),
  author_id: fields.author_id.optional(),
});
export type CreateArticleInput = z.infer<typeof createArticleBody>;
export type UpdateArticleInput = z.infer<typeof updateArticleBody>;

const statusFilter = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const v = s.toLowerCase();
    if ((STATUS_NAMES as readonly string[]).includes(v)) return STATUS[v as StatusName];
    if (/^[0-2]$/.test(v)) return Number(v);
    ctx.addIssue({ code: 'custom', message: statusMessage });
    return z.NEVER;
  });

const queryId = z.string().regex(/^[0-9]{1,10}$/, 'must be a positive integer id').transform(Number);

export const listArticlesQuery = z.object({
  status: statusFilter.optional(),
  category_slug: slugSchema.optional(),
  category_id: queryId.optional(),
  author_id: queryId.optional(),
  locale: localeSchema.optional(),
  query: z.string().max(500, 'is too long (maximum is 500 characters)').optional(),
  page: pageQuery,
});
export type ListArticlesQuery = z.infer<typeof listArticlesQuery>;

export const reorderBody = z.object({
  positions_hash: z.record(z.string().regex(/^[0-9]{1,10}$/, 'keys must be article ids'), positionInput(), {
    error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object of {article_id: position}'),
  }),
});

export const publicListQuery = z.object({
  query: z.string().max(500, 'is too long (maximum is 500 characters)').optional(),
  locale: localeSchema.optional(),
  category_slug: slugSchema.optional(),
  sort: z.enum(['position', 'views']).optional(),
  page: pageQuery,
});
export type PublicListQuery = z.infer<typeof publicListQuery>;
