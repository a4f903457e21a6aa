import { Router, type RequestHandler } from 'express';
import { accountIdOf, ForbiddenError, idParam, NotFoundError, parseBody, requireRole, unwrap, type Role } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import * as schemas from './schemas';
import { changeAccount, getAccount } from './accounts-service';
import { addAgent, agentsOf, loadAgent, removeAgent, updateAgent } from './agents-service';
import { changeTeam, changeTeamMembers, createTeam, loadTeam, removeTeam, teamMembers, teamsOf } from './teams-service';
import { changeBot, createBot, removeBot, resetBotToken } from './bots-service';
import { findVisibleBot, listVisibleBots } from './bots-repository';
import { findToken } from './tokens-repository';
import { teamIdsOfUser } from './teams-repository';
import { accountView, agentView, botView, teamView } from './views';

const adminOnly: RequestHandler = requireRole('administrator');

function assertAdmin(role: Role | null): void {
  if (role !== 'administrator') throw new ForbiddenError('You are not authorized to do this action');
}

/**
 * Gateway-owned routes below `/api/v1/accounts/:account_id`: the account itself, agents,
 * teams and agent bots. The account scope (membership, role) was checked by the gateway.
 */
export function accountRouter(deps: GatewayDeps): Router {
  const router = Router({ mergeParams: true });
  const userId = (req: Parameters<RequestHandler>[0]) => (req.ctx.actor.type === 'user' ? (req.ctx.actor.id as number) : null);
  const isAdmin = (role: Role | null) => role === 'administrator';

  router.get('/', async (req, res) => {
    res.json(accountView(await getAccount(deps, accountIdOf(req))));
  });
  const updateAccount: RequestHandler = async (req, res) => {
    const input = parseBody(schemas.accountUpdate, unwrap(req.body, 'account'));
    res.json(accountView(await changeAccount(deps, req.ctx, accountIdOf(req), input)));
  };
  router.patch('/', adminOnly, updateAccount);
  router.put('/', adminOnly, updateAccount);

  // ---- agents (SPEC operation 12) ----
  router.get('/agents', async (req, res) => {
    res.json((await agentsOf(deps, accountIdOf(req))).map(agentView));
  });
  router.post('/agents', adminOnly, async (req, res) => {
    const input = parseBody(schemas.agentCreate, unwrap(req.body, 'agent'));
    res.json(agentView(await addAgent(deps, req.ctx, accountIdOf(req), input)));
  });
  const patchAgent: RequestHandler = async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Agent');
    await loadAgent(deps.pool, accountId, id); // Chatwoot finds the agent before the policy check: 404 first
    assertAdmin(req.ctx.role);
    const input = parseBody(schemas.agentUpdate, unwrap(req.body, 'agent'));
    res.json(agentView(await updateAgent(deps, req.ctx, accountId, id, input)));
  };
  router.patch('/agents/:id', patchAgent);
  router.put('/agents/:id', patchAgent);
  router.delete('/agents/:id', async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Agent');
    await loadAgent(deps.pool, accountId, id);
    assertAdmin(req.ctx.role);
    await removeAgent(deps, req.ctx, accountId, id);
    res.json({});
  });

  // ---- teams ----
  router.get('/teams', async (req, res) => {
    const { teams, mine } = await teamsOf(deps, accountIdOf(req), userId(req));
    res.json(teams.map((t) => teamView(t, mine.has(t.id))));
  });
  router.post('/teams', adminOnly, async (req, res) => {
    const input = parseBody(schemas.teamCreate, unwrap(req.body, 'team'));
    res.json(teamView(await createTeam(deps, req.ctx, accountIdOf(req), input), false));
  });
  const isMemberOf = async (accountId: number, teamId: number, uid: number | null) => uid !== null && (await teamIdsOfUser(deps.pool, accountId, uid)).includes(teamId);
  router.get('/teams/:team_id', async (req, res) => {
    const accountId = accountIdOf(req);
    const team = await loadTeam(deps.pool, accountId, idParam(req, 'team_id', 'Team'));
    res.json(teamView(team, await isMemberOf(accountId, team.id, userId(req))));
  });
  const patchTeam: RequestHandler = async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'team_id', 'Team');
    const input = parseBody(schemas.teamUpdate, unwrap(req.body, 'team'));
    const team = await changeTeam(deps, req.ctx, accountId, id, input);
    res.json(teamView(team, await isMemberOf(accountId, team.id, userId(req))));
  };
  router.patch('/teams/:team_id', adminOnly, patchTeam);
  router.put('/teams/:team_id', adminOnly, patchTeam);
  router.delete('/teams/:team_id', adminOnly, async (req, res) => {
    await removeTeam(deps, req.ctx, accountIdOf(req), idParam(req, 'team_id', 'Team'));
    res.json({});
  });
  router.get('/teams/:team_id/team_members', async (req, res) => {
    res.json((await teamMembers(deps, accountIdOf(req), idParam(req, 'team_id', 'Team'))).map(agentView));
  });
  for (const [method, mode] of [['post', 'add'], ['patch', 'set'], ['delete', 'remove']] as const) {
    router[method]('/teams/:team_id/team_members', adminOnly, async (req, res) => {
      const input = parseBody(schemas.teamMembersBody, req.body);
      const members = await changeTeamMembers(deps, req.ctx, accountIdOf(req), idParam(req, 'team_id', 'Team'), mode, input.user_ids);
      res.json(members.map(agentView));
    });
  }

  // ---- agent bots: the account's own and the global ones; tokens only to administrators ----
  router.get('/agent_bots', async (req, res) => {
    res.json((await listVisibleBots(deps.pool, accountIdOf(req))).map((b) => botView(b, null)));
  });
  router.post('/agent_bots', adminOnly, async (req, res) => {
    const input = parseBody(schemas.accountBotCreate, unwrap(req.body, 'agent_bot'));
    const { bot, token } = await createBot(deps, req.ctx, accountIdOf(req), input);
    res.json(botView(bot, token));
  });
  router.get('/agent_bots/:id', async (req, res) => {
    const accountId = accountIdOf(req);
    const bot = await findVisibleBot(deps.pool, accountId, idParam(req, 'id', 'Agent bot'));
    if (!bot) throw new NotFoundError('Agent bot', 'id');
    const own = bot.account_id === accountId && isAdmin(req.ctx.role);
    res.json(botView(bot, own ? await findToken(deps.pool, 'AgentBot', bot.id) : null));
  });
  const patchBot: RequestHandler = async (req, res) => {
    const accountId = accountIdOf(req);
    const input = parseBody(schemas.accountBotUpdate, unwrap(req.body, 'agent_bot'));
    const bot = await changeBot(deps, req.ctx, idParam(req, 'id', 'Agent bot'), accountId, input);
    res.json(botView(bot, await findToken(deps.pool, 'AgentBot', bot.id)));
  };
  router.patch('/agent_bots/:id', adminOnly, patchBot);
  router.put('/agent_bots/:id', adminOnly, patchBot);
  router.delete('/agent_bots/:id', adminOnly, async (req, res) => {
    await removeBot(deps, req.ctx, idParam(req, 'id', 'Agent bot'), accountIdOf(req));
    res.json({});
  });
  router.post('/agent_bots/:id/reset_access_token', adminOnly, async (req, res) => {
    const { bot, token } = await resetBotToken(deps, idParam(req, 'id', 'Agent bot'), accountIdOf(req));
    res.json(botView(bot, token));
  });

  return router;
}
