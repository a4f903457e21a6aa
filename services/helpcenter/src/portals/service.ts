import { diff, NotFoundError, ValidationError, withTransaction, writeEvent, type Executor, type Pool, type RequestContext } from '@parley/shared';
import { presentPortal, type Portal, type PortalStats } from './present';
import * as repo from './repository';
import type { PortalConfig, PortalFields, PortalRow } from './repository';
import type { CreatePortalInput, PortalConfigInput, UpdatePortalInput } from './schemas';

/** The user id of the caller, for `mine` counts. */
export function callerUserId(ctx: RequestContext): number | null {
  return ctx.actor.type === 'user' && typeof ctx.actor.id === 'number' ? ctx.actor.id : null;
}

/**
 * Chatwoot merges the given config over the stored one; allowed locales default to the
 * default locale (or `en`), the default locale to the first allowed one. We also insist that
 * the default is one of the allowed locales, since articles fall back to it.
 */
export function normaliseConfig(stored: Partial<PortalConfig>, given: PortalConfigInput | undefined): PortalConfig {
  const merged = { ...stored, ...(given ?? {}) };
  const allowed = [...new Set((merged.allowed_locales ?? []).filter(Boolean))];
  const explicitDefault = given?.default_locale;
  let def = merged.default_locale;
  if (allowed.length === 0) allowed.push(def ?? 'en');
  if (!def || (!explicitDefault && !allowed.includes(def))) def = allowed[0] as string;
  if (!allowed.includes(def)) {
    throw ValidationError.field('config.default_locale', 'must be one of config.allowed_locales');
  }
  return { allowed_locales: allowed, default_locale: def };
}

/**
 * Categories and articles live in one of the portal's allowed locales (Chatwoot's
 * category validation); anything else would be invisible in the portal's locale lists.
 */
export function assertAllowedLocale(portal: PortalRow, locale: string, field = 'locale'): void {
  if (!portal.config.allowed_locales.includes(locale)) {
    throw ValidationError.field(field, `is not one of the portal's allowed locales (${portal.config.allowed_locales.join(', ')})`, 'inclusion');
  }
}

export async function loadPortalStats(db: Executor, accountId: number, rows: PortalRow[], userId: number | null, locale: string | null = null): Promise<Map<number, PortalStats>> {
  const ids = rows.map((r) => r.id);
  // One after the other: `db` may be a transaction's client, which runs one query at a time.
  const articles = await repo.articleCountsByPortal(db, accountId, ids, userId, locale);
  const locales = await repo.localeCountsByPortal(db, ids, false);
  const out = new Map<number, PortalStats>();
  for (const id of ids) {
    out.set(id, { articles: articles.get(id) ?? { all: 0, draft: 0, published: 0, archived: 0, mine: 0 }, locales: locales.get(id) ?? new Map() });
  }
  return out;
}

export async function presentWithStats(db: Executor, accountId: number, row: PortalRow, userId: number | null, locale: string | null = null): Promise<Portal> {
  const stats = await loadPortalStats(db, accountId, [row], userId, locale);
  return presentPortal(row, stats.get(row.id));
}

export async function requirePortal(db: Executor, accountId: number, slug: string, opts: { forUpdate?: boolean } = {}): Promise<PortalRow> {
  const row = await repo.findPortalBySlug(db, accountId, slug, opts);
  if (!row) throw new NotFoundError('Portal', 'portal_slug');
  return row;
}

function fieldsOf(row: PortalRow): PortalFields {
  const { name, slug, custom_domain, color, header_text, homepage_link, page_title, config, archived } = row;
  return { name, slug, custom_domain, color, header_text, homepage_link, page_title, config, archived };
}

const CHANGE_KEYS: Array<keyof PortalFields> = ['name', 'slug', 'custom_domain', 'color', 'header_text', 'homepage_link', 'page_title', 'config', 'archived'];

export async function listPortals(pool: Pool, ctx: RequestContext, accountId: number): Promise<Portal[]> {
  const rows = await repo.listPortals(pool, accountId);
  const stats = await loadPortalStats(pool, accountId, rows, callerUserId(ctx));
  return rows.map((r) => presentPortal(r, stats.get(r.id)));
}

export async function createPortal(pool: Pool, ctx: RequestContext, accountId: number, input: CreatePortalInput): Promise<Portal> {
  const fields: PortalFields = {
    name: input.name,
    slug: input.slug,
    custom_domain: input.custom_domain ?? null,
    color: input.color ?? null,
    header_text: input.header_text ?? null,
    homepage_link: input.homepage_link ?? null,
    page_title: input.page_title ?? null,
    config: normaliseConfig({}, input.config),
    archived: input.archived ?? false,
  };
  return withTransaction(pool, async (tx) => {
    const row = await repo.insertPortal(tx, accountId, fields);
    const portal = presentPortal(row);
    await writeEvent(tx, ctx, { type: 'portal.created', accountId, data: portal });
    return portal;
  });
}

export async function updatePortal(pool: Pool, ctx: RequestContext, accountId: number, slug: string, input: UpdatePortalInput): Promise<Portal> {
  return withTransaction(pool, async (tx) => {
    const before = await requirePortal(tx, accountId, slug, { forUpdate: true });
    const current = fieldsOf(before);
    const next: PortalFields = {
      name: input.name ?? current.name,
      slug: input.slug ?? current.slug,
      custom_domain: input.custom_domain === undefined ? current.custom_domain : input.custom_domain,
      color: input.color === undefined ? current.color : input.color,
      header_text: input.header_text === undefined ? current.header_text : input.header_text,
      homepage_link: input.homepage_link === undefined ? current.homepage_link : input.homepage_link,
      page_title: input.page_title === undefined ? current.page_title : input.page_title,
      config: input.config === undefined ? current.config : normaliseConfig(current.config, input.config),
      archived: input.archived ?? current.archived,
    };
    const changes = diff(current as unknown as Record<string, unknown>, next as unknown as Record<string, unknown>, CHANGE_KEYS);
    if (Object.keys(changes).length === 0) return presentWithStats(tx, accountId, before, callerUserId(ctx));
    const row = await repo.updatePortal(tx, accountId, before.id, next);
    const portal = await presentWithStats(tx, accountId, row, callerUserId(ctx));
    await writeEvent(tx, ctx, { type: 'portal.updated', accountId, data: portal, changes });
    return portal;
  });
}

/** Deleting a portal takes its categories and articles with it (one `portal.deleted` event). */
export async function deletePortal(pool: Pool, ctx: RequestContext, accountId: number, slug: string): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const row = await requirePortal(tx, accountId, slug, { forUpdate: true });
    const portal = await presentWithStats(tx, accountId, row, callerUserId(ctx));
    await repo.deletePortal(tx, accountId, row.id);
    await writeEvent(tx, ctx, { type: 'portal.deleted', accountId, data: portal });
  });
}
