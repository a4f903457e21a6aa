import { z } from 'zod';
import { categorySummaryResponse } from '../categories/schemas';
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

/**
 * A reference to another record that may be "none": null, or 0, which is how the Article
 * record answers "none" for the ids SPEC types as numbers (so a record sent back as read
 * round-trips).
 */
function optionalRef() {
  return z.union([z.literal(0).transform(() => null), idInput()]).nullable().optional();
}

const fields = {
  title: requiredText(LIMITS.title),
  content,
  author_id: idInput(),
  slug: slugSchema.optional(),
  /** Absent (or null) appends the article at the end of its category. */
  position: positionInput().nullable().optional(),
  description: optionalText(LIMITS.description).optional(),
  category_id: optionalRef(),
  associated_article_id: optionalRef(),
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
  status: statusFilter.optional().describe('draft, published, archived (or 0, 1, 2)'),
  category_slug: slugSchema.optional().describe('Only articles of the category with this slug, by position'),
  category_id: queryId.optional().describe('Only articles of this category, by position'),
  author_id: queryId.optional().describe('Only articles by this agent'),
  locale: localeSchema.optional(),
  query: z.string().max(500, 'is too long (maximum is 500 characters)').optional().describe('Full-text search: every word must match, as a prefix'),
  page: pageQuery.describe('Page number, 25 a page; default 1'),
});
export type ListArticlesQuery = z.infer<typeof listArticlesQuery>;

export const reorderBody = z.object({
  positions_hash: z.record(z.string().regex(/^[0-9]{1,10}$/, 'keys must be article ids'), positionInput(), {
    error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object of {article_id: position}'),
  }),
});

export const publicListQuery = z.object({
  query: z.string().max(500, 'is too long (maximum is 500 characters)').optional().describe('Full-text search over title, description and content: every word must match, as a prefix; best match first'),
  locale: localeSchema.optional(),
  category_slug: slugSchema.optional().describe('Only articles of the category with this slug'),
  sort: z.enum(['position', 'views']).optional().describe('position (default) or views (most read first)'),
  page: pageQuery.describe('Page number, 25 a page; default 1'),
});
export type PublicListQuery = z.infer<typeof publicListQuery>;

// ---- answers ----

const count = z.number().int().min(0);
const statusNameResponse = z.enum(STATUS_NAMES);

export const articleMetaResponse = z.object({
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
});

/** Chatwoot's agent partial, as the identity service answered when the author was checked. */
export const authorResponse = z.object({
  id: z.number().int(),
  account_id: z.number().int().nullable(),
  name: z.string().nullable(),
  available_name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.string().nullable(),
  availability_status: z.string().nullable(),
  auto_offline: z.boolean().nullable(),
  confirmed: z.boolean().nullable(),
  provider: z.string().nullable(),
  thumbnail: z.string().nullable(),
  custom_role_id: z.number().int().nullable(),
});
export type AuthorJson = z.infer<typeof authorResponse>;

export const associatedArticleResponse = z.object({
  id: z.number().int(),
  title: z.string(),
  slug: z.string(),
  status: statusNameResponse,
  locale: z.string(),
  category_id: z.number().int().nullable(),
  updated_at: z.number().int(),
});

/**
 * SPEC's Article record (status by name; the ids SPEC types as numbers are numbers, 0 for
 * none), plus what Chatwoot's article partial adds (description, locale, `category{}`,
 * `author{}`, `associated_articles`, timestamps).
 */
export const articleResponse = z
  .object({
    id: z.number().int(),
    title: z.string(),
    slug: z.string(),
    content: z.string(),
    description: z.string().nullable(),
    status: statusNameResponse,
    position: z.number().int().describe('Position in its category (appended when not given)'),
    views: count,
    locale: z.string(),
    meta: articleMetaResponse,
    portal_id: z.number().int(),
    account_id: z.number().int(),
    author_id: z.number().int(),
    category_id: z.number().int().min(0).describe('0 when the article has no category'),
    folder_id: z.literal(0).describe('Chatwoot folders are not used; always 0'),
    associated_article_id: z.number().int().min(0).describe('The root article this one is linked to; 0 when none'),
    category: categorySummaryResponse,
    author: authorResponse.nullable(),
    associated_articles: z.array(associatedArticleResponse),
    created_at: z.number().int().describe('Unix seconds'),
    updated_at: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'Article' });
export type ArticleJson = z.infer<typeof articleResponse>;

export const articleListResponse = z.object({
  payload: z.array(articleResponse),
  meta: z.object({
    all_articles_count: count.describe('Every article of the portal'),
    articles_count: count.describe('Articles matching the filters other than status and author'),
    archived_articles_count: count,
    draft_articles_count: count,
    published_count: count,
    mine_articles_count: count.describe('Of those, written by the caller'),
    current_page: z.number().int(),
  }),
});

/** An author as anonymous readers see it: a name and a picture, no email or role. */
export const publicAuthorResponse = z.object({ name: z.string().nullable(), available_name: z.string().nullable(), thumbnail: z.string() });

/**
 * A published article as anonymous readers see it: the record's reader-facing fields, with
 * the author reduced to a name and a picture and no account, author or internal ids.
 */
export const publicArticleResponse = articleResponse
  .pick({ id: true, title: true, slug: true, content: true, description: true, position: true, views: true, locale: true, meta: true, portal_id: true, category: true, updated_at: true })
  .extend({
    status: z.literal('published'),
    category_id: z.number().int().nullable(),
    author: publicAuthorResponse.nullable(),
    associated_articles: z.array(associatedArticleResponse.pick({ id: true, title: true, slug: true, locale: true })),
  })
  .meta({ id: 'PublicArticle' });
export type PublicArticleJson = z.infer<typeof publicArticleResponse>;

export const publicArticleListResponse = z.object({
  payload: z.array(publicArticleResponse),
  meta: z.object({ articles_count: count, current_page: z.number().int() }),
});

