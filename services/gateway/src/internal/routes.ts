import { Router } from 'express';
import { idParam, NotFoundError, parseBody, pubsubAgentRequest } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { findAccount } from '../identity/accounts-repository';
import { findAgentByPubsubToken, listAgents } from '../identity/agents-repository';
import { loadAgent } from '../identity/agents-service';
import { loadTeam } from '../identity/teams-service';
import { teamMemberIds } from '../identity/teams-repository';
import { findVisibleBot } from '../identity/bots-repository';
import { accountEventData, agentView, botInternalView, teamData } from '../identity/views';

/**
 * `/internal/...`: identity lookups for other services (read-through of their projections;
 * docs/contracts.md). Callers sign as a service; clients never reach these.
 */
export function internalRouter(deps: GatewayDeps): Router {
  const router = Router();
  const account = async (raw: Parameters<typeof idParam>[0]) => {
    const a = await findAccount(deps.pool, idParam(raw, 'account_id', 'Account'));
    if (!a) throw new NotFoundError('Account', 'account_id');
    return a;
  };

  router.get('/accounts/:account_id', async (req, res) => {
    res.json(accountEventData(await account(req)));
  });
  router.get('/accounts/:account_id/agents', async (req, res) => {
    const a = await account(req);
    res.json((await listAgents(deps.pool, a.id)).map(agentView));
  });
  router.get('/accounts/:account_id/agents/:user_id', async (req, res) => {
    const a = await account(req);
    res.json(agentView(await loadAgent(deps.pool, a.id, idParam(req, 'user_id', 'Agent'))));
  });
  router.get('/accounts/:account_id/teams/:team_id', async (req, res) => {
    const a = await account(req);
    res.json(teamData(await loadTeam(deps.pool, a.id, idParam(req, 'team_id', 'Team'))));
  });
  router.get('/accounts/:account_id/teams/:team_id/members', async (req, res) => {
    const a = await account(req);
    const team = await loadTeam(deps.pool, a.id, idParam(req, 'team_id', 'Team'));
    res.json({ user_ids: await teamMemberIds(deps.pool, a.id, team.id) });
  });
  router.get('/accounts/:account_id/agent_bots/:bot_id', async (req, res) => {
    const a = await account(req);
    const bot = await findVisibleBot(deps.pool, a.id, idParam(req, 'bot_id', 'Agent bot'));
    if (!bot) throw new NotFoundError('Agent bot', 'bot_id');
    res.json(botInternalView(bot));
  });
  // The realtime service's RoomChannel check: token, user and membership must all match (a
  // body, not a path, so the token stays out of access logs).
  router.post('/pubsub/agents/resolve', async (req, res) => {
    const body = parseBody(pubsubAgentRequest, req.body);
    const agent = await findAgentByPubsubToken(deps.pool, body.account_id, body.user_id, body.pubsub_token);
    if (!agent) throw new NotFoundError('Agent', 'pubsub_token');
    res.json(agentView(agent));
  });
  return router;
}
