import type { Express } from 'express';
import { createServiceApp, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from './config';

export function createApp(deps: ServiceDeps<HelpcenterConfig>): Express {
  return createServiceApp(deps, (_app) => {
    // routes are mounted here as features land
  });
}
