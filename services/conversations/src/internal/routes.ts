import { Router } from 'express';
import { NotFoundError, idParam, parseBody } from '@parley/shared';
import { commandBody } from '../commands/schemas';
import { runCommand } from '../commands/service';
import { findConversation } from '../conversations/repository';
import { conversationSnapshot } from '../common/snapshots';
import type { AppDeps } from '../deps';
import { inboxSnapshot } from '../common/snapshots';

import { findInbox, findInboxByIdentifier } from '../inboxes/repository';
import { memberInboxIds } from '../common/access';

const IDENTIFIER_RE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * `/internal/...` for peer services (docs/contracts.md). Never routed by the gateway; the
 * signed context is checked by the service app like every other request.
 */
export function internalRouter(deps: AppDeps): Router {
  const { pool } = deps;
  const router = Router();

  router.get('/inboxes/by_identifier/:identifier', async (req, res) => {
    const identifier = req.params['identifier'] ?? '';
    const inbox = IDENTIFIER_RE.test(identifier) ? await findInboxByIdentifier(pool, identifier) : null;
    if (!inbox) throw new NotFoundError('Inbox', 'inbox_identifier');
    res.json(inboxSnapshot(inbox));
  });

  router.get('/accounts/:account_id/inboxes/:inbox_id', async (req, res) => {
    const inbox = await findInbox(pool, idParam(req, 'account_id', 'Account'), idParam(req, 'inbox_id', 'Inbox'));
    if (!inbox) throw new NotFoundError('Inbox', 'inbox_id');
    res.json(inboxSnapshot(inbox));
  });

  router.get('/accounts/:account_id/conversations/:conversation_id', async (req, res) => {
    const conv = await findConversation(pool, idParam(req, 'account_id', 'Account'), idParam(req, 'conversation_id', 'Conversation'));
    if (!conv) throw new NotFoundError('Conversation', 'conversation_id');
    res.json(conversationSnapshot(conv));
  });

  // The realtime service: which inboxes' conversation events an agent receives.
  router.get('/accounts/:account_id/agents/:user_id/inboxes', async (req, res) => {
    res.json({ inbox_ids: await memberInboxIds(pool, idParam(req, 'account_id', 'Account'), idParam(req, 'user_id', 'Agent')) });
  });

  router.post('/accounts/:account_id/conversations/:conversation_id/commands', async (req, res) => {
    const accountId = idParam(req, 'account_id', 'Account');
    const displayId = idParam(req, 'conversation_id', 'Conversation');
    const input = parseBody(commandBody, req.body);
    res.json(await runCommand(deps, req.ctx, accountId, displayId, input));
  });

  return router;
}
