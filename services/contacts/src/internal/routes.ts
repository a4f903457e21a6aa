import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { idParam, NotFoundError, parseBody, pubsubContactRequest, UnauthorizedError, ValidationError, withTransaction } from '@parley/shared';
import type { AppDeps } from '../deps';
import { findByPubsubToken, findBySource, findBySourceAnyAccount, findContactInbox } from '../contact-inboxes/repository';
import { ensureContactInbox } from '../contact-inboxes/service';
import { findContact } from '../contacts/repository';
import { booleanish, idField, sourceIdField } from '../contacts/schemas';
import { contactInboxDto, contactSnapshot } from '../contacts/serializers';
import { inboxForField } from '../contacts/service';

export const resolveBodySchema = z.object({
  inbox_id: idField,
  contact_id: idField.optional(),
  source_id: sourceIdField.optional(),
  hmac_verified: booleanish.optional(),
});

/** Peers only: the gateway never routes `/internal`, and a client's signed context is not a service's. */
const servicesOnly: RequestHandler = (req, _res, next) => {
  if (req.ctx.actor.type !== 'service') return next(new UnauthorizedError('Internal API is for services only'));
  next();
};

/** docs/contracts.md, "contacts": strongly consistent lookups for the conversations service. */
export function internalRouter(deps: AppDeps): Router {
  const r = Router();
  r.use(servicesOnly);
  const base = deps.config.PUBLIC_BASE_URL;

  r.get('/accounts/:account_id/contacts/:id', async (req, res) => {
    const contact = await findContact(deps.pool, idParam(req, 'account_id', 'Account'), idParam(req, 'id', 'Contact'));
    if (!contact) throw new NotFoundError('Contact', 'id');
    res.json(contactSnapshot(contact, base));
  });

  r.post('/accounts/:account_id/contact_inboxes/resolve', async (req, res) => {
    const accountId = idParam(req, 'account_id', 'Account');
    const input = parseBody(resolveBodySchema, req.body);
    if (input.contact_id === undefined) {
      // Lookup only: the pair with that source id, never a new one.
      if (input.source_id === undefined) throw ValidationError.field('source_id', 'is required without contact_id', 'required');
      const ci = await findBySource(deps.pool, accountId, input.inbox_id, input.source_id);
      const contact = ci ? await findContact(deps.pool, accountId, ci.contact_id) : null;
      if (!ci || !contact) throw new NotFoundError('Contact inbox', 'source_id');
      res.json({ contact_inbox: contactInboxDto(ci), contact: contactSnapshot(contact, base) });
      return;
    }
    const inbox = await inboxForField(deps, req.ctx, accountId, input.inbox_id);
    const contactId = input.contact_id;
    const out = await withTransaction(deps.pool, async (tx) => {
      // The lock serialises resolves for one contact, so a pair is created once.
      const contact = await findContact(tx, accountId, contactId, { forUpdate: true });
      if (!contact) throw new NotFoundError('Contact', 'contact_id');
      const { contactInbox } = await ensureContactInbox(tx, { ...req.ctx, accountId }, { contact, inboxId: inbox.id, sourceId: input.source_id, hmacVerified: input.hmac_verified });
      return { contact_inbox: contactInboxDto(contactInbox), contact: contactSnapshot(contact, base) };
    });
    res.json(out);
  });

  r.get('/accounts/:account_id/contact_inboxes/:id', async (req, res) => {
    const accountId = idParam(req, 'account_id', 'Account');
    const ci = await findContactInbox(deps.pool, accountId, idParam(req, 'id', 'Contact inbox'));
    const contact = ci ? await findContact(deps.pool, accountId, ci.contact_id) : null;
    if (!ci || !contact) throw new NotFoundError('Contact inbox', 'id');
    res.json({ contact_inbox: contactInboxDto(ci), contact: contactSnapshot(contact, base) });
  });

  r.get('/inboxes/:inbox_id/contact_inboxes/:source_id', async (req, res) => {
    const inboxId = idParam(req, 'inbox_id', 'Inbox');
    const sourceId = String(req.params['source_id'] ?? '');
    const ci = await findBySourceAnyAccount(deps.pool, inboxId, sourceId);
    const contact = ci ? await findContact(deps.pool, ci.account_id, ci.contact_id) : null;
    if (!ci || !contact) throw new NotFoundError('Contact inbox', 'source_id');
    res.json({ contact_inbox: contactInboxDto(ci), contact: contactSnapshot(contact, base) });
  });

  // The realtime service's RoomChannel check for a contact (the token in a body, out of access logs).
  r.post('/pubsub/contact_inboxes/resolve', async (req, res) => {
    const { pubsub_token } = parseBody(pubsubContactRequest, req.body);
    const ci = await findByPubsubToken(deps.pool, pubsub_token);
    const contact = ci ? await findContact(deps.pool, ci.account_id, ci.contact_id) : null;
    if (!ci || !contact) throw new NotFoundError('Contact inbox', 'pubsub_token');
    res.json({ contact_inbox: contactInboxDto(ci), contact: contactSnapshot(contact, base) });
  });

  return r;
}
