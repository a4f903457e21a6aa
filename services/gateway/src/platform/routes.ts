import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { UnauthorizedError } from '@parley/shared';
import type { GatewayConfig } from '../config';
import type { GatewayDeps } from '../deps';
import { readToken } from '../auth/middleware';

/** `/platform/api/v1` is for the platform app holding PLATFORM_API_TOKEN (Chatwoot's PlatformApp token). */
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

export function platformRouter(_deps: GatewayDeps): Router {
  const router = Router();
  return router;
}
