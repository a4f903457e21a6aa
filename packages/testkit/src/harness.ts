import { randomBytes } from 'node:crypto';
import { baseConfigSchema, bootService, type BaseConfig, type RunningService, type ServiceDefinition } from '@parley/shared';
import { createTestDatabase, infra, type TestDatabase } from './infra';
import { TEST_SECRET } from './helpers';

/** Settings for services under test: the file's database, its own bus namespace, quiet logs. */
export interface TestEnv {
  db: TestDatabase;
  namespace: string;
  config: BaseConfig;
  /** Builds a service config on top of the file's settings. */
  configFor(extra?: Record<string, unknown>): BaseConfig & Record<string, unknown>;
  close(): Promise<void>;
}

export async function createTestEnv(): Promise<TestEnv> {
  const db = await createTestDatabase();
  const { amqpUrl, redisUrl } = infra();
  const namespace = `t${randomBytes(4).toString('hex')}.`;
  const config = baseConfigSchema.parse({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    DATABASE_URL: db.url,
    AMQP_URL: amqpUrl,
    REDIS_URL: redisUrl,
    INTERNAL_SECRET: TEST_SECRET,
    NAMESPACE: namespace,
    QUEUE_EXPIRES_MS: 120_000,
    SHUTDOWN_TIMEOUT_MS: 2000,
    METRICS_PORT: 0,
    DB_POOL_MAX: 5,
  });
  return {
    db,
    namespace,
    config,
    configFor: (extra = {}) => ({ ...config, ...extra }),
    close: () => db.drop(),
  };
}

/** Boots a service in-process on a free port against the test env (already migrated via the template). */
export async function startTestService<C extends BaseConfig>(def: ServiceDefinition<C>, config: C): Promise<RunningService<C>> {
  return bootService(def, config, { port: 0, host: '127.0.0.1', migrate: false });
}
