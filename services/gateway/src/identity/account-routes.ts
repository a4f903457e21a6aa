import { Router } from 'express';
import type { GatewayDeps } from '../deps';

/** Gateway-owned routes below `/api/v1/accounts/:account_id` (agents, teams, agent bots). */
export function accountRouter(_deps: GatewayDeps): Router {
  const router = Router({ mergeParams: true });
  return router;
}
