#!/usr/bin/env node
/* Fills ONE account of a running stack with a data set of a given size, fast (issue 12).
 *
 *   node scripts/bench/generate.js              # the large set against GATEWAY_URL / DATABASE_URL
 *   BENCH_GEN_CONVERSATIONS=300 ... node scripts/bench/generate.js   # any size (see SIZES)
 *
 * What goes through the public API (so every service sees the events it would see): the account
 * (Platform API), its administrator, the agents, teams, inboxes, inbox members, labels and
 * automation rules. What is written in bulk, straight into each owning service's own schema with
 * server-side multi-row INSERT ... SELECT (no rows cross the wire): contacts and contact inboxes
 * (contacts schema), the copies of the contacts the conversations and automation services keep
 * (their projection kit tables, as their consumers write them: the contact's snapshot at the
 * contact's version), conversations (display ids from the account's counter, last activity,
 * waiting/first reply/seen times so unread counts and `unattended` mean something, labels,
 * teams, assignees, participants), their messages (incoming and outgoing with trigram-searchable
 * content, activity messages for resolved ones, read/sent status), the reports service's
 * conversation read model, facts and reporting events (fillReports), and audit entries (audit schema, with the per-account count and the
 * per-auditable version rows ingest keeps). For large inserts the table's secondary indexes are
 * dropped and rebuilt in the same transaction (a crash leaves the table as it was).
 *
 * Idempotent: a filled account is renamed `Parley bench <label> <sizes>` at the very end; the
 * next run finds it by that name (and checks its conversation count) and reuses it.
 * What a data set made by an earlier version lacks (the reports' facts and events, agents up
 * to `agents`) is added to it then.
 * ANALYZE runs after filling. Prints how long each part took.
 *
 * Needs the stack running (the gateway at `base`) and the superuser URL of its database.
 */
const path = require('node:path');
const { Client } = require('pg');
const { callApi } = require('../bench-http');

const LARGE = { conversations: 100_000, messages: 1_000_000, contacts: 50_000, inboxes: 20, agents: 200, labels: 200, rules: 50, teams: 10, audit: 2_000_000 };
const SMALL = { conversations: 300, messages: 3_000, contacts: 150, inboxes: 2, agents: 5, labels: 20, rules: 5, teams: 2, audit: 1_000 };
/** Tables bigger than this many new rows are loaded with their secondary indexes dropped and rebuilt. */
const REBUILD_OVER = 200_000;
const root = path.resolve(__dirname, '..', '..');

function sizesFromEnv(base = LARGE) {
  const out = { ...base };
  for (const k of Object.keys(out)) {
    const v = process.env[`BENCH_GEN_${k.toUpperCase()}`];
    if (v !== undefined && v !== '') out[k] = Number(v);
  }
  return out;
}

const sizeTag = (s) => `${s.conversations}c/${s.messages}m/${s.contacts}p/${s.audit}a`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

/** `timed(what, fn)`: runs fn, logs how long it took, answers its result. */
const timedBy = (log) => async (what, fn) => {
  const t = Date.now();
  const r = await fn();
  log(`  ${what}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return r;
};

/** Reserves `n` ids of a table's identity sequence; answers the first. */
async function reserveIds(db, table, n) {
  const { rows } = await db.query(`SELECT setval(s, nextval(s) + $1::bigint - 1) - $1::bigint + 1 AS first FROM pg_get_serial_sequence($2, 'id') AS s`, [n, table]);
  return Number(rows[0].first);
}

/** Drops the table's non-constraint indexes (in the caller's transaction); answers their definitions for rebuildIndexes. */
async function dropIndexes(db, schema, table) {
  const { rows } = await db.query(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = $1 AND i.tablename = $2
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)`,
    [schema, table],
  );
  for (const r of rows) await db.query(`DROP INDEX ${schema}.${r.indexname}`);
  return rows;
}

