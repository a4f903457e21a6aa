import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { accountIdOf, ForbiddenError, NotFoundError, pathId, routeKit, type Role, type SecurityScheme } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import * as s from './schemas';
import { changeAccount, getAccount } from './accounts-service';
import { addAgent, agentsOf, loadAgent, removeAgent, updateAgent } from './agents-service';
import { changeTeam, changeTeamMembers, createTeam, loadTeam, removeTeam, teamMembers, teamsOf } from './teams-service';
import { changeBot, createBot, removeBot, resetBotToken } from './bots-service';
import { findVisibleBot, listVisibleBots } from './bots-repository';
import { findToken } from './tokens-repository';
import { teamIdsOfUser } from './teams-repository';
import { accountView, agentView, botView, teamView } from './views';

const route = routeKit<GatewayDeps>();
export const ACCOUNT = '/api/v1/accounts/{account_id}';
const user: SecurityScheme[] = ['userApiKey'];
const agentId = { id: pathId('Agent') };
const teamId = { team_id: pathId('Team') };
const botId = { id: pathId('Agent bot') };

const userIdOf = (req: Request) => (req.ctx.actor.type === 'user' ? (req.ctx.actor.id as number) : null);
const isAdmin = (role: Role | null) => role === 'administrator';

/** Chatwoot finds the agent before the policy check: an unknown agent is 404, then a non-administrator 403, then the body. */
const agentThenAdmin = (deps: GatewayDeps): RequestHandler => async (req, _res, next) => {
  try {
    const id = agentId.id.safeParse(req.params['id']);
    if (!id.success) throw new NotFoundError('Agent', 'id');
    await loadAgent(deps.pool, accountIdOf(req), id.data);
    if (!isAdmin(req.ctx.role)) throw new ForbiddenError('You are not authorized to do this action');
    next();
  } catch (err) {
    next(err);
  }
};

async function isMemberOf(deps: GatewayDeps, accountId: number, team: number, uid: number | null): Promise<boolean> {
  return uid !== null && (await teamIdsOfUser(deps.pool, accountId, uid)).includes(team);
}

/**
 * Gateway-owned routes below `/api/v1/accounts/{account_id}`: the account itself, agents,
 * teams and agent bots. The account scope (membership, role) was checked by the gateway.
 */
