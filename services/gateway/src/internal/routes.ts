import { Router } from 'express';
import type { GatewayDeps } from '../deps';

/** `/internal/...`: identity lookups for other services (read-through of their projections). */
export function internalRouter(_deps: GatewayDeps): Router {
  const router = Router();
  return router;
}
