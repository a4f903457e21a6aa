import { Router } from 'express';
import type { GatewayDeps } from '../deps';

export function profileRouter(_deps: GatewayDeps): Router {
  const router = Router();
  return router;
}
