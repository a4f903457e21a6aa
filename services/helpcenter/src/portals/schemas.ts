import { z } from 'zod';
import { LIMITS, localeSchema, optionalHttpUrl, optionalText, requiredText, slugSchema } from '../common/validation';

const HOST_RE = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** A bare host name; a full URL is reduced to its host, as Chatwoot does. */
const customDomain = z
  .string()
  .trim()
  .max(LIMITS.name)
  .nullable()
  .transform((v, ctx) => {
    if (v === null || v === '') return null;
    let host = v.toLowerCase();
    if (/^https?:\/\//.test(host)) {
      try {
        host = new URL(host).hostname;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not a valid domain' });
        return z.NEVER;
      }
    }
    host = host.replace(/\.$/, '');
    if (!HOST_RE.test(host)) {
      ctx.addIssue({ code: 'custom', message: 'is not a valid domain (e.g. help.example.com)' });
      return z.NEVER;
    }
    return host;
  });

const color = z
  .string()
  .trim()
  .nullable()
  .refine((v) => v === null || v === '' || /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v), 'must be a hex colour such as #1f93ff')
  .transform((v) => (v === null || v === '' ? null : v));

/** Chatwoot accepts only these config keys; anything else is refused rather than stored. */
const configInput = z
  .object({
    allowed_locales: z.array(localeSchema).max(LIMITS.locales).optional(),
    default_locale: localeSchema.optional(),
  })
  .strict();

const fields = {
  name: requiredText(LIMITS.name),
  slug: slugSchema,
  custom_domain: customDomain.optional(),
  color: color.optional(),
  header_text: optionalText(LIMITS.headerText).optional(),
  homepage_link: optionalHttpUrl.optional(),
  page_title: optionalText(LIMITS.title).optional(),
  config: configInput.optional(),
  archived: z.boolean().optional(),
};

export const createPortalBody = z.object(fields);
export const updatePortalBody = z.object({ ...fields, name: fields.name.optional(), slug: fields.slug.optional() });

export type CreatePortalInput = z.infer<typeof createPortalBody>;
export type UpdatePortalInput = z.infer<typeof updatePortalBody>;
export type PortalConfigInput = z.infer<typeof configInput>;

export const showPortalQuery = z.object({ locale: localeSchema.optional() });

// ---- answers ----

const count = z.number().int().min(0);

/** `config.allowed_locales` as Chatwoot's portal partial writes it: a locale with its counts. */
export const localeStatsResponse = z.object({ code: z.string(), articles_count: count, categories_count: count });

/** Chatwoot's portal partial (our portal record). Counts in `meta` are over every status. */
export const portalResponse = z
  .object({
    id: z.number().int(),
    account_id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    color: z.string().describe('Hex colour; #1f93ff when none was set'),
    custom_domain: z.string().nullable(),
    header_text: z.string().nullable(),
    homepage_link: z.string().nullable(),
    page_title: z.string().nullable(),
    archived: z.boolean(),
    config: z.object({ allowed_locales: z.array(localeStatsResponse), default_locale: z.string() }),
    meta: z.object({
      all_articles_count: count,
      archived_articles_count: count,
      published_count: count,
      draft_articles_count: count,
      mine_articles_count: count.describe("Articles written by the caller"),
      categories_count: count,
      default_locale: z.string(),
    }),
    created_at: z.number().int().describe('Unix seconds'),
    updated_at: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'Portal' });
export type PortalJson = z.infer<typeof portalResponse>;

export const portalListResponse = z.object({
  payload: z.array(portalResponse),
  meta: z.object({ current_page: z.number().int(), portals_count: count }),
});

/** A portal as anonymous readers see it: counts of published articles only, no account id. */
export const publicPortalResponse = z
  .object({
    id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    color: z.string(),
    custom_domain: z.string().nullable(),
    header_text: z.string().nullable(),
    homepage_link: z.string().nullable(),
    page_title: z.string().nullable(),
    config: z.object({ allowed_locales: z.array(localeStatsResponse), default_locale: z.string() }),
  })
  .meta({ id: 'PublicPortal' });
export type PublicPortalJson = z.infer<typeof publicPortalResponse>;

export const emptyResponse = z.object({}).strict().describe('An empty JSON object');
