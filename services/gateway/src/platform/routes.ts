import { timingSafeEqual } from 'node:crypto';
import { type RequestHandler } from 'express';
import { z } from 'zod';
import { NotFoundError, pathId, routeKit, UnauthorizedError, type SecurityScheme } from '@parley/shared';
import type { GatewayConfig } from '../config';
import type { GatewayDeps } from '../deps';
import { readToken } from '../auth/middleware';
import * as s from '../identity/schemas';
import { allAccounts, changeAccount, createAccount, getAccount, removeAccount } from '../identity/accounts-service';
import { changeUser, createUser, loadUser, removeUser, tokenOf, userRecordOf } from '../identity/users-service';
import { accountUsersOf, removeAgent, upsertAccountUser } from '../identity/agents-service';
import { changeBot, createBot, removeBot } from '../identity/bots-service';
import { findBot, listAllBots } from '../identity/bots-repository';
import { findToken } from '../identity/tokens-repository';
import { accountUserView, botView, platformAccountView } from '../identity/views';

/** `/platform/api/v1` is for the platform app holding PLATFORM_API_TOKEN (Chatwoot's PlatformApp). */
export function platformAuth(config: GatewayConfig): RequestHandler {
  const expected = Buffer.from(config.PLATFORM_API_TOKEN);
  return (req, _res, next) => {
    const token = readToken(req);
    const given = Buffer.from(token ?? '');
    if (!token || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return next(new UnauthorizedError('Invalid access_token', 'invalid_token'));
    }
    req.ctx = { requestId: req.requestId, accountId: null, actor: { type: 'platform', id: 'platform' }, role: null, features: {}, ip: req.ip ?? null, issuedAt: Date.now() };
    next();
  };
}

const route = routeKit<GatewayDeps>();
export const PLATFORM = '/platform/api/v1';
const platform: SecurityScheme[] = ['platformAppApiKey'];
const tags = ['Platform'];
const accountId = { id: pathId('Account') };
const userId = { id: pathId('User') };
const botId = { id: pathId('Agent bot') };

/** The account a path names, before the body is read (an unknown account is 404 whatever the body). */
const accountFirst = (deps: GatewayDeps): RequestHandler => async (req, _res, next) => {
  try {
    const id = pathId('Account').safeParse(req.params['id']);
    if (!id.success) throw new NotFoundError('Account', 'id');
    await getAccount(deps, id.data);
    next();
  } catch (err) {
    next(err);
  }
};

/**
 * Chatwoot's Platform API for bootstrapping. One platform app exists (the env token), so
 * every record is "permissible" to it; deletes answer `{}` rather than an empty body.
 */