async function rebuildIndexes(db, schema, table, defs, log) {
  if (!defs.length) return;
  const t = Date.now();
  await db.query(`SET LOCAL maintenance_work_mem = '512MB'`);
  for (const r of defs) await db.query(r.indexdef);
  log(`    rebuilt ${defs.length} indexes of ${schema}.${table} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

/** Runs `load` with the table's non-constraint indexes dropped (when `rebuild`), then rebuilds them; one transaction. */
async function withIndexesRebuilt(db, schema, table, rebuild, load, log) {
  await db.query('BEGIN');
  try {
    const defs = rebuild ? await dropIndexes(db, schema, table) : [];
    await load();
    await rebuildIndexes(db, schema, table, defs, log);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** The account's facts the scenarios need, read back from the services' schemas. */
async function describe(db, accountId) {
  const one = async (sql, params) => (await db.query(sql, params)).rows[0];
  const admin = await one(
    `SELECT u.id, t.token FROM gateway.account_users au JOIN gateway.users u ON u.id = au.user_id
       JOIN gateway.access_tokens t ON t.owner_type = 'User' AND t.owner_id = u.id
      WHERE au.account_id = $1 AND au.role = 'administrator' ORDER BY au.id LIMIT 1`,
    [accountId],
  );
  const inboxes = (await db.query('SELECT id, identifier FROM conversations.inboxes WHERE account_id = $1 ORDER BY id', [accountId])).rows;
  const labels = (await db.query('SELECT title FROM conversations.labels WHERE account_id = $1 ORDER BY id', [accountId])).rows.map((r) => r.title);
  const teams = (await db.query('SELECT id FROM gateway.teams WHERE account_id = $1 ORDER BY id', [accountId])).rows.map((r) => r.id);
  const counts = await one(
    `SELECT (SELECT count(*)::int FROM conversations.conversations WHERE account_id = $1) AS conversations,
            (SELECT count(*)::int FROM conversations.messages WHERE account_id = $1) AS messages,
            (SELECT count(*)::int FROM contacts.contacts WHERE account_id = $1) AS contacts,
            (SELECT coalesce(max(entries), 0)::int FROM audit.audit_log_counts WHERE account_id = $1) AS audit,
            (SELECT count(*)::int FROM gateway.account_users WHERE account_id = $1) AS users,
            (SELECT count(*)::int FROM automation.automation_rules WHERE account_id = $1) AS rules`,
    [accountId],
  );
  // A conversation of the first inbox whose contact inbox the public API can reach.
  const pub = await one(
    `SELECT c.display_id, c.contact_inbox_source_id AS source_id, c.inbox_id FROM conversations.conversations c
      WHERE c.account_id = $1 AND c.inbox_id = $2 AND c.status = 'open' ORDER BY c.id DESC LIMIT 1`,
    [accountId, inboxes[0]?.id ?? 0],
  );
  const identifier = inboxes.find((i) => i.id === pub?.inbox_id)?.identifier ?? inboxes[0]?.identifier;
  return { accountId, token: admin?.token, adminId: admin?.id, inboxes, labels, teams, counts, publicConversation: pub ? { ...pub, identifier } : null };
}

async function findFilled(db, name, expectConversations) {
  const { rows } = await db.query('SELECT id FROM gateway.accounts WHERE name = $1 ORDER BY id DESC', [name]);
  for (const r of rows) {
    const { rows: c } = await db.query('SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1', [r.id]);
    if (c[0].n === expectConversations) return r.id;
  }
  return null;
}

/** Waits until the services' copies of what the API made exist (the bulk rows refer to them). */
async function waitFor(db, sql, params, want, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query(sql, params);
    if (Number(rows[0].n) >= want) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${rows[0].n}/${want})`);
    await sleep(200);
  }
}

async function createThroughApi(base, platformToken, label, s, log) {
  const call = (method, p, token, body) => callApi(base, method, p, token, body);
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const account = await call('POST', '/platform/api/v1/accounts', platformToken, { name: `Parley bench ${label} (filling ${stamp})`, features: { audit_logs: true } });
  const user = await call('POST', '/platform/api/v1/users', platformToken, { name: 'Bench Admin', email: `bench-admin-${stamp}@example.com` });
  await call('POST', `/platform/api/v1/accounts/${account.id}/account_users`, platformToken, { user_id: user.id, role: 'administrator' });
  const token = user.access_token;
  const A = `/api/v1/accounts/${account.id}`;
  const agents = await pool(Array.from({ length: Math.max(0, s.agents - 1) }, (_, i) => i), 6, (i) =>
    call('POST', `${A}/agents`, token, { name: `Agent ${i + 1}`, email: `bench-agent-${i + 1}-${stamp}@example.com`, role: 'agent' }),
  );
  const teams = await pool(Array.from({ length: s.teams }, (_, i) => i), 6, (i) => call('POST', `${A}/teams`, token, { name: `Team ${i + 1}`, description: 'bench' }));
  const inboxes = await pool(Array.from({ length: s.inboxes }, (_, i) => i), 6, (i) => call('POST', `${A}/inboxes`, token, { name: `Inbox ${i + 1}`, channel: { type: 'api' } }));
  // Each agent is a member of a few inboxes (round-robin), as teams usually split the work.
  await pool(inboxes, 6, (inbox, i) => {
    const ids = agents.filter((_, k) => k % inboxes.length === i || (k + 1) % inboxes.length === i).map((a) => a.id);
    return ids.length ? call('POST', `${A}/inbox_members`, token, { inbox_id: inbox.id, user_ids: ids }) : null;
  });
  const colors = ['#1f93ff', '#ff6b6b', '#12b886', '#fab005', '#7950f2'];
  const labelTitles = Array.from({ length: s.labels }, (_, i) => (i === 0 ? 'vip' : i === 1 ? 'billing' : `topic-${String(i).padStart(3, '0')}`));
  await pool(labelTitles, 6, (title, i) => call('POST', `${A}/labels`, token, { title, description: `Label ${title}`, color: colors[i % colors.length], show_on_sidebar: i < 20 }));
  // Rules over the usual events; none of them fires on the generated rows (they are not events).
  const ruleKinds = [
    (i) => ({ event_name: 'message_created', conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: [`promo-${i}`], query_operator: null }], actions: [{ action_name: 'add_label', action_params: [labelTitles[i % labelTitles.length]] }] }),
    (i) => ({ event_name: 'conversation_created', conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: 'and' }, { attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [inboxes[i % inboxes.length].id], query_operator: null }], actions: [{ action_name: 'assign_team', action_params: [teams[i % teams.length]?.id ?? 1] }] }),
    (i) => ({ event_name: 'conversation_updated', conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['resolved'], query_operator: null }], actions: [{ action_name: 'add_label', action_params: [labelTitles[(i * 7) % labelTitles.length]] }] }),
  ];
  await pool(Array.from({ length: s.rules }, (_, i) => i), 4, async (i) => {
    const body = { name: `Rule ${i + 1}`, description: 'bench', active: true, ...ruleKinds[i % ruleKinds.length](i) };
    try {
      return await call('POST', `${A}/automation_rules`, token, body);
    } catch (err) {
      // A rule kind this build refuses (say, assign_team without teams): fall back to the first kind.
      if (i % ruleKinds.length === 0) throw err;
      return call('POST', `${A}/automation_rules`, token, { name: `Rule ${i + 1}`, description: 'bench', active: true, ...ruleKinds[0](i) });
    }
  });
  log(`  API: account ${account.id}, ${agents.length + 1} users, ${teams.length} teams, ${inboxes.length} inboxes, ${labelTitles.length} labels, ${s.rules} rules`);
  return { accountId: account.id, adminId: user.id, agentIds: [user.id, ...agents.map((a) => a.id)], teamIds: teams.map((t) => t.id), inboxIds: inboxes.map((i) => i.id), labelTitles };
}

