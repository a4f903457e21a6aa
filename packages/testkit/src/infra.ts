import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * Where the real servers are. jest's global setup fills these from testcontainers when a
 * Docker engine is available, otherwise from TEST_* env, defaulting to localhost.
 */
export function infra(): { adminUrl: string; amqpUrl: string; redisUrl: string; templateDb: string } {
  return {
    adminUrl: process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    amqpUrl: process.env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672',
    redisUrl: process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    templateDb: process.env['PARLEY_TEMPLATE_DB'] ?? 'parley_template',
  };
}

export function dbUrl(adminUrl: string, db: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

export interface TestDatabase {
  name: string;
  /** Admin URL of the new database (services derive their role URLs from it). */
  url: string;
  drop(): Promise<void>;
}

/** A fresh database for one test file, cloned from the migrated template (fast, isolated). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { adminUrl, templateDb } = infra();
  const name = `parley_t_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDb}`);
        break;
      } catch (err) {
        // Another file cloning the template at the same moment holds it briefly.
        if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    name,
    url: dbUrl(adminUrl, name),
    async drop() {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      try {
        // A pool's end() resolves once its clients have sent their goodbye, not once their
        // backends have read it: give those sessions a moment to leave on their own, or FORCE
        // would answer a closing client with 57P01, an 'error' event nobody listens to any more.
        for (let i = 0; i < 30; i++) {
          const left = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if (left.rows[0]!.n === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
