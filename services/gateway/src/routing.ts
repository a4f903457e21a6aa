import type { RequestHandler } from 'express';
import { routeNotFound, serviceEntry, type ServiceName } from '@parley/shared';
import type { GatewayConfig } from './config';

/** A service the gateway proxies to: any in the registry but itself. */
type Upstream = Exclude<ServiceName, 'gateway'>;

function baseUrl(config: GatewayConfig, name: Upstream): string {
  return config[serviceEntry(name).urlKey];
}

/** Paths below `/api/v1/accounts/{id}` and who owns them; the gateway owns the rest it serves itself. */
const ACCOUNT_ROUTES: Array<[RegExp, Upstream]> = [
  [/^\/contacts\/\d+\/conversations\/?$/, 'conversations'],
  [/^\/(conversations|inboxes|inbox_members|labels|canned_responses|custom_attribute_definitions|custom_filters)(\/|$)/, 'conversations'],
  [/^\/(contacts|contact_inboxes)(\/|$)/, 'contacts'],
  [/^\/actions\/contact_merge\/?$/, 'contacts'],
  [/^\/portals(\/|$)/, 'helpcenter'],
  [/^\/(automation_rules|webhooks)(\/|$)/, 'automation'],
  [/^\/audit_logs(\/|$)/, 'audit'],
];

/** Served by the gateway itself (identity). */
const GATEWAY_ACCOUNT_ROUTES = /^\/(agents|teams|agent_bots)?(\/|$)/;

const PUBLIC_ROUTES: Array<[RegExp, Upstream]> = [
  [/^\/inboxes\/[^/]+\/contacts\/[^/]+\/conversations(\/|$)/, 'conversations'],
  [/^\/inboxes\/[^/]+\/contacts(\/[^/]+)?\/?$/, 'contacts'],
  [/^\/contact_avatars\/[^/]+\/?$/, 'contacts'],
  [/^\/inboxes\/[^/]+\/?$/, 'conversations'],
  [/^\/portals(\/|$)/, 'helpcenter'],
];

/** Mounted at `/api/v1/accounts/:account_id`: picks the owning service, or leaves it to the gateway. */
export function accountRouting(config: GatewayConfig): RequestHandler {
  return (req, _res, next) => {
    const hit = ACCOUNT_ROUTES.find(([re]) => re.test(req.path));
    if (hit) {
      req.upstream = baseUrl(config, hit[1]);
      return next();
    }
    if (GATEWAY_ACCOUNT_ROUTES.test(req.path)) return next();
    next(routeNotFound(req));
  };
}

/** Paths below `/api/v2/accounts/{id}`: the reports. */
const V2_ACCOUNT_ROUTES: Array<[RegExp, Upstream]> = [[/^\/(reports|summary_reports|live_reports)(\/|$)/, 'reports']];

/** Mounted at `/api/v2/accounts/:account_id`. */
export function v2AccountRouting(config: GatewayConfig): RequestHandler {
  return (req, _res, next) => {
    const hit = V2_ACCOUNT_ROUTES.find(([re]) => re.test(req.path));
    if (!hit) return next(routeNotFound(req));
    req.upstream = baseUrl(config, hit[1]);
    next();
  };
}

/** Mounted at `/public/api/v1`. */
export function publicRouting(config: GatewayConfig): RequestHandler {
  return (req, _res, next) => {
    const hit = PUBLIC_ROUTES.find(([re]) => re.test(req.path));
    if (!hit) return next(routeNotFound(req));
    req.upstream = baseUrl(config, hit[1]);
    next();
  };
}