async function bulk(db, made, s, log) {
  const A = made.accountId;
  const timed = timedBy(log);
  // The services' copies of the API-made records must exist before rows refer to them.
  await waitFor(db, `SELECT count(*) AS n FROM contacts.projections WHERE account_id = $1 AND kind = 'inbox'`, [A], made.inboxIds.length, 'the contacts service to project the inboxes');

  const K = s.contacts;
  const C = s.conversations;
  const M = Math.max(1, Math.round(s.messages / Math.max(1, C)));
  const firstContact = await reserveIds(db, 'contacts.contacts', K);
  const firstContactInbox = await reserveIds(db, 'contacts.contact_inboxes', K);
  const firstConversation = await reserveIds(db, 'conversations.conversations', C);
  const params = { A, K, C, M, firstContact, firstContactInbox, firstConversation, inboxes: made.inboxIds, agents: made.agentIds, teams: made.teamIds, labels: made.labelTitles };
  // Activity spread over the last 400 days, newest now.
  const spanSec = 400 * 86_400;

  // Display ids follow the account's counter (the API made none yet for this account).
  const { rows: ctr } = await db.query(
    `INSERT INTO conversations.account_counters (account_id, last_display_id) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET last_display_id = account_counters.last_display_id + $2 RETURNING last_display_id - $2 AS base`,
    [A, C],
  );
  const displayBase = Number(ctr[0].base);
  // Conversation g (0-based): contact g % K (so each contact has C/K conversations in its contact inbox);
  // 30% open, 60% resolved, 5% pending, 5% snoozed; a quarter unassigned; a third in a team;
  // four in five labelled; some prioritised; created over the span, M messages 7 minutes apart.
  const convSelect = `
    SELECT g, $2::bigint + g AS id, $3::int + g + 1 AS display_id, ($14::int[])[1 + (g % $13::int) % cardinality($14::int[])] AS inbox_id,
           $15::int + g % $13::int AS contact_id, $12::int + g % $13::int AS contact_inbox_id, md5('bench-src-' || $1::int || '-' || (g % $13::int))::uuid::text AS source_id,
           CASE WHEN g % 20 < 6 THEN 'open' WHEN g % 20 < 18 THEN 'resolved' WHEN g % 20 = 18 THEN 'pending' ELSE 'snoozed' END AS status,
           CASE WHEN g % 4 = 0 THEN NULL ELSE ($6::int[])[1 + (g / 4) % cardinality($6::int[])] END AS assignee_id,
           CASE WHEN g % 3 = 0 AND cardinality($7::int[]) > 0 THEN ($7::int[])[1 + (g / 3) % cardinality($7::int[])] END AS team_id,
           CASE WHEN g % 5 = 0 THEN '{}'::text[]
                WHEN g % 7 = 0 AND cardinality($8::text[]) > 1 THEN ARRAY[($8::text[])[1 + g % cardinality($8::text[])], ($8::text[])[1 + (g % cardinality($8::text[]) + 1 + (g / 7) % (cardinality($8::text[]) - 1)) % cardinality($8::text[])]]
                ELSE ARRAY[($8::text[])[1 + (g * 31) % cardinality($8::text[])]] END AS labels,
           CASE WHEN g % 11 = 0 THEN (g / 11) % 4 END AS priority,
           now() - $9::int * interval '1 second' + ((g * 7919) % $4::int)::float / $4::int * ($9::int - $5::int * 420) * interval '1 second' AS created_at
      FROM generate_series($10::int, $11::int - 1) AS g`;
  const convParams = (from, to) => [A, firstConversation, displayBase, C, M, made.agentIds, made.teamIds, made.labelTitles, spanSec, from, to, firstContactInbox, K, made.inboxIds, firstContact];
  const chunk = 20_000;
  await timed(`conversations (${C})`, () =>
    withIndexesRebuilt(db, 'conversations', 'conversations', C >= 50_000, async () => {
      for (let from = 0; from < C; from += chunk) {
        const to = Math.min(C, from + chunk);
        await db.query(
          `INSERT INTO conversations.conversations (id, account_id, display_id, inbox_id, contact_id, contact_inbox_id, contact_inbox_source_id, status, priority,
             assignee_id, team_id, snoozed_until, labels, last_activity_at, waiting_since, first_reply_created_at, agent_last_seen_at, assignee_last_seen_at,
             contact_last_seen_at, created_at, updated_at)
           OVERRIDING SYSTEM VALUE
           SELECT x.id, $1, x.display_id, x.inbox_id, x.contact_id, x.contact_inbox_id, x.source_id, x.status, x.priority, x.assignee_id, x.team_id,
                  CASE WHEN x.status = 'snoozed' THEN now() + interval '1 day' + (x.g % 48) * interval '1 hour' END, x.labels,
                  x.created_at + ($5::int - 1) * interval '7 minutes',
                  CASE WHEN x.g % 3 = 1 AND x.status <> 'resolved' THEN x.created_at + ($5::int - 1) * interval '7 minutes' END,
                  CASE WHEN $5::int > 1 THEN x.created_at + interval '7 minutes' END,
                  CASE WHEN x.g % 2 = 0 THEN x.created_at + ($5::int - 1) * interval '7 minutes' ELSE x.created_at + least(3, $5::int - 1) * interval '7 minutes' END,
                  CASE WHEN x.assignee_id IS NOT NULL THEN x.created_at + least(3, $5::int - 1) * interval '7 minutes' END,
                  x.created_at + greatest(0, $5::int - 2) * interval '7 minutes',
                  x.created_at, x.created_at + ($5::int - 1) * interval '7 minutes'
             FROM (${convSelect}) x`,
          convParams(from, to),
        );
      }
    }, log),
  );
  await timed(`participants`, () =>
    db.query(
      `INSERT INTO conversations.conversation_participants (account_id, conversation_id, user_id, created_at)
       SELECT account_id, id, assignee_id, created_at FROM conversations.conversations
        WHERE account_id = $1 AND id BETWEEN $2::bigint AND $2::bigint + $3::int - 1 AND assignee_id IS NOT NULL ON CONFLICT DO NOTHING`,
      [A, firstConversation, C],
    ),
  );
  // Message i of conversation g: even i incoming from the contact, odd i the agent's reply; the last
  // is incoming for a third of the unresolved ones (they wait), an activity for resolved ones.
  // Content from small vocabularies: 'refund' in about 1 incoming message of 100 (some 5% of the
  // conversations), 'parcel' in 1 of 500, so `q` has a common and a rare realistic hit.
  const msgCount = C * M;
  await timed(`messages (${msgCount})`, () =>
    withIndexesRebuilt(db, 'conversations', 'messages', msgCount > REBUILD_OVER, async () => {
      for (let from = 0; from < C; from += chunk) {
        const to = Math.min(C, from + chunk);
        await db.query(
          `INSERT INTO conversations.messages (account_id, inbox_id, conversation_id, message_type, content, status, sender_type, sender_id, created_at, updated_at)
           SELECT $1, c.inbox_id, c.id, t.mt,
                  CASE t.mt
                    WHEN 0 THEN (ARRAY['My order','The invoice','Delivery','My account','The subscription','The package','My payment','The app','My booking','The voucher'])[1 + (c.id + i) % 10]
                         || ' #' || (c.display_id * 10 + i) || ' ' ||
                         CASE WHEN (c.id * 7 + i) % 500 = 0 THEN 'never arrived, where is my parcel?'
                              WHEN (c.id * 7 + i) % 97 = 3 THEN 'is broken and I want a refund'
                              ELSE (ARRAY['is late','is wrong','was charged twice','needs a change','does not load','shows an error','arrived damaged','was cancelled',
                                          'needs an update','is missing an item','cannot be found','asks for a password','is not what I ordered','keeps failing',
                                          'was sent twice','has the wrong address','is too expensive','needs a receipt','stopped working','is still pending',
                                          'was delivered to a neighbour','needs a new card','is blocked','needs a new date','looks fine now, thanks'])[1 + (c.id * 3 + i * 5) % 25] END
                    WHEN 1 THEN (ARRAY['Thanks for writing, we are looking into it','Could you send the order number?','I have forwarded this to billing',
                                       'The courier confirmed the delivery window','I issued a new invoice for you','Please try again now',
                                       'Your account is unlocked','I have updated the address'])[1 + (c.id + i) % 8] || ' (ticket ' || c.display_id || ')'
                    ELSE 'Conversation was marked resolved by Agent ' || coalesce(c.assignee_id, 0) END,
                  CASE WHEN t.mt = 1 AND c.created_at + i * interval '7 minutes' <= c.contact_last_seen_at THEN 'read' ELSE 'sent' END,
                  CASE t.mt WHEN 0 THEN 'Contact' WHEN 1 THEN 'User' END,
                  CASE t.mt WHEN 0 THEN c.contact_id WHEN 1 THEN coalesce(c.assignee_id, $3::int) END,
                  c.created_at + i * interval '7 minutes', c.created_at + i * interval '7 minutes'
             FROM conversations.conversations c
             CROSS JOIN generate_series(0, $2::int - 1) AS i
             CROSS JOIN LATERAL (SELECT CASE WHEN i = $2::int - 1 AND c.status = 'resolved' AND $2::int > 1 THEN 2
                                             WHEN i = $2::int - 1 AND c.waiting_since IS NOT NULL THEN 0
                                             ELSE i % 2 END AS mt) t
            WHERE c.account_id = $1 AND c.id BETWEEN $4::bigint AND $5::bigint
            ORDER BY c.id, i`,
          [A, M, made.adminId, firstConversation + from, firstConversation + to - 1],
        );
      }
    }, log),
  );
  await timed(`contacts (${K})`, () =>
    withIndexesRebuilt(db, 'contacts', 'contacts', K > REBUILD_OVER, () =>
      db.query(
        `INSERT INTO contacts.contacts (id, account_id, name, email, phone_number, identifier, additional_attributes, custom_attributes, blocked, labels, last_activity_at, created_at, updated_at)
         SELECT $2::int + k, $1, f.first || ' ' || f.last, lower(f.first || '.' || f.last || '.' || k || '@example.com'),
                CASE WHEN k % 3 <> 0 THEN '+1555' || lpad(k::text, 7, '0') END,
                CASE WHEN k % 5 = 0 THEN 'crm-' || k END,
                CASE WHEN k % 4 = 0 THEN jsonb_build_object('city', (ARRAY['Berlin','Lisbon','Austin','Osaka','Lagos'])[1 + k % 5], 'company_name', 'Company ' || (k % 997)) ELSE '{}'::jsonb END,
                CASE WHEN k % 6 = 0 THEN jsonb_build_object('plan', (ARRAY['free','pro','enterprise'])[1 + k % 3]) ELSE '{}'::jsonb END,
                k % 500 = 7,
                CASE WHEN k % 10 = 0 THEN ARRAY['vip'] ELSE '{}'::text[] END,
                la.last_at,
                least(now() - $3::int * interval '1 second' + (k::float / $4::int * $3::int) * interval '1 second', la.first_at - interval '1 hour'),
                coalesce(la.last_at, now())
           FROM generate_series(0, $4::int - 1) AS k
           LEFT JOIN (SELECT contact_id, min(created_at) AS first_at, max(last_activity_at) AS last_at FROM conversations.conversations
                       WHERE account_id = $1 AND id BETWEEN $5::bigint AND $5::bigint + $6::int - 1 GROUP BY contact_id) la ON la.contact_id = $2::int + k
           CROSS JOIN
                LATERAL (SELECT (ARRAY['Amelia','Noah','Olivia','Liam','Ava','Mateo','Mia','Lucas','Zoe','Ethan','Ines','Yuki','Amara','Omar','Sofia','Kenji'])[1 + k % 16] AS first,
                                (ARRAY['Brown','Garcia','Muller','Silva','Tanaka','Okafor','Rossi','Novak','Larsen','Kim','Dubois','Haddad','Costa'])[1 + (k / 16) % 13] AS last) f`,
        [A, firstContact, spanSec, K, firstConversation, C],
      ),
    log),
  );
  await timed(`contact inboxes (${K})`, () =>
    db.query(
      `INSERT INTO contacts.contact_inboxes (id, account_id, contact_id, inbox_id, source_id, created_at, updated_at)
       SELECT $2::int + k, $1, $3::int + k, ($4::int[])[1 + k % cardinality($4::int[])], md5('bench-src-' || $1::int || '-' || k)::uuid::text, c.created_at, c.created_at
         FROM generate_series(0, $5::int - 1) AS k JOIN contacts.contacts c ON c.id = $3::int + k`,
      [A, firstContactInbox, firstContact, made.inboxIds, K],
    ),
  );
  await timed(`contact copies in conversations and automation (${K} each)`, async () => {
    await db.query(contactCopiesSql('conversations'), [A, firstContact, K]);
    await db.query(contactCopiesSql('automation'), [A, firstContact, K]);
  });
  await fillRealtime(db, A, log);

  await timed('reports read model', () =>
    db.query(
      `INSERT INTO reports.conversations (account_id, id, inbox_id, status, assignee_id, team_id, labels, waiting_since, first_reply_created_at, created_at, version_at)
       SELECT account_id, display_id, inbox_id, status, assignee_id, team_id, labels, waiting_since, first_reply_created_at, date_trunc('second', created_at), updated_at
         FROM conversations.conversations WHERE account_id = $1 AND id BETWEEN $2::bigint AND $2::bigint + $3::int - 1 ON CONFLICT DO NOTHING`,
      [A, firstConversation, C],
    ),
  );

  await timed('analyze', async () => {
    for (const t of ['contacts.contacts', 'contacts.contact_inboxes', 'conversations.projections', 'automation.projections', 'conversations.conversations', 'conversations.messages',
      'conversations.conversation_participants', 'reports.conversations']) {
      await db.query(`ANALYZE ${t}`);
    }
  });
}

