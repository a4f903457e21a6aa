#!/usr/bin/env node
/*
 * Benchmark of the audit-log list with millions of entries. Not part of the test run.
 *
 *   pnpm run build && pnpm --filter @parley/audit bench
 *
 * Creates a throw-away database, migrates the audit schema into it, seeds BENCH_ENTRIES
 * entries (default 2,000,000; half of them in one large account, the rest over 1,000
 * smaller ones), then times the queries `GET /audit_logs` runs, with the service's own
 * repository functions: the unfiltered first page (the Chatwoot call), a deep page, and
 * each filter. Prints median and p95 per query and the plan of the main ones, then drops
 * the database (BENCH_KEEP=1 keeps it).
 *
 * Env: BENCH_DATABASE_URL (admin URL of any database on the server; default the local
 * postgres), BENCH_ENTRIES, BENCH_RUNS (timed runs per query, default 30).
 */
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { createPool, migrateService, serviceDatabaseUrl } = require('@parley/shared');
const repo = require('../dist/audit-logs/repository');
const { PER_PAGE } = require('../dist/audit-logs/schemas');

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ENTRIES = Number(process.env.BENCH_ENTRIES || 2_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 30);
const ROLE_PASSWORD = 'parley-bench-role';
const BIG = 1;
const CHUNK = 250_000;

function dbUrl(name) {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin(url, sql, params) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end();
  }
}

async function seed(url) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    // Entry g: even g in the big account, odd g over accounts 2..1001; eight kinds of record,
    // a mix of actions; one entry every 15 s from 2024-01-01; five users per account.
    for (let from = 0; from < ENTRIES; from += CHUNK) {
      const to = Math.min(ENTRIES, from + CHUNK) - 1;
      const t = Date.now();
      await c.query(
        `INSERT INTO audit.audit_logs (account_id, auditable_type, auditable_id, associated_type, associated_id, action, audited_changes,
           auditable, user_id, user_type, username, request_uuid, remote_address, version, event_id, created_at)
         SELECT acc, typ, g / 10 + 1, 'Account', acc, act,
                CASE WHEN act = 'update' THEN jsonb_build_object('name', jsonb_build_array('old ' || g, 'new ' || g)) ELSE jsonb_build_object('id', g / 10 + 1, 'name', 'thing ' || g) END,
                jsonb_build_object('id', g / 10 + 1, 'name', 'thing ' || g), uid, 'User', 'user' || uid || '@example.com',
                md5(g::text), '203.0.113.7', g % 10 + 1, md5('event' || g)::uuid, timestamptz '2024-01-01' + g * interval '15 seconds'
           FROM (SELECT g,
                        CASE WHEN g % 2 = 0 THEN ${BIG} ELSE 2 + (g / 2) % 1000 END AS acc,
                        (ARRAY['Webhook','AutomationRule','AccountUser','Inbox','Article','Label','Team','CannedResponse'])[1 + (g / 10) % 8] AS typ,
                        (ARRAY['create','update','update','update','update','update','update','update','update','destroy'])[1 + (g / 2) % 10] AS act,
                        1 + (g / 7) % 5 AS uid
                   FROM generate_series($1::bigint, $2::bigint) AS g) s`,
        [from, to],
      );
      process.stdout.write(`  seeded ${to + 1} entries (${((Date.now() - t) / 1000).toFixed(1)} s for this chunk)\n`);
    }
    await c.query(`INSERT INTO audit.audit_log_counts (account_id, entries) SELECT account_id, count(*) FROM audit.audit_logs GROUP BY account_id`);
    await c.query(
      `INSERT INTO audit.audit_log_versions (account_id, auditable_type, auditable_id, last_version)
       SELECT account_id, auditable_type, auditable_id, max(version) FROM audit.audit_logs GROUP BY 1, 2, 3`,
    );
    process.stdout.write('  vacuum analyze...\n');
    await c.query('VACUUM (ANALYZE) audit.audit_logs');
    await c.query('ANALYZE audit.audit_log_counts');
  } finally {
    await c.end();
  }
}

function summary(times) {
  const s = [...times].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: at(0.5), p95: at(0.95), max: s[s.length - 1] };
}

/** What the route does for one request: the total (kept count or exact count), then one page. */
async function listPage(pool, filter, page) {
  const filtered = Object.keys(filter).some((k) => k !== 'accountId' && filter[k] !== undefined);
  const total = filtered ? await repo.countEntries(pool, filter) : await repo.accountTotal(pool, filter.accountId);
  const offset = (page - 1) * PER_PAGE;
  const rows = offset < total ? await repo.listEntries(pool, filter, PER_PAGE, offset) : [];
  return { total, rows: rows.length };
}

async function main() {
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  await admin(ADMIN_URL, `CREATE DATABASE ${name}`);
  const url = dbUrl(name);
  let pool;
  try {
    process.stdout.write(`database ${name}: migrating, then seeding ${ENTRIES.toLocaleString('en')} entries\n`);
    await migrateService({ adminUrl: url, service: 'audit', rolePassword: ROLE_PASSWORD, migrationsDir: require('node:path').resolve(__dirname, '..', 'migrations') });
    const seedStart = Date.now();
    await seed(url);
    process.stdout.write(`seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s\n\n`);

    pool = createPool(serviceDatabaseUrl(url, 'audit', ROLE_PASSWORD), 'audit', 4);
    const big = { accountId: BIG };
    const small = { accountId: 7 };
    // One day in the middle of the seeded period.
    const mid = Date.parse('2024-01-01T00:00:00Z') + Math.floor((ENTRIES * 15_000) / 2 / 86_400_000) * 86_400_000;
    const day = { since: new Date(mid), before: new Date(mid + 86_400_000) };
    const cases = [
      ['big account, page 1 (unfiltered)', big, 1],
      ['big account, page 2', big, 2],
      ['big account, page 400 (offset 9,975)', big, 400],
      ['big account, type=Webhook', { ...big, auditableType: 'Webhook' }, 1],
      ['big account, action=destroy', { ...big, action: 'destroy' }, 1],
      ['big account, user_id=3', { ...big, userId: 3, userType: 'User' }, 1],
      ['big account, one day', { ...big, ...day }, 1],
      ['big account, type + action + day', { ...big, ...day, auditableType: 'Inbox', action: 'update' }, 1],
      ['small account, page 1', small, 1],
      ['small account, type=Team', { ...small, auditableType: 'Team' }, 1],
    ];
    const rows = [];
    for (const [label, filter, page] of cases) {
      for (let i = 0; i < 3; i++) await listPage(pool, filter, page); // warm the cache
      const times = [];
      let last;
      for (let i = 0; i < RUNS; i++) {
        const t = process.hrtime.bigint();
        last = await listPage(pool, filter, page);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      const s = summary(times);
      rows.push({ query: label, total_entries: last.total, rows: last.rows, 'median ms': s.median.toFixed(2), 'p95 ms': s.p95.toFixed(2), 'max ms': s.max.toFixed(2) });
    }
    console.table(rows);

    for (const [label, sql, params] of [
      ['page 1 of the big account', `SELECT * FROM audit_logs WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 25 OFFSET 0`, [BIG]],
      ['count of one type in the big account', `SELECT count(*) FROM audit_logs WHERE account_id = $1 AND auditable_type = $2`, [BIG, 'Webhook']],
    ]) {
      const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      process.stdout.write(`\nplan: ${label}\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n`);
    }
  } finally {
    await pool?.end();
    if (process.env.BENCH_KEEP === '1') process.stdout.write(`\nkept database ${name}\n`);
    else await admin(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
