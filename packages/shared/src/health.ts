import { Router } from 'express';
import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import type { AmqpConnection } from './amqp';
import type { Logger } from './logger';

export interface HealthDeps {
  service: string;
  pool: Pool;
  redis?: Redis | null;
  amqp?: AmqpConnection | null;
  /** Told when readiness changes (once per change, not per probe). */
  log?: Logger;
}

/**
 * `/healthz`: the process answers. `/readyz`: Postgres, RabbitMQ and Redis are reachable.
 * Probes come every few seconds: a change of readiness is logged once (warn when something
 * goes down, info when all is back), the probes themselves only at debug.
 */
export function healthRouter(deps: HealthDeps): Router {
  const router = Router();
  let lastDown = '';
  const note = (down: string[]) => {
    const now = down.join(',');
    if (now === lastDown) return;
    if (now) deps.log?.warn({ down }, `not ready: ${down.join(', ')} unreachable`);
    else deps.log?.info('ready again');
    lastDown = now;
  };
  router.get('/healthz', (_req, res) => {
    res.locals['probe'] = true;
    res.json({ status: 'ok', service: deps.service });
  });
  router.get('/readyz', async (_req, res) => {
    res.locals['probe'] = true;
    const checks: Record<string, 'ok' | 'down'> = {};
    const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000).unref())]);
    try {
      await timeout(deps.pool.query('SELECT 1'));
      checks['postgres'] = 'ok';
    } catch {
      checks['postgres'] = 'down';
    }
    if (deps.redis) {
      try {
        await timeout(deps.redis.ping());
        checks['redis'] = 'ok';
      } catch {
        checks['redis'] = 'down';
      }
    }
    if (deps.amqp) checks['rabbitmq'] = deps.amqp.connected ? 'ok' : 'down';
    const down = Object.entries(checks).filter(([, v]) => v === 'down');
    note(down.map(([k]) => k));
    if (down.length === 0) {
      res.json({ status: 'ready', service: deps.service, checks });
      return;
    }
    res.setHeader('Retry-After', '5');
    res.status(503).json({
      description: `Not ready: ${down.map(([k]) => k).join(', ')} unreachable`,
      errors: down.map(([k]) => ({ field: k, message: 'unreachable', code: 'unavailable' })),
    });
  });
  return router;
}
