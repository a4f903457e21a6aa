import type { Request, RequestHandler } from 'express';
import { CONTEXT_HEADER, ForbiddenError, NotFoundError, SIGNATURE_HEADER, UnauthorizedError, type Actor, type RequestContext } from '@parley/shared';
import { hashToken, type PrincipalStore, type Principal } from './principals';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      principal?: Principal;
      /** Base URL of the service this request is proxied to, when it is. */
      upstream?: string;
      /** Set when the proxied request outlived PROXY_TIMEOUT_MS (504, not 502). */
      upstreamTimedOut?: boolean;
    }
  }
}

/**
 * The token from `api_access_token` (Node lower-cases header names, so any case works) or
 * `Api-Access-Token` with a dash, which some proxies require because they drop underscores.
 */
export function readToken(req: Request): string | null {
  const v = req.headers['api_access_token'] ?? req.headers['api-access-token'];
  const token = Array.isArray(v) ? v[0] : v;
  return token && token.trim() ? token.trim() : null;
}

const TOKEN_HASH = Symbol('parley.tokenHash');

/**
 * `hashToken` of the request's token (null without one), computed once per request: the per-token
 * rate limit and the principal cache both key on it.
 */
export function tokenHashOf(req: Request): string | null {
  const r = req as Request & { [TOKEN_HASH]?: string | null };
  if (r[TOKEN_HASH] === undefined) {
    const token = readToken(req);
    r[TOKEN_HASH] = token === null ? null : hashToken(token);
  }
  return r[TOKEN_HASH];
}

/** Clients never get to send their own identity: drop any context headers they made up. */
export const stripIdentityHeaders: RequestHandler = (req, _res, next) => {
  delete req.headers[CONTEXT_HEADER];
  delete req.headers[SIGNATURE_HEADER];
  next();
};

export function authenticate(store: PrincipalStore): RequestHandler {
  return async (req, _res, next) => {
    const token = readToken(req);
    if (!token) return next(new UnauthorizedError('You need to sign in or sign up before continuing: send your api_access_token header', 'unauthorized'));
    const principal = await store.resolve(token, tokenHashOf(req) ?? undefined);
    if (!principal) return next(new UnauthorizedError('Invalid Access Token', 'invalid_token'));
    req.principal = principal;
    next();
  };
}

export function actorOf(p: Principal): Actor {
  return p.kind === 'user' ? { type: 'user', id: p.userId, name: p.name, email: p.email } : { type: 'agent_bot', id: p.botId, name: p.name };
}

/** Chatwoot's BOT_ACCESSIBLE_ENDPOINTS, as paths below `/api/v1/accounts/{id}`. */
export function botMayCall(method: string, path: string): boolean {
  const p = path.replace(/\/+$/, '') || '/';
  if (method === 'POST' && p === '/conversations') return true;
  if ((method === 'PATCH' || method === 'PUT') && /^\/conversations\/\d+$/.test(p)) return true;
  if (method === 'POST' && /^\/conversations\/\d+\/(toggle_status|toggle_priority|custom_attributes|messages|assignments)$/.test(p)) return true;
  return false;
}

/**
 * For `/api/v1/accounts/:account_id/...`: the account exists and is active, the caller
 * belongs to it (bots: their own account), bots only reach bot endpoints; then builds the
 * context the gateway will sign.
 */
export function accountScope(store: PrincipalStore): RequestHandler {
  return async (req, _res, next) => {
    const principal = req.principal;
    if (!principal) return next(new UnauthorizedError());
    const raw = req.params['account_id'];
    if (typeof raw !== 'string' || !/^[0-9]{1,9}$/.test(raw)) return next(new NotFoundError('Account', 'account_id'));
    const accountId = Number(raw);
    const account = await store.account(accountId);
    if (!account) return next(new NotFoundError('Account', 'account_id'));
    let role: RequestContext['role'] = null;
    if (principal.kind === 'user') {
      role = principal.memberships[String(accountId)] ?? null;
      if (!role) return next(new ForbiddenError('You are not authorized to access this account', 'not_account_member'));
    } else {
      if (principal.accountId !== accountId) return next(new ForbiddenError('Bot is not authorized to access this account', 'not_account_member'));
      if (!botMayCall(req.method, req.path)) return next(new ForbiddenError('Access to this endpoint is not authorized for bots', 'bot_forbidden'));
    }
    if (account.status !== 'active') return next(new ForbiddenError('Account is suspended', 'account_suspended'));
    req.ctx = {
      requestId: req.requestId,
      accountId,
      actor: actorOf(principal),
      role,
      features: account.features,
      ip: req.ip ?? null,
      issuedAt: Date.now(),
    };
    next();
  };
}

/** For account-less user endpoints (`/api/v1/profile`): users only. */
export const userScope: RequestHandler = (req, _res, next) => {
  const principal = req.principal;
  if (!principal) return next(new UnauthorizedError());
  if (principal.kind !== 'user') return next(new ForbiddenError('Access to this endpoint is not authorized for bots', 'bot_forbidden'));
  req.ctx = { requestId: req.requestId, accountId: null, actor: actorOf(principal), role: null, features: {}, ip: req.ip ?? null, issuedAt: Date.now() };
  next();
};

/** Public client API: no credential; the context says so. */
export const anonymousScope: RequestHandler = (req, _res, next) => {
  req.ctx = { requestId: req.requestId, accountId: null, actor: { type: 'anonymous', id: null }, role: null, features: {}, ip: req.ip ?? null, issuedAt: Date.now() };
  next();
};
