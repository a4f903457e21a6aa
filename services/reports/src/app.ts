import type { Express } from 'express';
import { createServiceApp, peersAndProjections, routesRouter, type ServiceDeps } from '@parley/shared';
import type { ReportsConfig } from './config';
import { routes } from './routes';

export function createApp(deps: ServiceDeps<ReportsConfig>): Express {
  // The agent tables list the account's members through the gateway's internal API; agent, team
  // and inbox ids are checked against the copies through the projection kit (read through to
  // their owner on a miss).
  const { peers, projections } = peersAndProjections(deps);
  return createServiceApp(deps, (app) => {
    app.use(routesRouter(routes, { pool: deps.pool, peers, projections }));
  });
}
