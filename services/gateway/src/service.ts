import path from 'node:path';
import type { ServiceDefinition } from '@parley/shared';
import type { GatewayConfig } from './config';
import { createApp } from './app';
import { cableProxy } from './cable';

export const gatewayService: ServiceDefinition<GatewayConfig> = {
  name: 'gateway',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  // Both rate limits of a request go to Redis in one write (ratelimit.ts `alongside`).
  redis: { autoPipelining: true },
  attach: (server, deps) => cableProxy(server, deps.config, deps.log, deps.metrics),
};
