import type { RequestHandler } from 'express';
import { NotFoundError } from '@parley/shared';
import type { GatewayConfig } from './config';

type Upstream = 'conversations' | 'contacts' | 'helpcenter' | 'automation' | 'audit';

function baseUrl(config: GatewayConfig, name: Upstream): string {
  switch (name) {
    case 'conversations':
      return config.CONVERSATIONS_URL;
    case 'contacts':
      return config.CONTACTS_URL;
    case 'helpcenter':
      return config.HELPCENTER_URL;
    case 'automation':
      return config.AUTOMATION_URL;
    case 'audit':
      return config.AUDIT_URL;
  }
}

/** Paths below `/api/v1/accounts/{id}` and who owns them; the gateway owns the rest it serves itself. */
const ACCOUNT_ROUTES: Array<[RegExp, Upstream]> = [
  [/^\/contacts\/\d+\/conversations\/?$/, 'conversations'],
  [/^\/(conversations|inboxes|inbox_members|labels|canned_responses|custom_attribute_definitions)(\/|$)/, 'conversations'],
  [/^\/(contacts|contact_inboxes)(\/|$)/, 'contacts'],
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
    next(new NotFoundError('Route'));
  };
}

/** Mounted at `/public/api/v1`. */
export function publicRouting(config: GatewayConfig): RequestHandler {
  return (req, _res, next) => {
    const hit = PUBLIC_ROUTES.find(([re]) => re.test(req.path));
    if (!hit) return next(new NotFoundError('Route'));
    req.upstream = baseUrl(config, hit[1]);
    next();
  };
}
