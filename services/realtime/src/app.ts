import type { Express } from 'express';
import { createServiceApp, type ServiceDeps } from '@parley/shared';
import type { RealtimeConfig } from './config';

/** HTTP is health only: the service's work is the `/cable` upgrade (`cable/server.ts`) and its consumer. */
export function createApp(deps: ServiceDeps<RealtimeConfig>): Express {
  return createServiceApp(deps, () => undefined);
}
