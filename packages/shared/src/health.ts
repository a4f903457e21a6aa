import { Router } from 'express';
import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import type { AmqpConnection } from './amqp';

export interface HealthDeps {
  service: string;
  pool: Pool;
  redis?: Redis | null;
  amqp?: AmqpConnection | null;
}

/** `/healthz`: the process answers. `/readyz`: Postgres, RabbitMQ and Redis are reachable. */
export function healthRouter(deps: HealthDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: deps.service });
  });
  router.get('/readyz', async (_req, res) => {
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
    if (down.length === 0) {
      res.json({ status: 'ready', service: deps.service, checks });
      return;
    }
    res.status(503).json({
      description: `Not ready: ${down.map(([k]) => k).join(', ')} unreachable`,
      errors: down.map(([k]) => ({ field: k, message: 'unreachable', code: 'unavailable' })),
    });
  });
  return router;
}
