import type { RequestContext } from '@parley/shared';
import type { AppDeps } from '../deps';
import { listForContacts, type ContactInboxRow } from '../contact-inboxes/repository';
import { applyFilter, type FilterCondition } from './filter';
import { countContacts, queryContacts, RESOLVED, SqlWhere, type ContactRow } from './repository';
import { PAGE_SIZE, type SortSpec } from './schemas';
import { contactInboxEntries, contactView, type ContactView } from './serializers';

/** Contacts as the account API shows them, each with its contact_inboxes and their inbox summaries. */
export async function renderContacts(deps: AppDeps, ctx: RequestContext, accountId: number, rows: ContactRow[], withInboxes = true): Promise<ContactView[]> {
  const base = deps.config.PUBLIC_BASE_URL;
  if (!withInboxes) return rows.map((c) => contactView(c, base));
  const cis = await listForContacts(deps.pool, accountId, rows.map((c) => c.id));
  const inboxes = await deps.inboxes.many(accountId, cis.map((ci) => ci.inbox_id), ctx);
  const byContact = new Map<number, ContactInboxRow[]>();
  for (const ci of cis) byContact.set(ci.contact_id, [...(byContact.get(ci.contact_id) ?? []), ci]);
  return rows.map((c) => contactView(c, base, contactInboxEntries(byContact.get(c.id) ?? [], inboxes)));
}

export async function renderContact(deps: AppDeps, ctx: RequestContext, contact: ContactRow): Promise<ContactView> {
  const [view] = await renderContacts(deps, ctx, contact.account_id, [contact]);
  return view as ContactView;
}

export interface ContactPage {
  /** SPEC: `current_page` is a string. */
  meta: { count: number; current_page: string };
  payload: ContactView[];
}

export interface PageQuery {
  sort: SortSpec[];
  page: number;
  withInboxes: boolean;
}

async function page(deps: AppDeps, ctx: RequestContext, accountId: number, where: SqlWhere, q: PageQuery): Promise<ContactPage> {
  const count = await countContacts(deps.pool, where);
  const offset = (q.page - 1) * PAGE_SIZE;
  // Past the last page there is nothing to read; skip the OFFSET scan.
  const rows = offset < count ? await queryContacts(deps.pool, where, q.sort, PAGE_SIZE, offset) : [];
  return { meta: { count, current_page: String(q.page) }, payload: await renderContacts(deps, ctx, accountId, rows, q.withInboxes) };
}

/** SPEC 9: resolved contacts only (identifier, email or phone set), optionally those with any of `labels`. */
export function listContacts(deps: AppDeps, ctx: RequestContext, accountId: number, q: PageQuery & { labels: string[] }): Promise<ContactPage> {
  const where = new SqlWhere(accountId).and(RESOLVED);
  if (q.labels.length > 0) where.and(`labels && ${where.p(q.labels)}::text[]`);
  return page(deps, ctx, accountId, where, q);
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * `q` anywhere in name, email, phone number or identifier, over every contact (as Chatwoot's
 * search); its meta adds `has_more` (a further page exists).
 */
export async function searchContacts(
  deps: AppDeps,
  ctx: RequestContext,
  accountId: number,
  q: PageQuery & { q: string; labels: string[] },
): Promise<ContactPage & { meta: ContactPage['meta'] & { has_more: boolean } }> {
  const where = new SqlWhere(accountId);
  const p = where.p(`%${escapeLike(q.q)}%`);
  where.and(`name ILIKE ${p} OR email ILIKE ${p} OR phone_number ILIKE ${p} OR identifier ILIKE ${p}`);
  if (q.labels.length > 0) where.and(`labels && ${where.p(q.labels)}::text[]`);
  const found = await page(deps, ctx, accountId, where, q);
  return { ...found, meta: { ...found.meta, has_more: q.page * PAGE_SIZE < found.meta.count } };
}

export function filterContacts(deps: AppDeps, ctx: RequestContext, accountId: number, conditions: FilterCondition[], q: PageQuery): Promise<ContactPage> {
  const where = new SqlWhere(accountId);
  applyFilter(where, conditions);
  return page(deps, ctx, accountId, where, q);
}