export const accountRoutes = [
  // ---- the account ----
  route({
    method: 'get', path: ACCOUNT, operationId: 'getAccount', summary: 'Show the account', tags: ['Account'], security: user,
    response: s.accountSchema, errors: [401, 403, 404],
    handler: async ({ accountId }, deps) => accountView(await getAccount(deps, accountId)),
  }),
  route({
    method: ['patch', 'put'], path: ACCOUNT, operationId: 'updateAccount', summary: 'Update the account (administrators)', tags: ['Account'], security: user,
    role: 'administrator', body: s.accountUpdate, wrap: 'account', response: s.accountSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ accountId, body, ctx }, deps) => accountView(await changeAccount(deps, ctx, accountId, body)),
  }),

  // ---- agents (SPEC operation 12) ----
  route({
    method: 'get', path: `${ACCOUNT}/agents`, operationId: 'listAgents', summary: 'List agents', tags: ['Agents'], security: user,
    response: z.array(s.agentSchema), errors: [401, 403, 404],
    handler: async ({ accountId }, deps) => (await agentsOf(deps, accountId)).map(agentView),
  }),
  route({
    method: 'post', path: `${ACCOUNT}/agents`, operationId: 'createAgent', summary: 'Add an agent (administrators)', tags: ['Agents'], security: user,
    role: 'administrator', body: s.agentCreate, wrap: 'agent', response: s.agentSchema, errors: [400, 401, 403, 404, 422], requestExample: { name: 'Nina', email: 'nina@acme.test', role: 'agent' },
    handler: async ({ accountId, body, ctx }, deps) => agentView(await addAgent(deps, ctx, accountId, body)),
  }),
  route({
    method: ['patch', 'put'], path: `${ACCOUNT}/agents/{id}`, operationId: 'updateAgent', summary: 'Update an agent (administrators)', tags: ['Agents'], security: user,
    use: agentThenAdmin, params: agentId, body: s.agentUpdate, wrap: 'agent', response: s.agentSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ accountId, params, body, ctx }, deps) => agentView(await updateAgent(deps, ctx, accountId, params.id, body)),
  }),
  route({
    method: 'delete', path: `${ACCOUNT}/agents/{id}`, operationId: 'deleteAgent', summary: 'Delete agent', tags: ['Agents'], security: user,
    description: 'Removes the agent from the account (administrators); their token stops opening it at once. A user left without any account is deleted.',
    use: agentThenAdmin, params: agentId, response: s.emptyObject, errors: [401, 403, 404],
    handler: async ({ accountId, params, ctx }, deps) => {
      await removeAgent(deps, ctx, accountId, params.id);
      return {};
    },
  }),

  // ---- teams ----
  route({
    method: 'get', path: `${ACCOUNT}/teams`, operationId: 'listTeams', summary: 'List teams', tags: ['Teams'], security: user,
    response: z.array(s.teamSchema), errors: [401, 403, 404],
    handler: async ({ accountId, req }, deps) => {
      const { teams, mine } = await teamsOf(deps, accountId, userIdOf(req));
      return teams.map((t) => teamView(t, mine.has(t.id)));
    },
  }),
  route({
    method: 'post', path: `${ACCOUNT}/teams`, operationId: 'createTeam', summary: 'Create a team (administrators)', tags: ['Teams'], security: user,
    role: 'administrator', body: s.teamCreate, wrap: 'team', response: s.teamSchema, errors: [400, 401, 403, 404, 409, 422],
    handler: async ({ accountId, body, ctx }, deps) => teamView(await createTeam(deps, ctx, accountId, body), false),
  }),
  route({
    method: 'get', path: `${ACCOUNT}/teams/{team_id}`, operationId: 'getTeam', summary: 'Show a team', tags: ['Teams'], security: user,
    params: teamId, response: s.teamSchema, errors: [401, 403, 404],
    handler: async ({ accountId, params, req }, deps) => {
      const team = await loadTeam(deps.pool, accountId, params.team_id);
      return teamView(team, await isMemberOf(deps, accountId, team.id, userIdOf(req)));
    },
  }),
  route({
    method: ['patch', 'put'], path: `${ACCOUNT}/teams/{team_id}`, operationId: 'updateTeam', summary: 'Update a team (administrators)', tags: ['Teams'], security: user,
    role: 'administrator', params: teamId, body: s.teamUpdate, wrap: 'team', response: s.teamSchema, errors: [400, 401, 403, 404, 409, 422],
    handler: async ({ accountId, params, body, ctx, req }, deps) => {
      const team = await changeTeam(deps, ctx, accountId, params.team_id, body);
      return teamView(team, await isMemberOf(deps, accountId, team.id, userIdOf(req)));
    },
  }),
  route({
    method: 'delete', path: `${ACCOUNT}/teams/{team_id}`, operationId: 'deleteTeam', summary: 'Delete a team (administrators)', tags: ['Teams'], security: user,
    role: 'administrator', params: teamId, response: s.emptyObject, errors: [401, 403, 404],
    handler: async ({ accountId, params, ctx }, deps) => {
      await removeTeam(deps, ctx, accountId, params.team_id);
      return {};
    },
  }),
  route({
    method: 'get', path: `${ACCOUNT}/teams/{team_id}/team_members`, operationId: 'listTeamMembers', summary: "List a team's members", tags: ['Teams'], security: user,
    params: teamId, response: z.array(s.agentSchema), errors: [401, 403, 404],
    handler: async ({ accountId, params }, deps) => (await teamMembers(deps, accountId, params.team_id)).map(agentView),
  }),
  ...([
    ['post', 'add', 'addTeamMembers', 'Add members (administrators)'],
    ['patch', 'set', 'setTeamMembers', 'Make the members exactly these (administrators)'],
    ['delete', 'remove', 'removeTeamMembers', 'Remove members (administrators)'],
  ] as const).map(([method, mode, operationId, summary]) =>
    route({
      method, path: `${ACCOUNT}/teams/{team_id}/team_members`, operationId, summary, tags: ['Teams'], security: user,
      role: 'administrator', params: teamId, body: s.teamMembersBody, response: z.array(s.agentSchema), errors: [400, 401, 403, 404, 422],
      handler: async ({ accountId, params, body, ctx }, deps) => (await changeTeamMembers(deps, ctx, accountId, params.team_id, mode, body.user_ids)).map(agentView),
    }),
  ),

  // ---- agent bots: the account's own and the global ones; tokens only to administrators ----
  route({
    method: 'get', path: `${ACCOUNT}/agent_bots`, operationId: 'listAgentBots', summary: "List the account's and global agent bots", tags: ['Agent bots'], security: user,
    response: z.array(s.botSchema), errors: [401, 403, 404],
    handler: async ({ accountId }, deps) => (await listVisibleBots(deps.pool, accountId)).map((b) => botView(b, null)),
  }),
  route({
    method: 'post', path: `${ACCOUNT}/agent_bots`, operationId: 'createAgentBot', summary: 'Create an agent bot (administrators; answers its token)', tags: ['Agent bots'], security: user,
    role: 'administrator', body: s.accountBotCreate, wrap: 'agent_bot', response: s.botSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ accountId, body, ctx }, deps) => {
      const { bot, token } = await createBot(deps, ctx, accountId, body);
      return botView(bot, token);
    },
  }),
  route({
    method: 'get', path: `${ACCOUNT}/agent_bots/{id}`, operationId: 'getAgentBot', summary: 'Show an agent bot', tags: ['Agent bots'], security: user,
    params: botId, response: s.botSchema, errors: [401, 403, 404],
    handler: async ({ accountId, params, ctx }, deps) => {
      const bot = await findVisibleBot(deps.pool, accountId, params.id);
      if (!bot) throw new NotFoundError('Agent bot', 'id');
      const own = bot.account_id === accountId && isAdmin(ctx.role);
      return botView(bot, own ? await findToken(deps.pool, 'AgentBot', bot.id) : null);
    },
  }),
  route({
    method: ['patch', 'put'], path: `${ACCOUNT}/agent_bots/{id}`, operationId: 'updateAgentBot', summary: 'Update an agent bot (administrators)', tags: ['Agent bots'], security: user,
    role: 'administrator', params: botId, body: s.accountBotUpdate, wrap: 'agent_bot', response: s.botSchema, errors: [400, 401, 403, 404, 422],
    handler: async ({ accountId, params, body, ctx }, deps) => {
      const bot = await changeBot(deps, ctx, params.id, accountId, body);
      return botView(bot, await findToken(deps.pool, 'AgentBot', bot.id));
    },
  }),
  route({
    method: 'delete', path: `${ACCOUNT}/agent_bots/{id}`, operationId: 'deleteAgentBot', summary: 'Delete an agent bot (administrators)', tags: ['Agent bots'], security: user,
    role: 'administrator', params: botId, response: s.emptyObject, errors: [401, 403, 404],
    handler: async ({ accountId, params, ctx }, deps) => {
      await removeBot(deps, ctx, params.id, accountId);
      return {};
    },
  }),
  route({
    method: 'post', path: `${ACCOUNT}/agent_bots/{id}/reset_access_token`, operationId: 'resetAgentBotToken', summary: "Replace a bot's token (administrators)", tags: ['Agent bots'], security: user,
    role: 'administrator', params: botId, response: s.botSchema, errors: [401, 403, 404],
    handler: async ({ accountId, params }, deps) => {
      const { bot, token } = await resetBotToken(deps, params.id, accountId);
      return botView(bot, token);
    },
  }),
];