/**
 * The audit service's entries, on a connection of its own: nothing else the generator writes
 * reads them, so they are written while the other schemas are (Postgres runs each connection's
 * INSERT ... SELECT on one core, and the machine has two: about a minute less on a fresh machine).
 */
async function fillAudit(db, made, s, log) {
  const A = made.accountId;
  const N = s.audit;
  const timed = timedBy(log);
  // Audit entries: eight kinds of record, mostly updates; auditable ids above any the API made
  // (so versions never collide with real entries); one entry every few seconds up to now.
  const auditChunk = 250_000;
  await timed(`audit entries (${N})`, () =>
    withIndexesRebuilt(db, 'audit', 'audit_logs', N > REBUILD_OVER, async () => {
      for (let from = 0; from < N; from += auditChunk) {
        const to = Math.min(N, from + auditChunk) - 1;
        await db.query(
          `INSERT INTO audit.audit_logs (account_id, auditable_type, auditable_id, associated_type, associated_id, action, audited_changes,
             auditable, user_id, user_type, username, request_uuid, remote_address, version, event_id, created_at)
           SELECT $1, typ, 1000000 + g / 10, 'Account', $1, act,
                  CASE WHEN act = 'update' THEN jsonb_build_object('name', jsonb_build_array('old ' || g, 'new ' || g)) ELSE jsonb_build_object('id', 1000000 + g / 10, 'name', 'thing ' || g) END,
                  jsonb_build_object('id', 1000000 + g / 10, 'name', 'thing ' || g), uid, 'User', 'bench-user-' || uid || '@example.com',
                  md5('req' || $1::bigint || '-' || g), '203.0.113.' || (g % 200), g % 10 + 1, md5('bench-audit-' || $1::bigint || '-' || g)::uuid,
                  now() - ($2::bigint - g) * interval '6 seconds'
             FROM (SELECT g,
                          (ARRAY['Webhook','AutomationRule','AccountUser','Inbox','Article','Label','Team','CannedResponse'])[1 + (g / 10) % 8] AS typ,
                          CASE WHEN g % 10 = 0 THEN 'create' WHEN g % 10 = 9 AND (g / 10) % 5 = 0 THEN 'destroy' ELSE 'update' END AS act,
                          ($5::int[])[1 + (g / 7) % cardinality($5::int[])] AS uid
                     FROM generate_series($3::bigint, $4::bigint) AS g) s`,
          [A, N, from, to, made.agentIds],
        );
      }
    }, log),
  );
  await db.query(
    `INSERT INTO audit.audit_log_counts (account_id, entries) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET entries = audit_log_counts.entries + EXCLUDED.entries`,
    [A, N],
  );
  await db.query(
    `INSERT INTO audit.audit_log_versions (account_id, auditable_type, auditable_id, last_version)
     SELECT account_id, auditable_type, auditable_id, max(version) FROM audit.audit_logs WHERE account_id = $1 AND auditable_id >= 1000000 GROUP BY 1, 2, 3
     ON CONFLICT (account_id, auditable_type, auditable_id) DO UPDATE SET last_version = GREATEST(audit_log_versions.last_version, EXCLUDED.last_version)`,
    [A],
  );
  for (const t of ['audit.audit_logs', 'audit.audit_log_versions', 'audit.audit_log_counts']) await db.query(`ANALYZE ${t}`);
}