export const platformRoutes = [
  route({
    method: 'get', path: `${PLATFORM}/accounts`, operationId: 'platformListAccounts', summary: 'List accounts', tags, security: platform,
    response: z.array(s.platformAccountSchema), errors: [401],
    handler: async (_in, deps) => (await allAccounts(deps)).map(platformAccountView),
  }),
  route({
    method: 'post', path: `${PLATFORM}/accounts`, operationId: 'platformCreateAccount', summary: 'Create an account', tags, security: platform,
    body: s.platformAccountCreate, wrap: 'account', response: s.platformAccountSchema, errors: [400, 401, 422], requestExample: { name: 'Acme', features: { audit_logs: true } },
    handler: async ({ body, ctx }, deps) => platformAccountView(await createAccount(deps, ctx, body)),
  }),
  route({
    method: 'get', path: `${PLATFORM}/accounts/{id}`, operationId: 'platformGetAccount', summary: 'Show an account', tags, security: platform,
    params: accountId, response: s.platformAccountSchema, errors: [401, 404],
    handler: async ({ params }, deps) => platformAccountView(await getAccount(deps, params.id)),
  }),
  route({
    method: ['patch', 'put'], path: `${PLATFORM}/accounts/{id}`, operationId: 'platformUpdateAccount', summary: 'Update an account', tags, security: platform,
    params: accountId, body: s.platformAccountUpdate, wrap: 'account', response: s.platformAccountSchema, errors: [400, 401, 404, 422],
    handler: async ({ params, body, ctx }, deps) => platformAccountView(await changeAccount(deps, ctx, params.id, body)),
  }),
  route({
    method: 'delete', path: `${PLATFORM}/accounts/{id}`, operationId: 'platformDeleteAccount', summary: 'Delete an account', tags, security: platform,
    params: accountId, response: s.emptyObject, errors: [401, 404],
    handler: async ({ params, ctx }, deps) => {
      await removeAccount(deps, ctx, params.id);
      return {};
    },
  }),
  route({
    method: 'get', path: `${PLATFORM}/accounts/{id}/account_users`, operationId: 'platformListAccountUsers', summary: "List an account's users", tags, security: platform,
    params: accountId, response: z.array(s.accountUserSchema), errors: [401, 404],
    handler: async ({ params }, deps) => {
      const account = await getAccount(deps, params.id);
      return (await accountUsersOf(deps, account.id)).map(accountUserView);
    },
  }),
  route({
    method: 'post', path: `${PLATFORM}/accounts/{id}/account_users`, operationId: 'platformCreateAccountUser', summary: 'Add a user to an account (upsert of the role)', tags, security: platform,
    use: accountFirst, params: accountId, body: s.accountUserCreate, wrap: 'account_user', response: s.accountUserSchema, errors: [400, 401, 404, 422], requestExample: { user_id: 1, role: 'administrator' },
    handler: async ({ params, body, ctx }, deps) => accountUserView(await upsertAccountUser(deps, ctx, params.id, body.user_id, body.role)),
  }),
  route({
    method: 'delete', path: `${PLATFORM}/accounts/{id}/account_users`, operationId: 'platformDeleteAccountUser', summary: 'Remove a user from an account (the user is kept, even with no account left)', tags, security: platform,
    use: accountFirst, params: accountId, body: s.accountUserDelete, wrap: 'account_user', response: s.emptyObject, errors: [400, 401, 404, 422],
    handler: async ({ params, body, ctx }, deps) => {
      // Chatwoot's Platform API keeps the user even when no account is left (unlike DELETE /agents/{id}).
      await removeAgent(deps, ctx, params.id, body.user_id, { keepUser: true });
      return {};
    },
  }),
  route({
    method: 'post', path: `${PLATFORM}/users`, operationId: 'platformCreateUser', summary: 'Create a user (an existing email answers that user unchanged)', tags, security: platform,
    body: s.platformUserCreate, wrap: 'user', response: s.userRecordSchema, errors: [400, 401, 422], requestExample: { name: 'Ann', email: 'ann@acme.test', password: 'Secret-pass-1' },
    handler: async ({ body, ctx }, deps) => {
      const { user } = await createUser(deps, ctx, body);
      return userRecordOf(deps, deps.pool, user);
    },
  }),
  route({
    method: 'get', path: `${PLATFORM}/users/{id}`, operationId: 'platformGetUser', summary: 'Show a user', tags, security: platform,
    params: userId, response: s.userRecordSchema, errors: [401, 404],
    handler: async ({ params }, deps) => userRecordOf(deps, deps.pool, await loadUser(deps.pool, params.id)),
  }),
  route({
    method: ['patch', 'put'], path: `${PLATFORM}/users/{id}`, operationId: 'platformUpdateUser', summary: 'Update a user (custom_attributes merged)', tags, security: platform,
    params: userId, body: s.platformUserUpdate, wrap: 'user', response: s.userRecordSchema, errors: [400, 401, 404, 409, 422],
    handler: async ({ params, body, ctx }, deps) => userRecordOf(deps, deps.pool, await changeUser(deps, ctx, params.id, body)),
  }),
  route({
    method: 'delete', path: `${PLATFORM}/users/{id}`, operationId: 'platformDeleteUser', summary: 'Delete a user', tags, security: platform,
    params: userId, response: s.emptyObject, errors: [401, 404],
    handler: async ({ params, ctx }, deps) => {
      await removeUser(deps, ctx, params.id);
      return {};
    },
  }),
  route({
    method: 'post', path: `${PLATFORM}/users/{id}/token`, operationId: 'platformUserToken', summary: "A user's access token", tags, security: platform,
    params: userId, response: s.userTokenSchema, errors: [401, 404],
    handler: async ({ params }, deps) => {
      const { user, token } = await tokenOf(deps, params.id);
      return { access_token: token, expiry: null, user: { id: user.id, name: user.name, display_name: user.display_name, email: user.email, pubsub_token: user.pubsub_token } };
    },
  }),
  route({
    method: 'get', path: `${PLATFORM}/agent_bots`, operationId: 'platformListAgentBots', summary: 'List agent bots', tags, security: platform,
    response: z.array(s.botSchema), errors: [401],
    handler: async (_in, deps) => (await listAllBots(deps.pool)).map((b) => botView(b, null)),
  }),
  route({
    method: 'post', path: `${PLATFORM}/agent_bots`, operationId: 'platformCreateAgentBot', summary: 'Create an agent bot (global without account_id)', tags, security: platform,
    body: s.platformBotCreate, wrap: 'agent_bot', response: s.botSchema, errors: [400, 401, 422],
    handler: async ({ body, ctx }, deps) => {
      const { bot, token } = await createBot(deps, ctx, body.account_id ?? null, body);
      return botView(bot, token);
    },
  }),
  route({
    method: 'get', path: `${PLATFORM}/agent_bots/{id}`, operationId: 'platformGetAgentBot', summary: 'Show an agent bot', tags, security: platform,
    params: botId, response: s.botSchema, errors: [401, 404],
    handler: async ({ params }, deps) => {
      const bot = await findBot(deps.pool, params.id);
      if (!bot) throw new NotFoundError('Agent bot', 'id');
      return botView(bot, await findToken(deps.pool, 'AgentBot', bot.id));
    },
  }),
  route({
    method: ['patch', 'put'], path: `${PLATFORM}/agent_bots/{id}`, operationId: 'platformUpdateAgentBot', summary: 'Update an agent bot', tags, security: platform,
    params: botId, body: s.platformBotUpdate, wrap: 'agent_bot', response: s.botSchema, errors: [400, 401, 404, 422],
    handler: async ({ params, body, ctx }, deps) => {
      const bot = await changeBot(deps, ctx, params.id, null, body);
      return botView(bot, await findToken(deps.pool, 'AgentBot', bot.id));
    },
  }),
  route({
    method: 'delete', path: `${PLATFORM}/agent_bots/{id}`, operationId: 'platformDeleteAgentBot', summary: 'Delete an agent bot', tags, security: platform,
    params: botId, response: s.emptyObject, errors: [401, 404],
    handler: async ({ params, ctx }, deps) => {
      await removeBot(deps, ctx, params.id, null);
      return {};
    },
  }),
];
