import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { accountIdOf, idParam, NotFoundError, parseBody, parseQuery, requireAccount, requireRole, unwrap, imageFromRequest, multipartImage } from '@parley/shared';
import type { AppDeps } from '../deps';
import { findBySource, listForContacts } from '../contact-inboxes/repository';
import { listAccountInboxes, listMemberInboxes } from '../inboxes/repository';
import { filterBodySchema } from './filter';
import { filterContacts, listContacts, renderContact, searchContacts } from './queries';
import { findContact } from './repository';
import {
  contactInboxBodySchema,
  contactInboxFilterSchema,
  createContactSchema,
  destroyCustomAttributesSchema,
  labelsBodySchema,
  listQuerySchema,
  pageQuerySchema,
  parseSort,
  searchQuerySchema,
  updateContactSchema,
} from './schemas';
import { inboxSlim, inboxView } from './serializers';
import { addContactInbox, createContact, destroyCustomAttributes, removeAvatar, removeContact, replaceLabels, updateContactFields } from './service';

/** Mounted at `/api/v1/accounts/:account_id/contacts`: any member except DELETE (administrators). */
export function contactsRouter(deps: AppDeps): Router {
  const r = Router({ mergeParams: true });
  r.use(requireAccount, requireRole('administrator', 'agent'));
  const upload = multipartImage({ maxBytes: deps.config.AVATAR_MAX_BYTES, fileFields: ['avatar'] });

  r.get('/', async (req, res) => {
    const q = parseQuery(listQuerySchema, req.query);
    const sort = parseSort(q.sort);
    res.json(await listContacts(deps, req.ctx, accountIdOf(req), { sort, page: q.page ?? 1, labels: q.labels ?? [], withInboxes: q.include_contact_inboxes !== 'false' }));
  });

  r.get('/search', async (req, res) => {
    const q = parseQuery(searchQuerySchema, req.query);
    const sort = parseSort(q.sort);
    res.json(await searchContacts(deps, req.ctx, accountIdOf(req), { q: q.q, sort, page: q.page ?? 1, labels: q.labels ?? [], withInboxes: q.include_contact_inboxes !== 'false' }));
  });

  r.post('/filter', async (req, res) => {
    const q = parseQuery(pageQuerySchema, req.query);
    const body = parseBody(filterBodySchema, req.body);
    const sort = parseSort(q.sort);
    res.json(await filterContacts(deps, req.ctx, accountIdOf(req), body.payload, { sort, page: q.page ?? body.page ?? 1, withInboxes: true }));
  });

  r.post('/', upload, async (req, res) => {
    const input = parseBody(createContactSchema, unwrap(req.body, 'contact', { siblings: true }));
    const avatar = imageFromRequest(req, 'avatar');
    const created = await createContact(deps, req.ctx, accountIdOf(req), input, avatar);
    res.json({
      payload: {
        contact: await renderContact(deps, req.ctx, created.contact),
        contact_inbox: { inbox: created.inbox ? inboxView(created.inbox) : null, source_id: created.contactInbox?.source_id ?? null },
      },
    });
  });

  r.get('/:id', async (req, res) => {
    const contact = await findContact(deps.pool, accountIdOf(req), idParam(req, 'id', 'Contact'));
    if (!contact) throw new NotFoundError('Contact', 'id');
    res.json({ payload: await renderContact(deps, req.ctx, contact) });
  });

  const update = [
    upload,
    async (req: Request, res: Response) => {
      const id = idParam(req, 'id', 'Contact');
      const input = parseBody(updateContactSchema, unwrap(req.body, 'contact', { siblings: true }));
      const avatar = imageFromRequest(req, 'avatar');
      const contact = await updateContactFields(deps, req.ctx, accountIdOf(req), id, input, avatar);
      res.json({ payload: await renderContact(deps, req.ctx, contact) });
    },
  ];
  r.patch('/:id', ...update);
  r.put('/:id', ...update);

  // SPEC 13. The role is checked before the contact is looked up (as Chatwoot), so an agent
  // learns nothing about which ids exist.
  r.delete('/:id', requireRole('administrator'), async (req, res) => {
    await removeContact(deps, req.ctx, accountIdOf(req), idParam(req, 'id', 'Contact'));
    res.json({});
  });

  r.get('/:id/labels', async (req, res) => {
    const contact = await findContact(deps.pool, accountIdOf(req), idParam(req, 'id', 'Contact'));
    if (!contact) throw new NotFoundError('Contact', 'id');
    res.json({ payload: contact.labels });
  });

  r.post('/:id/labels', async (req, res) => {
    const id = idParam(req, 'id', 'Contact');
    const { labels } = parseBody(labelsBodySchema, req.body);
    const contact = await replaceLabels(deps, req.ctx, accountIdOf(req), id, labels);
    res.json({ payload: contact.labels });
  });

  r.get('/:id/contactable_inboxes', async (req, res) => {
    const accountId = accountIdOf(req);
    const contact = await findContact(deps.pool, accountId, idParam(req, 'id', 'Contact'));
    if (!contact) throw new NotFoundError('Contact', 'id');
    // Chatwoot's `assigned_inboxes`: every inbox for administrators, member inboxes for agents.
    const inboxes =
      req.ctx.role === 'administrator' ? await listAccountInboxes(deps.pool, accountId) : await listMemberInboxes(deps.pool, accountId, Number(req.ctx.actor.id));
    const latest = new Map<number, string>();
    for (const ci of await listForContacts(deps.pool, accountId, [contact.id])) latest.set(ci.inbox_id, ci.source_id);
    // API inboxes reach any contact: the newest source id there, or a fresh one to start with.
    const payload = inboxes.filter((i) => i.channel_type === 'Channel::Api').map((i) => ({ source_id: latest.get(i.id) ?? randomUUID(), inbox: inboxView(i) }));
    res.json({ payload });
  });

  r.post('/:id/contact_inboxes', async (req, res) => {
    const id = idParam(req, 'id', 'Contact');
    const input = parseBody(contactInboxBodySchema, req.body);
    const { contactInbox, inbox } = await addContactInbox(deps, req.ctx, accountIdOf(req), id, input);
    res.json({ source_id: contactInbox.source_id, hmac_verified: contactInbox.hmac_verified, inbox: inboxSlim(inbox) });
  });

  r.delete('/:id/avatar', async (req, res) => {
    const contact = await removeAvatar(deps, req.ctx, accountIdOf(req), idParam(req, 'id', 'Contact'));
    res.json({ payload: await renderContact(deps, req.ctx, contact) });
  });

  r.post('/:id/destroy_custom_attributes', async (req, res) => {
    const id = idParam(req, 'id', 'Contact');
    const { custom_attributes } = parseBody(destroyCustomAttributesSchema, req.body);
    const contact = await destroyCustomAttributes(deps, req.ctx, accountIdOf(req), id, custom_attributes);
    res.json({ payload: await renderContact(deps, req.ctx, contact) });
  });

  return r;
}

/** Mounted at `/api/v1/accounts/:account_id/contact_inboxes`. */
export function contactInboxesRouter(deps: AppDeps): Router {
  const r = Router({ mergeParams: true });
  r.use(requireAccount, requireRole('administrator', 'agent'));

  // Chatwoot's ContactInboxesController#filter: the contact behind a source id in an inbox.
  r.post('/filter', async (req, res) => {
    const accountId = accountIdOf(req);
    const input = parseBody(contactInboxFilterSchema, req.body);
    const ci = await findBySource(deps.pool, accountId, input.inbox_id, input.source_id);
    const contact = ci ? await findContact(deps.pool, accountId, ci.contact_id) : null;
    if (!contact) throw new NotFoundError('Contact inbox', 'source_id');
    res.json({ payload: await renderContact(deps, req.ctx, contact) });
  });

  return r;
}
