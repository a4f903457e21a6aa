import { CLAIM_SETTINGS, createPool, serviceDatabaseUrl, type Pool, type PoolClient } from '@parley/shared';
import { createTestEnv, explainIn, pagesLeft, planNodes, waitFor, type TestEnv } from '@parley/testkit';
import { claimDueDeliveries, finishAttempts } from '../src/webhooks/deliveries-repository';
import { startAutomation } from './helpers';

/** The sender's claim as SQL to explain (its statement with literal arguments: 50 rows, no URL left out, a minute's lease). */
const CLAIM = `SELECT id FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_at <= now() AND NOT (url = ANY ('{}'::text[]))
  ORDER BY next_attempt_at LIMIT 50 FOR UPDATE SKIP LOCKED`;

/*
 * The webhook sender's claim on a table whose statistics make a bitmap scan look cheaper. Each
 * claim moves its rows' `next_attempt_at` and each outcome ends their `pending`: both leave the old
 * row's entry in the due index until VACUUM. An index scan marks such an entry dead once no
 * transaction can see its row, so later claims skip it; a bitmap scan never does, and every poll
 * read every delivery made since the last VACUUM.
 */
describe('webhook sender claim', () => {
  let env: TestEnv;
  let pool: Pool;
  let client: PoolClient;

  beforeAll(async () => {
    env = await createTestEnv();
    // Started once for its schema, then stopped: its own sender would claim the rows below.
    await (await startAutomation(env)).stop();
    pool = createPool(serviceDatabaseUrl(env.config.DATABASE_URL, 'automation', env.config.DB_ROLE_PASSWORD), 'automation', 3);
    client = await pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await pool?.end();
    await env?.close();
  });

  it('when statistics make a bitmap scan look cheaper, then the sender still claims through the due index, and after 1,500 deliveries its claims leave later ones no old entry to read', async () => {
    await pool.query('ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)');
    try {
      // The last days' deliveries, done, a few due and 500 waiting for their retries (a receiver
      // that was down), rows of a real payload's size, in no physical order (each claim's update
      // moves its rows to wherever the table has room).
      const payload = JSON.stringify({ text: 'x'.repeat(1000) });
      await pool.query(
        `INSERT INTO webhook_deliveries (account_id, kind, url, dedupe_key, delivery_id, event, payload, status, next_attempt_at)
         SELECT 1, 'webhook', 'http://history.test/', 'history-' || n, gen_random_uuid(), 'message_created', $1::jsonb,
                CASE WHEN n <= 510 THEN 'pending' ELSE 'succeeded' END,
                CASE WHEN n <= 10 THEN now() - interval '1 minute' WHEN n <= 510 THEN now() + n * interval '1 second' END
           FROM generate_series(1, 3000) n ORDER BY random()`,
        [payload],
      );
      await pool.query('ANALYZE webhook_deliveries');
      const unset = planNodes(await explainIn(client, null, CLAIM));
      if (!unset.includes('Bitmap Heap Scan')) throw new Error(`the set-up no longer makes the planner take a bitmap scan for the claim (${unset.join(', ')}): the test proves nothing until it does`);
      expect(planNodes(await explainIn(client, CLAIM_SETTINGS, CLAIM))).toContain('Index Scan webhook_deliveries_due_idx');

      await pool.query(
        `INSERT INTO webhook_deliveries (account_id, kind, url, dedupe_key, delivery_id, event, payload, next_attempt_at)
         SELECT 1, 'webhook', 'http://receiver.test/', 'due-' || n, gen_random_uuid(), 'message_created', $1::jsonb, now() - interval '1 second'
           FROM generate_series(1, 1500) n`,
        [payload],
      );
      // What the sender does, poll after poll: claim, send (not here), record the outcome.
      let sent = 0;
      for (let poll = 0; poll < 200; poll++) {
        const claimed = await claimDueDeliveries(pool, 50, [], 60_000);
        if (claimed.length === 0) break;
        await finishAttempts(pool, claimed.map((d) => ({ id: d.id, status: 'succeeded' as const, attempt: d.attempts, statusCode: 200, error: null, durationMs: 1, retryInMs: null })));
        sent += claimed.length;
      }
      expect(sent).toBe(1510);
      // The claims' index scans mark an old entry dead once no transaction can see its row (other
      // test files' transactions can hold that back a while): the sender's next polls, with nothing
      // due, mark what is left. Claims that took the bitmap scan never do: ~220 pages stay.
      await waitFor(async () => (await claimDueDeliveries(pool, 50, [], 60_000), (await pagesLeft(client, CLAIM)) < 40), { what: 'the due index left with no entry of a done delivery', timeoutMs: 20_000 });
    } finally {
      await pool.query('ALTER TABLE webhook_deliveries RESET (autovacuum_enabled)');
    }
  });
});
