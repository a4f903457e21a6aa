import { Router } from 'express';
import { NotFoundError } from '@parley/shared';
import type { AppDeps } from '../deps';
import type { InboxRow } from '../common/rows';
import { findInboxByIdentifier } from '../inboxes/repository';
import { publicInboxData } from '../inboxes/present';

const IDENTIFIER_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** The inbox named by the path; unknown identifiers are 404 (Chatwoot). */
export async function inboxByIdentifier(deps: AppDeps, identifier: string | undefined): Promise<InboxRow> {
  const inbox = identifier && IDENTIFIER_RE.test(identifier) ? await findInboxByIdentifier(deps.pool, identifier) : null;
  if (!inbox) throw new NotFoundError('Inbox', 'inbox_identifier');
  return inbox;
}

/** `/public/api/v1/inboxes/...`: the client API of an API inbox's end users (no credential). */
export function publicRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/:inbox_identifier', async (req, res) => {
    res.json(publicInboxData(await inboxByIdentifier(deps, req.params['inbox_identifier'])));
  });

  return router;
}
