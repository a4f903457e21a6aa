import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { idParam, NotFoundError, parseBody, UnauthorizedError, unwrap } from '@parley/shared';
import type { GatewayConfig } from '../config';
import type { GatewayDeps } from '../deps';
import { readToken } from '../auth/middleware';
import * as schemas from '../identity/schemas';
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

/**
 * Chatwoot's Platform API for bootstrapping. One platform app exists (the env token), so
 * every record is "permissible" to it; deletes answer `{}` rather than an empty body.
 */
export function platformRouter(deps: GatewayDeps): Router {
  const router = Router();

  router.get('/accounts', async (_req, res) => {
    res.json((await allAccounts(deps)).map(platformAccountView));
  });
  router.post('/accounts', async (req, res) => {
    const input = parseBody(schemas.platformAccountCreate, unwrap(req.body, 'account'));
    res.json(platformAccountView(await createAccount(deps, req.ctx, input)));
  });
  router.get('/accounts/:id', async (req, res) => {
    res.json(platformAccountView(await getAccount(deps, idParam(req, 'id', 'Account'))));
  });
  const updateAccount: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'Account');
    const input = parseBody(schemas.platformAccountUpdate, unwrap(req.body, 'account'));
    res.json(platformAccountView(await changeAccount(deps, req.ctx, id, input)));
  };
  router.patch('/accounts/:id', updateAccount);
  router.put('/accounts/:id', updateAccount);
  router.delete('/accounts/:id', async (req, res) => {
    await removeAccount(deps, req.ctx, idParam(req, 'id', 'Account'));
    res.json({});
  });

  router.get('/accounts/:id/account_users', async (req, res) => {
    const account = await getAccount(deps, idParam(req, 'id', 'Account'));
    res.json((await accountUsersOf(deps, account.id)).map(accountUserView));
  });
  router.post('/accounts/:id/account_users', async (req, res) => {
    const account = await getAccount(deps, idParam(req, 'id', 'Account'));
    const input = parseBody(schemas.accountUserCreate, unwrap(req.body, 'account_user'));
    res.json(accountUserView(await upsertAccountUser(deps, req.ctx, account.id, input.user_id, input.role)));
  });
  router.delete('/accounts/:id/account_users', async (req, res) => {
    const account = await getAccount(deps, idParam(req, 'id', 'Account'));
    const input = parseBody(schemas.accountUserDelete, unwrap(req.body, 'account_user'));
    await removeAgent(deps, req.ctx, account.id, input.user_id);
    res.json({});
  });

  router.post('/users', async (req, res) => {
    const input = parseBody(schemas.platformUserCreate, unwrap(req.body, 'user'));
    const { user } = await createUser(deps, req.ctx, input);
    res.json(await userRecordOf(deps, deps.pool, user));
  });
  router.get('/users/:id', async (req, res) => {
    res.json(await userRecordOf(deps, deps.pool, await loadUser(deps.pool, idParam(req, 'id', 'User'))));
  });
  const updateUser: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'User');
    const input = parseBody(schemas.platformUserUpdate, unwrap(req.body, 'user'));
    res.json(await userRecordOf(deps, deps.pool, await changeUser(deps, req.ctx, id, input)));
  };
  router.patch('/users/:id', updateUser);
  router.put('/users/:id', updateUser);
  router.delete('/users/:id', async (req, res) => {
    await removeUser(deps, req.ctx, idParam(req, 'id', 'User'));
    res.json({});
  });
  router.post('/users/:id/token', async (req, res) => {
    const { user, token } = await tokenOf(deps, idParam(req, 'id', 'User'));
    res.json({ access_token: token, expiry: null, user: { id: user.id, name: user.name, display_name: user.display_name, email: user.email, pubsub_token: user.pubsub_token } });
  });

  router.get('/agent_bots', async (_req, res) => {
    res.json((await listAllBots(deps.pool)).map((b) => botView(b, null)));
  });
  router.post('/agent_bots', async (req, res) => {
    const input = parseBody(schemas.platformBotCreate, unwrap(req.body, 'agent_bot'));
    const { bot, token } = await createBot(deps, req.ctx, input.account_id ?? null, input);
    res.json(botView(bot, token));
  });
  router.get('/agent_bots/:id', async (req, res) => {
    const bot = await findBot(deps.pool, idParam(req, 'id', 'Agent bot'));
    if (!bot) throw new NotFoundError('Agent bot', 'id');
    res.json(botView(bot, await findToken(deps.pool, 'AgentBot', bot.id)));
  });
  const updateBot: RequestHandler = async (req, res) => {
    const id = idParam(req, 'id', 'Agent bot');
    const input = parseBody(schemas.platformBotUpdate, unwrap(req.body, 'agent_bot'));
    const bot = await changeBot(deps, req.ctx, id, null, input);
    res.json(botView(bot, await findToken(deps.pool, 'AgentBot', bot.id)));
  };
  router.patch('/agent_bots/:id', updateBot);
  router.put('/agent_bots/:id', updateBot);
  router.delete('/agent_bots/:id', async (req, res) => {
    await removeBot(deps, req.ctx, idParam(req, 'id', 'Agent bot'), null);
    res.json({});
  });

  return router;
}
