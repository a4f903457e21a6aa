import { Client } from 'pg';
import { createPool, serviceDatabaseUrl, withTransaction, type Pool } from '@parley/shared';
import { createTestDatabase, waitFor, type TestDatabase } from '@parley/testkit';

/** A Postgres backend going away (restart, failover, admin kill) must not kill the process. */
describe('createPool when Postgres drops connections', () => {
  let db: TestDatabase;
  let pool: Pool;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(serviceDatabaseUrl(db.url, 'audit', 'parley-dev-role'), 'audit', 3);
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await pool.end().catch(() => undefined);
    await db.drop();
  });

  async function terminate(pid: number): Promise<void> {
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      // With a timeout, Postgres answers once the backend has exited (without one, as soon as it is
      // signalled: a loaded machine may not have run it yet when the test goes on).
      await admin.query('SELECT pg_terminate_backend($1, 10000)', [pid]);
    } finally {
      await admin.end();
    }
  }

  it('when a client checked out inside a transaction loses its backend, then the transaction fails, nothing is thrown at the process, and the pool serves the next query', async () => {
    const tx = withTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Idle inside BEGIN, as a relay awaiting broker confirms is, while the backend dies.
      await terminate(rows[0]!.pid);
      await new Promise((r) => setTimeout(r, 300));
      await client.query('SELECT 1');
    });
    await expect(tx).rejects.toThrow();
    expect(uncaught).toEqual([]);
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0]!.one).toBe(1);
  });

  it('when idle clients lose their backends, then the pool replaces them', async () => {
    const pids = await Promise.all([0, 1].map(() => pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')));
    for (const r of pids) await terminate(r.rows[0]!.pid);
    await waitFor(async () => (await pool.query('SELECT 1')).rowCount === 1);
    expect(uncaught).toEqual([]);
  });
});
