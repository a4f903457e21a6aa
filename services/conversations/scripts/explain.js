#!/usr/bin/env node
/*
 * EXPLAIN of the conversation list and its `q` search on an account with 100k conversations.
 * Not part of the test run.
 *
 *   npx tsc -b services/conversations/tsconfig.json && pnpm --filter @parley/conversations explain
 *
 * Creates a throw-away database, migrates the conversations schema into it, seeds one big
 * account (BENCH_CONVERSATIONS conversations, default 100,000, over 10 inboxes, 3 messages
 * each) and 100 small accounts (500 conversations each), then prints EXPLAIN (ANALYZE,
 * BUFFERS) of the exact SQL `GET /conversations` runs (built by the service's own
 * listQuery/metaQuery, and the whole statement as run, pageQuery): the page and the meta counts, for an administrator, for an agent who
 * sees 3 of the 10 inboxes, with `q`, and with `labels`. Drops the database afterwards
 * (BENCH_KEEP=1 keeps it).
 *
 * Env: BENCH_DATABASE_URL (admin URL of any database on the server; default the local postgres).
 */
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const { Client } = require('pg');
const { createPool, migrateService, serviceDatabaseUrl } = require('@parley/shared');
const { listQuery, metaQuery, pageQuery } = require('../dist/conversations/list');
const { filterQueries } = require('../dist/filters/conversation-filter');
const { checkFilter, CONVERSATION_FILTER_KEYS } = require('@parley/shared');

const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const BIG_COUNT = Number(process.env.BENCH_CONVERSATIONS || 100_000);
const ROLE_PASSWORD = 'parley-bench-role';
const BIG = 1;
const SMALL_ACCOUNTS = 100;
const SMALL_COUNT = 500;

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
    await c.query('SET search_path = conversations, public');
    // Inboxes 1..10 belong to the big account; each small account has one.
    await c.query(
      `INSERT INTO inboxes (id, account_id, name, identifier, hmac_token)
       SELECT i, CASE WHEN i <= 10 THEN ${BIG} ELSE i - 9 END, 'Inbox ' || i, md5('inbox' || i), md5('hmac' || i)
         FROM generate_series(1, ${10 + SMALL_ACCOUNTS}) AS i`,
    );
    // Conversation g of the big account: inbox 1 + g % 10; status 30% open, 60% resolved, 5% pending,
    // 5% snoozed; a third unassigned, the rest over 20 agents; every 7th labelled vip, every 3rd billing;
    // activity spread over a year.
    const statusExpr = `CASE WHEN g % 20 < 6 THEN 'open' WHEN g % 20 < 18 THEN 'resolved' WHEN g % 20 = 18 THEN 'pending' ELSE 'snoozed' END`;
    await c.query(
      `INSERT INTO conversations (account_id, display_id, inbox_id, contact_id, contact_inbox_id, contact_inbox_source_id, status, priority,
         assignee_id, labels, snoozed_until, last_activity_at, waiting_since, created_at, updated_at)
       SELECT ${BIG}, g, 1 + g % 10, 1000000 + g, 1000000 + g, md5('src' || g), ${statusExpr},
              CASE WHEN g % 11 = 0 THEN g % 4 END,
              CASE WHEN g % 3 = 0 THEN NULL ELSE 100 + g % 20 END,
              (CASE WHEN g % 7 = 0 THEN ARRAY['vip'] ELSE '{}'::text[] END) || (CASE WHEN g % 3 = 0 THEN ARRAY['billing'] ELSE '{}'::text[] END),
              CASE WHEN g % 20 = 19 THEN now() + interval '1 day' END,
              timestamptz '2025-01-01' + (g * 317 % ${BIG_COUNT}) * interval '5 minutes',
              CASE WHEN g % 4 = 0 THEN timestamptz '2025-01-01' + g * interval '5 minutes' END,
              timestamptz '2025-01-01' + g * interval '5 minutes', now()
         FROM generate_series(1, ${BIG_COUNT}) AS g`,
    );
    await c.query(
      `INSERT INTO conversations (account_id, display_id, inbox_id, contact_id, contact_inbox_id, contact_inbox_source_id, status, assignee_id,
         last_activity_at, created_at, updated_at)
       SELECT a - 9, n, a, 2000000 + a * 1000 + n, 2000000 + a * 1000 + n, md5('s' || a || '-' || n), CASE WHEN n % 2 = 0 THEN 'open' ELSE 'resolved' END,
              CASE WHEN n % 3 = 0 THEN 100 END, timestamptz '2025-01-01' + n * interval '1 hour', timestamptz '2025-01-01' + n * interval '1 hour', now()
         FROM generate_series(11, ${10 + SMALL_ACCOUNTS}) AS a, generate_series(1, ${SMALL_COUNT}) AS n`,
    );
    await c.query(`INSERT INTO account_counters (account_id, last_display_id) SELECT account_id, max(display_id) FROM conversations GROUP BY account_id`);
    // Three messages per conversation (incoming, outgoing reply, activity). One conversation in
    // 500 mentions a parcel; the rest talk about orders, invoices and deliveries.
    await c.query(
      `INSERT INTO messages (account_id, inbox_id, conversation_id, message_type, content, sender_type, created_at, updated_at)
       SELECT c.account_id, c.inbox_id, c.id, t.mt,
              CASE t.mt
                WHEN 0 THEN CASE WHEN c.id % 500 = 0 THEN 'Where is my parcel ' || c.id || '?' ELSE
                  (ARRAY['My order','The invoice','Delivery','My account','The refund'])[1 + c.id % 5] || ' ' || c.id || ' ' ||
                  (ARRAY['is late','is wrong','never arrived','was charged twice','needs a change'])[1 + (c.id / 5) % 5] END
                WHEN 1 THEN 'Thanks for writing, we are looking at ticket ' || c.id
                ELSE 'Conversation was marked resolved by Agent ' || (c.id % 20) END,
              CASE t.mt WHEN 0 THEN 'Contact' WHEN 1 THEN 'User' END,
              c.created_at + t.mt * interval '1 minute', now()
         FROM conversations c CROSS JOIN (VALUES (0), (1), (2)) AS t (mt)`,
    );
    await c.query('INSERT INTO inbox_members (account_id, inbox_id, user_id) SELECT 1, i, 200 FROM generate_series(1, 3) AS i');
    process.stdout.write('  vacuum analyze...\n');
    await c.query('VACUUM (ANALYZE) conversations');
    await c.query('VACUUM (ANALYZE) messages');
  } finally {
    await c.end();
  }
}