/** The contact snapshot as contacts publishes it (contactSnapshot in its serializers), at the contact's version: $1 account, contacts $2 to $2 + $3 - 1. */
const contactCopiesSql = (schema) =>
  `INSERT INTO ${schema}.projections (account_id, kind, id, data, version_at)
   SELECT c.account_id, 'contact', c.id,
          jsonb_build_object('id', c.id, 'account_id', c.account_id, 'name', c.name, 'email', c.email, 'phone_number', c.phone_number,
            'identifier', c.identifier, 'thumbnail', '', 'avatar_url', NULL, 'additional_attributes', c.additional_attributes,
            'custom_attributes', c.custom_attributes, 'blocked', c.blocked, 'availability_status', 'offline',
            'last_activity_at', floor(extract(epoch FROM c.last_activity_at))::bigint, 'created_at', floor(extract(epoch FROM c.created_at))::bigint,
            'labels', to_jsonb(c.labels), 'updated_at', floor(extract(epoch FROM c.updated_at))::bigint),
          c.updated_at
     FROM contacts.contacts c WHERE c.account_id = $1 AND c.id BETWEEN $2::int AND $2::int + $3::int - 1
   ON CONFLICT DO NOTHING`;

/**
 * The realtime service's copies of the account's contacts and its contact inboxes' source ids, as
 * its consumer keeps them from contact.* and contact_inbox.created events: without them every
 * conversation a run first touches is read through to the contacts service (twice: the contact
 * and the source id), which a running deployment never does twice. Only what is missing is
 * written (also added to data sets generated before this step existed).
 */
