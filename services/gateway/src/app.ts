import type { Express, Request } from 'express';
import { createBaseApp, finishApp, healthRouter, jsonBody, requireInternalContext, routesRouter, traceIncoming, type ServiceDeps } from '@parley/shared';
import { trustProxySetting, type GatewayConfig } from './config';
import type { GatewayDeps } from './deps';
import { PrincipalStore } from './auth/principals';
import { accountScope, anonymousScope, authenticate, stripIdentityHeaders, userScope } from './auth/middleware';
import { byIp, byToken, rateLimit, TOKEN_LIMITED_PATH } from './ratelimit';
import { upstreamProxy } from './proxy';
import { accountRouting, publicRouting, v2AccountRouting } from './routing';
import { PLATFORM, platformAuth, platformRoutes } from './platform/routes';
import { PROFILE, profileRoutes } from './identity/profile-routes';
import { ACCOUNT, accountRoutes } from './identity/account-routes';
import { internalRouter } from './internal/routes';
import { USER_AVATARS, avatarRoutes } from './identity/avatar-routes';
import { docsRouter } from './docs';

export function gatewayDeps(deps: ServiceDeps<GatewayConfig>): GatewayDeps {
  return {
    ...deps,
    principals: new PrincipalStore(deps.pool, deps.redis, deps.config.NAMESPACE, deps.config.PRINCIPAL_CACHE_TTL_SECONDS, deps.pool, { maxEntries: deps.config.PRINCIPAL_CACHE_MAX_ENTRIES, log: deps.log, metrics: deps.metrics }),
  };
}

/** The public entry point: every client request passes here. */
export function createApp(base: ServiceDeps<GatewayConfig>): Express {
  const deps = gatewayDeps(base);
  const { config, redis, log } = deps;
  const app = createBaseApp(log, deps.metrics);
  // The services trust the gateway's X-Forwarded-For; the gateway itself trusts only the
  // proxies it is told about, so a client cannot pick its own address (per-IP limit, audit).
  app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.use(healthRouter({ service: 'gateway', pool: deps.pool, redis, amqp: deps.amqp, log }));
  app.use(traceIncoming()); // a span per request when tracing is on (after the probes)
  app.use(docsRouter()); // /openapi.json, /openapi.yaml, /docs: public, no credential
  // `/cable` is a WebSocket endpoint (the upgrade is proxied by `cable.ts`); a plain request is told so.
  app.get('/cable', (_req, res) => {
    res.status(426).set('Upgrade', 'websocket').json({ description: '/cable is a WebSocket endpoint (ActionCable)', errors: [{ field: '', message: 'Upgrade to a WebSocket', code: 'upgrade_required' }] });
  });
  // Service-to-service API: only callers that sign with the internal secret (the services;
  // never a client, who cannot sign). Mounted before the identity headers are stripped.
  app.use('/internal', requireInternalContext(config.INTERNAL_SECRET), jsonBody(), internalRouter(deps));
  app.use(stripIdentityHeaders);
  const window = config.RATE_LIMIT_WINDOW_SECONDS;
  const refused = (limit: string) => () => deps.metrics.rateLimited.inc({ limit });
  // The gateway's Redis client pipelines automatically (service.ts): a request's per-IP and
  // per-token commands, started together below, leave in one write.
  const limits = redis;
  const perToken = rateLimit({ redis: limits, prefix: `${config.NAMESPACE}rl:token`, points: config.RATE_LIMIT_PER_TOKEN, durationSeconds: window, key: byToken, onRefused: refused('token'), leaseMax: config.RATE_LIMIT_LEASE_MAX });
  const alongside = [{ limit: perToken, when: (req: Request) => TOKEN_LIMITED_PATH.test(req.path) }];
  app.use(rateLimit({ redis: limits, prefix: `${config.NAMESPACE}rl:ip`, points: config.RATE_LIMIT_PER_IP, durationSeconds: window, key: byIp, onRefused: refused('ip'), alongside, leaseMax: config.RATE_LIMIT_LEASE_MAX }));
  const auth = authenticate(deps.principals);

  app.use(PLATFORM, perToken, platformAuth(config), jsonBody(), routesRouter(platformRoutes, deps, PLATFORM));
  app.use(PROFILE, auth, perToken, userScope, jsonBody(), routesRouter(profileRoutes, deps, PROFILE));

  const proxy = upstreamProxy(config, log, deps.metrics);
  app.use('/api/v1/accounts/:account_id', auth, perToken, accountScope(deps.principals), accountRouting(config));
  app.use('/api/v2/accounts/:account_id', auth, perToken, accountScope(deps.principals), v2AccountRouting(config));
  app.use(USER_AVATARS, routesRouter(avatarRoutes, deps, USER_AVATARS)); // the gateway's own public files
  app.use('/public/api/v1', anonymousScope, publicRouting(config));
  app.use(proxy);
  app.use('/api/v1/accounts/:account_id', jsonBody(), routesRouter(accountRoutes, deps, ACCOUNT));
  return finishApp(app);
}