async function main() {
  const name = `parley_explain_${randomBytes(4).toString('hex')}`;
  await admin(ADMIN_URL, `CREATE DATABASE ${name}`);
  const url = dbUrl(name);
  let pool;
  try {
    process.stdout.write(`database ${name}: migrating, then seeding ${BIG_COUNT.toLocaleString('en')} conversations in account ${BIG}\n`);
    await migrateService({ adminUrl: url, service: 'conversations', rolePassword: ROLE_PASSWORD, migrationsDir: path.resolve(__dirname, '..', 'migrations') });
    const t = Date.now();
    await seed(url);
    process.stdout.write(`seeded in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
    pool = createPool(serviceDatabaseUrl(url, 'conversations', ROLE_PASSWORD), 'conversations', 2);
    const counts = await pool.query('SELECT (SELECT count(*) FROM conversations WHERE account_id = $1) AS big, (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM messages) AS messages', [BIG]);
    process.stdout.write(`rows: ${JSON.stringify(counts.rows[0])}\n`);

    const adminFilter = { accountId: BIG, visibleInboxIds: null, userId: 105 };
    const agentFilter = { accountId: BIG, visibleInboxIds: [1, 2, 3], userId: 200 };
    const cases = [
      ['administrator, default list (status open, newest activity first), page 1', listQuery(adminFilter, 'last_activity_at_desc', 1)],
      ['administrator, meta counts of the default list', metaQuery(adminFilter)],
      ['administrator, default list, the statement as run (pageQuery: counts, teams, page, extras, copies), page 1', pageQuery(adminFilter, 'last_activity_at_desc', 1)],
      ['agent seeing 3 of 10 inboxes, default list, page 1', listQuery(agentFilter, 'last_activity_at_desc', 1)],
      ['agent seeing 3 of 10 inboxes, meta counts', metaQuery(agentFilter)],
      ['administrator, status=all, labels=vip, page 1', listQuery({ ...adminFilter, status: 'all', labels: ['vip'] }, 'last_activity_at_desc', 1)],
      ['administrator, q=parcel, page 1', listQuery({ ...adminFilter, q: 'parcel' }, 'last_activity_at_desc', 1)],
      ['administrator, q=parcel, meta counts', metaQuery({ ...adminFilter, q: 'parcel' })],
      ['administrator, status=open, sort_by=priority_desc, page 1', listQuery(adminFilter, 'priority_desc', 1)],
    ];
    // POST /conversations/filter: the page and the counts of a few typical filters.
    const cond = (attribute_key, filter_operator, values, query_operator) => ({ attribute_key, filter_operator, values, query_operator });
    const filters = [
      ['open and unassigned', [cond('status', 'equal_to', ['open'], 'AND'), cond('assignee_id', 'is_not_present', [])]],
      ['labels vip or priority urgent', [cond('labels', 'equal_to', ['vip'], 'OR'), cond('priority', 'equal_to', ['urgent'])]],
      ['resolved and created more than 30 days ago', [cond('status', 'equal_to', ['resolved'], 'AND'), cond('created_at', 'days_before', [30])]],
      ['assignee 105 and referer contains shop', [cond('assignee_id', 'equal_to', [105], 'AND'), cond('referer', 'contains', ['shop'])]],
    ];
    for (const [label, conditions] of filters) {
      for (const [who, scope] of [['administrator', adminFilter], ['agent (3 of 10 inboxes)', agentFilter]]) {
        const q = filterQueries(scope, checkFilter(conditions, CONVERSATION_FILTER_KEYS, () => undefined), 1);
        cases.push([`filter, ${who}: ${label}, page 1`, q.page], [`filter, ${who}: ${label}, counts`, q.count]);
      }
    }
    for (const [label, q] of cases) {
      for (let i = 0; i < 2; i++) await pool.query(q.text, q.values); // warm the cache
      const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values);
      process.stdout.write(`\n### ${label}\n\n${q.text.replace(/\s+/g, ' ')}\n${JSON.stringify(q.values)}\n\n`);
      process.stdout.write(`${plan.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}\n`);
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