async function fillRealtime(db, accountId, log) {
  const A = accountId;
  const { rows: [n] } = await db.query(
    `SELECT (SELECT count(*) FROM contacts.contacts WHERE account_id = $1)::int AS contacts,
            (SELECT count(*) FROM realtime.projections WHERE account_id = $1 AND kind = 'contact')::int AS copies,
            (SELECT count(*) FROM contacts.contact_inboxes WHERE account_id = $1)::int AS inboxes,
            (SELECT count(*) FROM realtime.contact_inbox_sources WHERE account_id = $1)::int AS sources,
            (SELECT min(id) FROM contacts.contacts WHERE account_id = $1) AS first, (SELECT max(id) FROM contacts.contacts WHERE account_id = $1) AS last`,
    [A],
  );
  if (n.copies >= n.contacts && n.sources >= n.inboxes) return false;
  const t0 = Date.now();
  if (n.copies < n.contacts) await db.query(contactCopiesSql('realtime'), [A, n.first, n.last - n.first + 1]);
  if (n.sources < n.inboxes) {
    await db.query(
      `INSERT INTO realtime.contact_inbox_sources (account_id, contact_inbox_id, source_id)
       SELECT account_id, id, source_id FROM contacts.contact_inboxes WHERE account_id = $1 ON CONFLICT DO NOTHING`,
      [A],
    );
  }
  await db.query('ANALYZE realtime.projections');
  await db.query('ANALYZE realtime.contact_inbox_sources');
  log(`    realtime's contact copies and source ids (${n.contacts - n.copies} and ${n.inboxes - n.sources} missing): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}

/**
 * The reports read model's creation times in whole seconds, as its consumer writes them (the
 * conversation snapshot's `created_at` is unix seconds), for data sets generated before the
 * generator truncated them: a stored timeline begins at the creation time, and the first event
 * the service wrote on a conversation (seconds) made the next fact's timeline mismatch, so every
 * conversation a run first touched was rebuilt from all its facts (3,867 rebuilds in one rule run).
 * The timelines move with them; their reporting events, derived from the old times, differ by
 * under a second.
 */
async function wholeSecondCreations(db, accountId, log) {
  const t0 = Date.now();
  const { rowCount } = await db.query(
    `UPDATE reports.conversations
        SET created_at = date_trunc('second', created_at),
            timeline = CASE WHEN timeline ? 'createdAt'
                            THEN jsonb_set(timeline, '{createdAt}', to_jsonb(floor((timeline->>'createdAt')::numeric / 1000) * 1000))
                            ELSE timeline END
      WHERE account_id = $1 AND created_at <> date_trunc('second', created_at)`,
    [accountId],
  );
  if (!rowCount) return false;
  // Every row rewritten (created_at is indexed: no HOT update): without this the table and its
  // indexes stay twice their size, and the reports that scan them cost Postgres twice as much.
  await db.query('VACUUM (FULL, ANALYZE) reports.conversations');
  log(`    reports' creation times in whole seconds (${rowCount} conversations): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}

/**
 * The reports service's facts and reporting events for the account's generated conversations
 * (issue 16), in its own schema, as its consumer would have written them from the events of
 * those conversations: a fact per incoming message and public reply (the messages above: time,
 * message id, sender, the conversation's inbox, assignee and team), status facts (every
 * conversation that is not pending now was handed off by a bot a minute after it began; a
 * resolved one was resolved after the fourth message, reopened by the fifth and resolved again
 * with its last), and the reporting events derived from them (with the facts earlier benchmark
 * runs' messages left) by the service's own code
 * (services/reports/dist: deriveReportingEvents, written with one multi-row INSERT per chunk),
 * and its rollups (its rebuild_rollups).
 * About 10 events a conversation: ~1M for the large set. Skipped when the generated facts are in.
 */
async function fillReports(db, accountId, log) {
  const A = accountId;
  // The fact of the account's first generated message is the marker (messages posted by earlier
  // benchmark runs have facts of their own).
  const { rows: have } = await db.query(
    `SELECT EXISTS (SELECT 1 FROM reports.conversation_facts
                     WHERE event_id = md5('bench-fact-m-' || (SELECT min(id) FROM conversations.messages WHERE account_id = $1 AND message_type IN (0, 1)))::uuid) AS yes`,
    [A],
  );
  if (have[0].yes) return false;
  const { rebuildConversations } = require(path.join(root, 'services', 'reports', 'dist', 'events', 'repository'));
  const timed = timedBy(log);
  // Data sets made before the reports read model was generated.
  await db.query(
    `INSERT INTO reports.conversations (account_id, id, inbox_id, status, assignee_id, team_id, labels, waiting_since, first_reply_created_at, created_at, version_at)
     SELECT account_id, display_id, inbox_id, status, assignee_id, team_id, labels, waiting_since, first_reply_created_at, date_trunc('second', created_at), updated_at
       FROM conversations.conversations WHERE account_id = $1 ON CONFLICT DO NOTHING`,
    [A],
  );
  const { rows: n } = await db.query('SELECT count(*)::int AS n FROM conversations.messages WHERE account_id = $1', [A]);
  const rebuild = n[0].n > REBUILD_OVER;
  // One transaction: a run that fails leaves nothing behind (the marker is one of these facts).
  await db.query('BEGIN');
  let total;
  try {
    const factIndexes = rebuild ? await dropIndexes(db, 'reports', 'conversation_facts') : [];
    const eventIndexes = rebuild ? await dropIndexes(db, 'reports', 'reporting_events') : [];
    await timed('reports facts', async () => {
      await db.query(
        `INSERT INTO reports.conversation_facts (account_id, conversation_id, event_id, kind, at, seq, inbox_id, assignee_id, team_id, message_type, private, sender_type, sender_id, automated)
         SELECT m.account_id, c.display_id, md5('bench-fact-m-' || m.id)::uuid, 'message', m.created_at, m.id, c.inbox_id, c.assignee_id, c.team_id, m.message_type, m.private,
                m.sender_type, m.sender_id, false
           FROM conversations.messages m JOIN conversations.conversations c ON c.id = m.conversation_id
          WHERE m.account_id = $1 AND m.message_type IN (0, 1) AND (NOT m.private OR m.sender_type = 'User')`,
        [A],
      );
      // (created_at + 21 min + 1 min, created_at + 28 min) lie between the fourth and the fifth message (7 minutes apart).
      await db.query(
        `INSERT INTO reports.conversation_facts (account_id, conversation_id, event_id, kind, at, seq, inbox_id, assignee_id, team_id, automated, status_from, status_to, actor_type)
         SELECT c.account_id, c.display_id, md5('bench-fact-s-' || c.account_id || '-' || c.display_id || '-' || s.k)::uuid, 'status', s.at, 0, c.inbox_id, c.assignee_id, c.team_id, false,
                s.status_from, s.status_to, s.actor
           FROM conversations.conversations c
           CROSS JOIN LATERAL (VALUES
             (1, c.created_at + interval '1 minute', 'pending', 'open', 'agent_bot', c.status <> 'pending'),
             (2, c.created_at + interval '22 minutes', 'open', 'resolved', 'user', c.status = 'resolved' AND c.updated_at >= c.created_at + interval '35 minutes'),
             (3, c.created_at + interval '28 minutes', 'resolved', 'open', 'contact', c.status = 'resolved' AND c.updated_at >= c.created_at + interval '35 minutes'),
             (4, c.updated_at, 'open', 'resolved', 'user', c.status = 'resolved')) AS s(k, at, status_from, status_to, actor, applies)
          WHERE c.account_id = $1 AND s.applies`,
        [A],
      );
    });
    await rebuildIndexes(db, 'reports', 'conversation_facts', factIndexes, log);
    total = await timed('reports reporting events', async () => {
      // The service's statements name its tables as its own role sees them.
      await db.query('SET LOCAL search_path TO reports');
      let made = 0;
      let after = 0;
      for (;;) {
        const { rows } = await db.query('SELECT id, created_at FROM conversations WHERE account_id = $1 AND id > $2 AND NOT deleted ORDER BY id LIMIT 5000', [A, after]);
        if (rows.length === 0) break;
        made += await rebuildConversations(db, A, rows.map((r) => ({ id: Number(r.id), created_at: r.created_at })), { rollups: false });
        after = Number(rows[rows.length - 1].id);
      }
      return made;
    });
    await rebuildIndexes(db, 'reports', 'reporting_events', eventIndexes, log);
    // Its pre-aggregated numbers, from all of the above (the service's own statement).
    await timed('reports rollups', () => db.query('SELECT reports.rebuild_rollups($1)', [A]));
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  for (const t of ['reports.conversations', 'reports.conversation_facts', 'reports.reporting_events', 'reports.rollups']) await db.query(`ANALYZE ${t}`);
  log(`  reports: ${total} reporting events`);
  return true;
}

/** Agents up to `want` (a data set made when the large one had 50), through the API as at first. */
async function fillAgents(base, db, accountId, want, log) {
  const d = await describe(db, accountId);
  const missing = want - d.counts.users;
  if (missing <= 0 || !d.token) return false;
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  await pool(Array.from({ length: missing }, (_, i) => i), 6, (i) =>
    callApi(base, 'POST', `/api/v1/accounts/${accountId}/agents`, d.token, { name: `Agent ${d.counts.users + i}`, email: `bench-agent-${d.counts.users + i}-${stamp}@example.com`, role: 'agent' }),
  );
  log(`  API: ${missing} more agents (${want} users)`);
  return true;
}

/**
 * Fills (or finds) the account of `label` with `sizes`. Answers describe() of it and whether it was made now.
 * @param {{ base: string, databaseUrl: string, platformToken: string, label: string, sizes?: object, log?: (s: string) => void }} o
 */
async function generate(o) {
  const s = { ...LARGE, ...(o.sizes ?? {}) };
  const log = o.log ?? ((line) => process.stdout.write(`${line}\n`));
  const name = `Parley bench ${o.label} ${sizeTag(s)}`;
  const db = new Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    const found = await findFilled(db, name, s.conversations);
    if (found !== null) {
      log(`[generate] reusing account ${found} (${name})`);
      // What later versions of this generator add: filled in once, then found as is.
      const t0 = Date.now();
      const added =
        (await fillAgents(o.base, db, found, s.agents, log)) |
        (await fillReports(db, found, log)) |
        (await fillRealtime(db, found, log)) |
        (await wholeSecondCreations(db, found, log));
      return { ...(await describe(db, found)), generatedNow: false, seconds: added ? (Date.now() - t0) / 1000 : 0 };
    }
    const t0 = Date.now();
    log(`[generate] filling a new account: ${name}`);
    const made = await createThroughApi(o.base, o.platformToken, o.label, s, log);
    // The audit entries alongside the rest, each on its own connection (the first failure is thrown
    // once both have ended, so neither connection is closed under a running statement).
    const auditDb = new Client({ connectionString: o.databaseUrl });
    await auditDb.connect();
    try {
      const ends = await Promise.allSettled([
        (async () => {
          await bulk(db, made, s, log);
          await fillReports(db, made.accountId, log);
        })(),
        fillAudit(auditDb, made, s, log),
      ]);
      const failed = ends.filter((e) => e.status === 'rejected').map((e) => e.reason);
      if (failed.length > 1) log(`[generate] the audit entries failed too: ${failed[1]?.stack ?? failed[1]}`);
      if (failed.length > 0) throw failed[0];
    } finally {
      await auditDb.end();
    }
    // Done: the name is the marker the next run looks for.
    await callApi(o.base, 'PATCH', `/platform/api/v1/accounts/${made.accountId}`, o.platformToken, { name });
    const seconds = (Date.now() - t0) / 1000;
    log(`[generate] account ${made.accountId} filled in ${seconds.toFixed(1)} s`);
    return { ...(await describe(db, made.accountId)), generatedNow: true, seconds };
  } finally {
    await db.end();
  }
}

module.exports = { generate, describe, LARGE, SMALL, sizesFromEnv, sizeTag };

if (require.main === module) {
  const base = process.env.GATEWAY_URL || 'http://127.0.0.1:3000';
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley_bench';
  generate({
    base,
    databaseUrl,
    platformToken: process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me',
    label: process.env.BENCH_GEN_LABEL || 'large',
    sizes: sizesFromEnv(process.env.BENCH_GEN_SMALL === '1' ? SMALL : LARGE),
  })
    .then((d) => console.log(JSON.stringify({ accountId: d.accountId, counts: d.counts, seconds: d.seconds }, null, 2)))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
