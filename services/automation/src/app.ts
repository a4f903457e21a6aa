import type { Express } from 'express';
import { createServiceApp, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from './config';

export function createApp(deps: ServiceDeps<AutomationConfig>): Express {
  return createServiceApp(deps, (_app) => {
    // routes are mounted here as features land
  });
}
