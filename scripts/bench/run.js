/* The benchmark (issue 12): see scripts/bench.js for how to run it and docs/benchmarks.md for what it measures. */
const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const cpu = require('./proc-cpu');
const { runLoad, warmUp, summarize, setIdle, used: cpuUsed } = require('./load');
const ceilings = require('./ceilings');
const { generate, LARGE, SMALL, sizesFromEnv } = require('./generate');
const report = require('./report');
const { callApi } = require('../bench-http');

const root = path.resolve(__dirname, '..', '..');
const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS || 5);
/** A numeric setting: its default when unset or empty (0 is a value). */
const setting = (name, fallback) => (env[name] === undefined || env[name].trim() === '' ? fallback : Number(env[name]));
/**
 * Before a scenario is measured on the small account, its requests are sent unmeasured, up to
 * BENCH_WARMUP_REQUESTS or for BENCH_WARMUP_SECONDS (five times that for writes: they run at a
 * tenth of a read's rate and their code is spread over every consumer, each getting one event a
 * request), whichever ends first (0: none), writes then drained: the targets are a running
 * service's cost, not V8's first compiles (see warmUp in load.js). Scenarios of one code path (the
 * list's filters, the contacts' sorts, the reports) share it: the first gets the whole warm-up,
 * the others a quarter of it, enough for their own statements.
 */
const WARMUP_REQUESTS = setting('BENCH_WARMUP_REQUESTS', 2000);
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 4);
/** Each scenario measured this many times in a row (experiments: the first against the later ones; the docs are not written). */
const REPEAT = Math.max(1, Math.floor(setting('BENCH_REPEAT', 1)) || 1);
/** The code path a scenario exercises, for its warm-up. */
const pathOf = (key) => (/^(list|contacts|reports)_/.exec(key)?.[1] ?? key);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 16);
const RATE = Number(env.BENCH_RATE || 100);
const RULE_RATE = Number(env.BENCH_RULE_RATE || 200);
/**
 * Rule messages sent unmeasured, at a quarter of RULE_RATE, before the rule effect is measured (0:
 * none). 2,000 (40 s at 50/s): after 400 a stack started for the run still cost 8.1-8.7 CPU ms a rule
 * message and p99 280-495 ms at 200/s, after 2,000 7.7 and 130 ms, as in a full run whose other
 * scenarios had warmed it (2026-11-30, docs/benchmarks.md "Other benchmarks").
 */
const RULE_WARMUP = Math.max(0, Math.floor(setting('BENCH_RULE_WARMUP', 2000)));
const RULE_WARMUP_RATE = Math.max(1, RULE_RATE / 4);
const AUDIT_ENTRIES = Number(env.BENCH_AUDIT_ENTRIES || 20_000);
const PLATFORM = env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';
/** The large data set's database; the small one's is the same name with `_small`. */
const LARGE_URL = env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley_bench';
const SMALL_URL = (() => {
  const u = new URL(LARGE_URL);
  u.pathname = `${u.pathname}_small`;
  return u.toString();
})();
let AMQP_URL = env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
let REDIS_URL = env.REDIS_URL || 'redis://127.0.0.1:6379';
/** Text of the private servers' command lines, for proc-cpu (null: the shared servers, not split). */
const privateMatch = { rabbitmqPgid: null, redis: null };
const NAMESPACE = env.BENCH_NAMESPACE || 'bench.';

const log = (line) => process.stdout.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function portFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}

/**
 * A private RabbitMQ and Redis (packages/testkit), killed with this process if it ends before
 * `stop` (RabbitMQ runs in a process group of its own; testkit keeps each child in `proc`).
 */
async function startPrivateServers() {
  const { PrivateRabbit, PrivateRedis } = require('@parley/testkit');
  const [mq, redis] = await Promise.all([PrivateRabbit.start(), PrivateRedis.start()]);
  const kill = () => {
    for (const [pid, group] of [[mq.proc?.pid, true], [redis.proc?.pid, false]]) {
      if (!pid) continue;
      try {
        process.kill(group ? -pid : pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  };
  process.on('exit', kill);
  const stop = async () => {
    await Promise.all([mq.stop(), redis.stop()].map((p) => p.catch(() => undefined)));
    process.off('exit', kill);
  };
  return { mq, redis, stop };
}

/** Creates the database if it is missing; `fresh`: drops it first (its data set is made again). */
async function ensureDatabase(databaseUrl, { fresh = false } = {}) {
  const DB_NAME = new URL(databaseUrl).pathname.slice(1);
  const u = new URL(databaseUrl);
  u.pathname = '/postgres';
  const c = new Client({ connectionString: u.toString() });
  await c.connect();
  try {
    // Not WITH (FORCE): a session still on it (another run measuring, a psql) is told, not killed.
    if (fresh) {
      await c.query(`DROP DATABASE IF EXISTS ${DB_NAME.replace(/[^A-Za-z0-9_]/g, '')}`).catch((err) => {
        if (err.code === '55006') throw new Error(`database ${DB_NAME} is in use (another benchmark run, a stack left running, a psql session?): end it, or give this run another database (BENCH_DATABASE_URL)`);
        throw err;
      });
    }
    const { rows } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (rows.length === 0) {
      await c.query(`CREATE DATABASE ${DB_NAME.replace(/[^A-Za-z0-9_]/g, '')}`);
      log(`[bench] created database ${DB_NAME}`);
    }
  } finally {
    await c.end();
  }
}

/**
 * Starts scripts/start.js on the first free block of ports from PORT_OFFSET 700 (other stacks on this
 * machine keep theirs). `o`: another checkout's `root` (scripts/bench/ab.js), its servers, namespace and
 * settings of its own (`env`).
 */
async function startStack(databaseUrl, o = {}) {
  const { root: stackRoot = root, amqpUrl = AMQP_URL, redisUrl = REDIS_URL, namespace = NAMESPACE, quiet = false } = o;
  let offset = o.portOffset ?? Number(env.BENCH_PORT_OFFSET || 700);
  for (;; offset += 100) {
    const ports = [...Array.from({ length: 8 }, (_, i) => 3000 + offset + i), ...Array.from({ length: 8 }, (_, i) => 9464 + offset + i)];
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) break;
    if (offset > 5000) throw new Error('no free block of ports for the stack');
  }
  const base = `http://127.0.0.1:${3000 + offset}`;
  if (!quiet) log(`[bench] starting the stack on ${base} against ${databaseUrl} (namespace ${namespace})`);
  const child = spawn(process.execPath, [path.join(stackRoot, 'scripts', 'start.js')], {
    cwd: stackRoot,
    env: {
      ...env,
      DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      REDIS_URL: redisUrl,
      NAMESPACE: namespace,
      PORT_OFFSET: String(offset),
      LOG_LEVEL: 'warn',
      PLATFORM_API_TOKEN: PLATFORM,
      // Out of the way: the benchmark is one client sending thousands of requests a second.
      RATE_LIMIT_PER_IP: '1000000000',
      RATE_LIMIT_PER_TOKEN: '1000000000',
      // The kernel's retention (src/retention.ts) runs every 10 minutes by default: not in the
      // middle of a measured scenario. The data sets' outbox and processed_events rows from
      // earlier runs are pruned before measuring instead (pruneKernelTables in phase()).
      KERNEL_PRUNE_INTERVAL_MS: '0',
      ...o.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = null;
  child.on('exit', (code, signal) => (exited = signal || code));
  // Whatever ends this process ends the stack too (start.js stops its services on SIGTERM).
  process.on('exit', () => exited === null && child.kill('SIGTERM'));
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  for (let i = 0; i < 360; i++) {
    if (exited !== null) throw new Error(`the stack exited (${exited}) before it was ready`);
    const ok = await fetch(`${base}/readyz`).then((r) => r.ok).catch(() => false);
    if (ok) {
      const stop = async () => {
        if (exited !== null) return;
        child.kill('SIGTERM');
        for (let k = 0; k < 100 && exited === null; k++) await sleep(200);
      };
      return { base, child, alive: () => exited === null, stop };
    }
    await sleep(500);
  }
  child.kill('SIGTERM');
  throw new Error('the stack did not become ready in 3 minutes');
}

/** Consumers done: no outbox row unpublished and every consumer queue empty, three times in a row. */
async function makeDrain(db, { amqpUrl = AMQP_URL, namespace = NAMESPACE } = {}) {
  const amqp = ceilings.fromShared('amqplib');
  const { SERVICE_REGISTRY } = require('@parley/shared');
  const queues = SERVICE_REGISTRY.flatMap((s) => s.queues).map((q) => `${namespace}${q}`);
  const { rows } = await db.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox'`);
  const outboxes = rows.map((r) => r.table_schema);
  const conn = await amqp.connect(amqpUrl);
  conn.on('error', () => undefined);
  // checkQueue of a missing queue closes the channel: one channel per check.
  const depth = async (q) => {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    try {
      return (await ch.checkQueue(q)).messageCount;
    } catch {
      return 0;
    } finally {
      await ch.close().catch(() => undefined);
    }
  };
  const pending = async () => {
    let n = 0;
    for (const s of outboxes) n += Number((await db.query(`SELECT count(*) AS n FROM ${s}.outbox WHERE published_at IS NULL`)).rows[0].n);
    for (const q of queues) n += await depth(q);
    return n;
  };
  const drain = async (timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    let quiet = 0;
    while (quiet < 3) {
      quiet = (await pending()) === 0 ? quiet + 1 : 0;
      if (Date.now() > deadline) return false;
      await sleep(150);
    }
    return true;
  };
  return { drain, close: () => conn.close().catch(() => undefined) };
}

/** Conversations of the account the writes spread over (open ones, with what the public API needs to reach them). */
async function writeTargets(db, d, n = 200) {
  // Not the public read's conversation: its answer holds every message, so replies posted to it
  // would make that scenario dearer run after run.
  const { rows } = await db.query(
    `SELECT display_id, contact_inbox_source_id AS source_id, inbox_id FROM conversations.conversations
      WHERE account_id = $1 AND status = 'open' AND display_id <> $3 ORDER BY id DESC LIMIT $2`,
    [d.accountId, n, d.publicConversation?.display_id ?? 0],
  );
  const ident = new Map(d.inboxes.map((i) => [i.id, i.identifier]));
  return rows.map((r) => ({ ...r, identifier: ident.get(r.inbox_id) }));
}

function roundRobin(items) {
  let i = 0;
  return () => items[i++ % items.length];
}

/** The scenarios of one data set: [key, title, kind, requests]. */
function scenarios(d, targets) {
  const H = { api_access_token: d.token, 'content-type': 'application/json' };
  const A = `/api/v1/accounts/${d.accountId}`;
  const get = (p, headers = H) => [{ method: 'GET', path: p, headers }];
  const open = Math.floor((d.counts.conversations * 6) / 20);
  const deep = Math.max(2, Math.min(400, Math.floor(open / 25)));
  const pc = d.publicConversation;
  const nextAgent = roundRobin(targets);
  const nextPublic = roundRobin(targets.filter((t) => t.identifier));
  let n = 0;
  return [
    ['healthz', 'GET /healthz (the gateway alone)', 'read', get('/healthz', {})],
    ['profile', 'GET /api/v1/profile', 'read', get('/api/v1/profile')],
    ['labels', 'GET labels (a proxied small read)', 'read', get(`${A}/labels`)],
    ['list', 'GET conversations (page 1 with counts)', 'read', get(`${A}/conversations`)],
    ['list_status', 'GET conversations?status=resolved', 'read', get(`${A}/conversations?status=resolved`)],
    ['list_assignee', 'GET conversations?assignee_type=me', 'read', get(`${A}/conversations?assignee_type=me`)],
    ['list_inbox', 'GET conversations?inbox_id=<one of the inboxes>', 'read', get(`${A}/conversations?inbox_id=${d.inboxes[1]?.id ?? d.inboxes[0]?.id}`)],
    ['list_labels', 'GET conversations?labels=vip', 'read', get(`${A}/conversations?labels=${encodeURIComponent(d.labels[0] ?? 'vip')}`)],
    ['list_team', 'GET conversations?team_id=<a team>', 'read', get(`${A}/conversations?team_id=${d.teams[0] ?? 1}`)],
    ['list_deep', `GET conversations?page=${deep} (a deep page)`, 'read', get(`${A}/conversations?page=${deep}`)],
    ['q', 'GET conversations?q=refund (search)', 'read', get(`${A}/conversations?q=refund`)],
    ...['name', 'email', 'phone_number', '-last_activity_at', 'created_at'].map((s) => [`contacts_${s.replace('-', '')}`, `GET contacts?sort=${s}`, 'read', get(`${A}/contacts?sort=${s}`)]),
    ...reportScenarios(d, get),
    ...(pc
      ? [['public_read', 'GET public conversation', 'read', get(`/public/api/v1/inboxes/${pc.identifier}/contacts/${pc.source_id}/conversations/${pc.display_id}`, {})]]
      : []),
    [
      'message_create',
      'POST message (account API, with its event fan-out)',
      'write',
      [{ method: 'POST', path: `${A}/conversations/0/messages`, headers: H, setupRequest: (req) => ({ ...req, path: `${A}/conversations/${nextAgent().display_id}/messages`, body: JSON.stringify({ content: `On it! (${++n})`, message_type: 'outgoing' }) }) }],
    ],
    [
      'public_message_create',
      'POST message (public API, with its event fan-out)',
      'write',
      [
        {
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => {
            const t = nextPublic();
            return { ...req, path: `/public/api/v1/inboxes/${t.identifier}/contacts/${t.source_id}/conversations/${t.display_id}/messages`, body: JSON.stringify({ content: `Any news? (${++n})` }) };
          },
        },
      ],
    ],
  ];
}

/**
 * Reports (issue 16), as the dashboard asks for them: a year to the end of today (UTC), which on
 * the large account holds ~1M reporting events (the summary also reads the year before, its
 * `previous`), and shorter windows where a year of buckets would not be read.
 */
function reportScenarios(d, get) {
  const V2 = `/api/v2/accounts/${d.accountId}`;
  const until = Math.ceil(Date.now() / 86_400_000) * 86_400;
  const year = `since=${until - 365 * 86_400}&until=${until}`;
  const month = `since=${until - 30 * 86_400}&until=${until}`;
  const week = `since=${until - 7 * 86_400}&until=${until}`;
  return [
    ['reports_summary', 'GET reports/summary (a year, and the year before)', 'read', get(`${V2}/reports/summary?type=account&${year}`)],
    ['reports_ts_conversations', 'GET reports conversations_count by day (a year)', 'read', get(`${V2}/reports?metric=conversations_count&type=account&group_by=day&${year}`)],
    ['reports_ts_first_response', 'GET reports avg_first_response_time by week, UTC+05:30 (a year)', 'read', get(`${V2}/reports?metric=avg_first_response_time&type=account&group_by=week&timezone_offset=5.5&${year}`)],
    ['reports_ts_resolutions', 'GET reports resolutions_count by month, UTC-3 (a year)', 'read', get(`${V2}/reports?metric=resolutions_count&type=account&group_by=month&timezone_offset=-3&${year}`)],
    ['reports_ts_messages', 'GET reports incoming_messages_count by hour (a week)', 'read', get(`${V2}/reports?metric=incoming_messages_count&type=account&group_by=hour&${week}`)],
    ['reports_ts_reply_bh', 'GET reports reply_time by day, business hours (30 days)', 'read', get(`${V2}/reports?metric=reply_time&type=account&group_by=day&business_hours=true&${month}`)],
    ['reports_agents', 'GET summary_reports/agent (every agent, a year)', 'read', get(`${V2}/summary_reports/agent?${year}`)],
  ];
}

const top = (per, n = 3) =>
  Object.entries(per)
    .filter(([g]) => !['total', 'stack', 'bench', 'postgres_server', 'ceiling'].includes(g) && !g.startsWith('pg_'))
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([g, v]) => `${g} ${v}`)
    .join(', ');

const stackCpu = (per) => {
  if (!per) return null;
  const out = { ...per };
  out.stack = Math.round(((per.total ?? 0) - (per.bench ?? 0) - (per.ceiling ?? 0)) * 100) / 100;
  return out;
};

async function runScenarios(ctx, d, label, modes, { warm = false } = {}) {
  const targets = await writeTargets(ctx.db, d);
  const list = scenarios(d, targets).filter(([key]) => !ctx.only || ctx.only.test(key));
  const out = [];
  const warmed = new Set();
  for (const [key, title, kind, requests] of list) {
    let warmup;
    if (warm && WARMUP_REQUESTS >= 1 && WARMUP_SECONDS > 0 && ctx.stack.alive()) {
      const share = warmed.has(pathOf(key)) ? 0.25 : 1;
      warmed.add(pathOf(key));
      warmup = await warmUp(ctx.base, {
        amount: Math.max(1, Math.round(WARMUP_REQUESTS * share)),
        capSeconds: WARMUP_SECONDS * share * (kind === 'write' ? 5 : 1),
        connections: CONNECTIONS,
        requests,
        afterLoad: kind === 'write' ? () => ctx.drain() : undefined,
      });
      if (!warmup.error) warmup.cpuMsPerRequest = stackCpu(warmup.cpuMsPerRequest);
      log(
        `  ${label.padEnd(5)} warm ${key.padEnd(22)} ${warmup.error ? `ERROR ${warmup.error}` : `${warmup.requests} requests in ${warmup.seconds} s, cold cpu ${warmup.cpuMsPerRequest?.stack} ms/req${warmup.drained === false ? ' (NOT DRAINED: the measurement starts on a backlog)' : ''}`}`,
      );
      await sleep(300);
    }
    for (const mode of Array.from({ length: REPEAT }, () => modes).flat()) {
      if (!ctx.stack.alive()) {
        out.push({ key, title, kind, mode, dataset: label, error: 'the stack is down' });
        continue;
      }
      // (The extension made here if missing: the small data set's database is made again every run.)
      if (env.BENCH_PGSS) await resetStatements(ctx.db);
      const r = await runLoad(ctx.base, {
        seconds: SECONDS,
        connections: mode === 'rate' ? Math.min(CONNECTIONS, 16) : CONNECTIONS,
        rate: mode === 'rate' ? RATE : undefined,
        requests,
        afterLoad: kind === 'write' ? () => ctx.drain() : undefined,
      });
      const { cpuMsNet: _net, ...measured } = r;
      const row = { key, title, kind, mode, dataset: label, ...measured, cpuMsPerRequest: stackCpu(r.cpuMsPerRequest), ...(warmup && !warmup.error ? { warmup } : {}) };
      if (!r.error && r.ok === 0) row.error = `no 2xx answer (${JSON.stringify(r.statusCodes)})`;
      out.push(row);
      log(
        `  ${label.padEnd(5)} ${mode.padEnd(4)} ${key.padEnd(22)} ${row.error ? `ERROR ${row.error}` : `${String(r.rps).padStart(7)} req/s  p50 ${r.latency.p50}  p95 ${r.latency.p95}  p99 ${r.latency.p99} ms  cpu ${row.cpuMsPerRequest.stack} ms/req (${top(row.cpuMsPerRequest)})${row.callsPerRequest ? `  ${row.callsPerRequest.total} system calls/req` : ''}${r.errors ? `  (${r.errors} errors)` : ''}`}`,
      );
      if (!row.error) logByProcess(row.cpuMsPerRequest);
      if (env.BENCH_PGSS && !row.error) await printStatements(ctx.db, r.requests);
      // Let the stack settle between scenarios (consumers, GC).
      if (kind === 'read') await sleep(300);
    }
  }
  return out;
}

/** With BENCH_PGSS: forgets the statements counted so far (what runs next is what printStatements shows). */
async function resetStatements(db) {
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()').catch((err) => log(`  pg_stat_statements: ${err.message}`));
}

/**
 * With BENCH_PGSS=1 (Postgres with pg_stat_statements loaded and `track_planning` on, the
 * extension created in the bench databases): the statements of the scenario just run, by the
 * Postgres time they cost per request (planning included), each with its calls per request.
 */
async function printStatements(db, requests) {
  const { rows } = await db
    .query(
      `SELECT r.rolname AS role, s.calls, s.total_exec_time + s.total_plan_time AS ms, s.total_plan_time AS plan_ms, regexp_replace(s.query, '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
        WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT ${Number(env.BENCH_PGSS) > 1 ? Number(env.BENCH_PGSS) : 25}`,
    )
    .catch((err) => (log(`  pg_stat_statements: ${err.message}`), { rows: [] }));
  const per = (v) => (v / Math.max(1, requests)).toFixed(3);
  for (const s of rows) log(`        ${per(s.ms).padStart(7)} ms (plan ${per(s.plan_ms)}) ${per(s.calls).padStart(6)} calls  ${s.role.padEnd(18)} ${s.query.slice(0, 150)}`);
}

/**
 * One `q=refund` through the service first: a common word is answered from \`search_hits\` once the
 * service has registered it (on a data set's first search), and the ceiling should run the SQL the
 * scenario will, not the one-time registration's scan.
 */
async function searchOnce(ctx, d) {
  await callApi(ctx.base, 'GET', `/api/v1/accounts/${d.accountId}/conversations?q=refund`, d.token).catch(() => undefined);
  // The service registers the word in the background after answering: on a fresh data set the
  // ceiling would otherwise run the scan that registration replaces (116 ms a search at 100k).
  const registered = async () =>
    (await ctx.db.query(`SELECT 1 FROM conversations.search_patterns WHERE account_id = $1 AND pattern = '%refund%'`, [d.accountId]).catch(() => ({ rows: [] }))).rows.length > 0;
  for (let i = 0; i < 600 && !(await registered()); i++) await sleep(100);
}

/** A run's stack CPU a request by process, and Postgres's share by the service each backend serves. */
function logByProcess(cpuMs) {
  const byRole = Object.entries(cpuMs ?? {}).filter(([g, v]) => g.startsWith('pg_') && v > 0);
  if (!byRole.length) return;
  log(`        by process: ${top(cpuMs, 20)}`);
  log(`        postgres by service: ${byRole.sort((x, y) => y[1] - x[1]).map(([g, v]) => `${g.slice(3)} ${v}`).join(', ')}`);
}

/**
 * The rule run's stack CPU without the Postgres work of the benchmark's own label poller (a
 * superuser query every 5 ms over every label not seen yet: `pg_other`, 2.2-2.5 ms a message at
 * 200/s), which is the measuring instrument's, not the stack's.
 */
function withoutPoller(per) {
  if (!per) return per;
  return { ...per, stack: Math.round(((per.stack ?? 0) - (per.pg_other ?? 0)) * 100) / 100 };
}

/** The label the benchmark's rule adds. */
const RULE_LABEL = 'rule-hit';

/** The benchmark's rule (a `message_created` rule adding the label RULE_LABEL to messages containing `rule-probe`), made once per account. */
async function ensureRuleProbe(base, d) {
  const A = `/api/v1/accounts/${d.accountId}`;
  const call = (m, p, b) => callApi(base, m, p, d.token, b);
  const labels = await call('GET', `${A}/labels`);
  if (!labels.payload.some((l) => l.title === RULE_LABEL)) await call('POST', `${A}/labels`, { title: RULE_LABEL, description: 'added by the benchmark rule' });
  const rules = await call('GET', `${A}/automation_rules`);
  const list = rules.payload ?? rules;
  if (!list.some((r) => r.name === 'Benchmark probe')) {
    await call('POST', `${A}/automation_rules`, {
      name: 'Benchmark probe',
      description: 'issue 12: effect latency',
      event_name: 'message_created',
      active: true,
      conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['rule-probe'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: [RULE_LABEL] }],
    });
    await sleep(1000);
  }
}

/** Open conversations of the account without the rule's label yet (`n` of them). */
async function ruleTargets(db, d, n) {
  const { rows } = await db.query(
    `SELECT display_id FROM conversations.conversations WHERE account_id = $1 AND status = 'open' AND NOT labels @> ARRAY['${RULE_LABEL}'] ORDER BY id LIMIT $2`,
    [d.accountId, n],
  );
  return rows.map((r) => r.display_id);
}

/** One rule message (an incoming message whose content the benchmark's rule matches) to conversation `displayId`. */
function postRuleMessage(base, d, displayId, i) {
  // node:http with a keep-alive agent, not fetch: the load runs on the cores it measures, and
  // undici's fetch cost this process ~0.3 ms of CPU more a request (a loop of local POSTs, 2026-12-01).
  // Answers once the body is read, fetch's shape (`ok`, `status`, `arrayBuffer()`).
  const body = JSON.stringify({ content: `rule-probe ${i}: please tag this`, message_type: 'incoming' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/api/v1/accounts/${d.accountId}/conversations/${displayId}/messages`,
      { method: 'POST', agent: ruleAgent, headers: { api_access_token: d.token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const buf = Buffer.concat(chunks);
          const status = res.statusCode ?? 0;
          resolve({ ok: status >= 200 && status < 300, status, arrayBuffer: async () => buf });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('rule message: no answer in 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}
const ruleAgent = new http.Agent({ keepAlive: true });

/** Posts `message_created` messages at a fixed rate, each to its own conversation, with a rule adding a label; time from the API's answer to the label being in the conversation. */
async function ruleLatency(ctx, d) {
  await ensureRuleProbe(ctx.base, d);
  // Unmeasured first, on the same path at a quarter of the rate, then drained: the rule's command,
  // the label change and its activity message are code the scenarios before did not run, and a
  // stack pays V8's first compiles in its first few hundred calls (see WARMUP_REQUESTS).
  let warmup = null;
  if (RULE_WARMUP > 0) {
    const w = await ruleRound(ctx, d, RULE_WARMUP, RULE_WARMUP_RATE);
    if (w.error) return w;
    warmup = { messages: RULE_WARMUP, offeredRate: w.offeredRate, cpuMsPerRequest: w.cpuMsPerRequest };
  }
  const measured = await ruleRound(ctx, d, RULE_RATE * SECONDS, RULE_RATE, { pgss: Boolean(env.BENCH_PGSS), stages: true });
  return measured.error ? measured : { ...measured, ...(warmup ? { warmup } : {}) };
}

/**
 * Takes the rule's label off `n` open conversations that earlier runs labelled, through the API as
 * an agent would (every service gets the change's events), then waits for the consumers: each run
 * labels the conversations it posts to, and a data set reused run after run would run out of them.
 */
async function freeRuleTargets(ctx, d, n) {
  const { rows } = await ctx.db.query(
    `SELECT display_id, labels FROM conversations.conversations WHERE account_id = $1 AND status = 'open' AND labels @> ARRAY['${RULE_LABEL}'] ORDER BY id LIMIT $2`,
    [d.accountId, n],
  );
  const todo = [...rows];
  const worker = async () => {
    for (let r = todo.shift(); r; r = todo.shift()) {
      await callApi(ctx.base, 'POST', `/api/v1/accounts/${d.accountId}/conversations/${r.display_id}/labels`, d.token, { labels: r.labels.filter((l) => l !== RULE_LABEL) });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await ctx.drain();
  return rows.length;
}

/** The last outbox row and rule run written before a round: its stages read only the rows after them. */
async function ruleMarks(db) {
  const { rows } = await db.query(
    `SELECT (SELECT coalesce(max(id), 0) FROM conversations.outbox)::text AS outbox, (SELECT coalesce(max(id), 0) FROM automation.rule_runs)::text AS runs`,
  );
  return rows[0];
}

/**
 * Where a round's rule latency went, from the rows it left: for each rule message, its
 * transaction's start (the \`message.created\` outbox row's \`created_at\`: \`now()\`, the
 * transaction's start), the relay's claim of it (\`published_at\`), the rules batch's transaction
 * (its run's \`created_at\`), the command's transaction (the label change's outbox row, caused by
 * the message's event), and the benchmark's own answer and sighting of the label (its clock:
 * the same system clock). Each stage is ms after the message's transaction began.
 */
async function ruleStages(db, d, marks, answered, seen) {
  // A message event's conversation_id is the conversation's display id (the API's), the key of
  // `answered` and `seen`. The probe's runs only: ~30-50 rules run on each rule message.
  const { rows } = await db.query(
    `WITH m AS (
       SELECT o.event_id::text AS event_id, o.created_at AS t0, o.published_at AS t1, (o.payload->'data'->>'conversation_id')::int AS display_id
         FROM conversations.outbox o
        WHERE o.id > $1::bigint AND o.routing_key = 'message.created' AND (o.payload->>'account_id')::int = $3
          AND o.payload->'data'->>'content' LIKE 'rule-probe %'
     ), runs AS (
       SELECT event_id::text AS event_id, min(created_at) AS t2 FROM automation.rule_runs
        WHERE account_id = $3 AND rule_id IN (SELECT id FROM automation.automation_rules WHERE account_id = $3 AND name = 'Benchmark probe')
          AND id > $2::bigint AND matched GROUP BY 1
     ), labels AS (
       SELECT payload->>'causation_id' AS cause, min(created_at) AS t3 FROM conversations.outbox
        WHERE id > $1::bigint AND routing_key = 'conversation.labels_changed' GROUP BY 1
     )
     SELECT m.display_id, extract(epoch FROM m.t0) * 1000 AS t0, extract(epoch FROM m.t1) * 1000 AS t1,
            extract(epoch FROM runs.t2) * 1000 AS t2, extract(epoch FROM labels.t3) * 1000 AS t3
       FROM m LEFT JOIN runs ON runs.event_id = m.event_id LEFT JOIN labels ON labels.cause = m.event_id`,
    [marks.outbox, marks.runs, d.accountId],
  );
  return stagesOf(rows, answered, seen, Date.now() - performance.now());
}

/**
 * The stages of `ruleStages`' rows (epoch ms from Postgres), with the benchmark's own answer and
 * sighting times (`performance.now()` ms, keyed by display id) put on the wall clock by `origin`.
 */
function stagesOf(rows, answered, seen, origin) {
  const after = { answered: [], published: [], rules: [], command: [], seen: [] };
  for (const r of rows) {
    const t0 = Number(r.t0);
    const at = answered.get(r.display_id);
    const saw = seen.get(r.display_id);
    if (at !== undefined) after.answered.push(origin + at - t0);
    if (r.t1 !== null) after.published.push(Number(r.t1) - t0);
    if (r.t2 !== null) after.rules.push(Number(r.t2) - t0);
    if (r.t3 !== null) after.command.push(Number(r.t3) - t0);
    if (saw !== undefined) after.seen.push(origin + saw - t0);
  }
  return { messages: rows.length, ...Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v.length ? summarize(v) : null])) };
}

/** `total` rule messages at `rate` a second, each to a conversation without the label yet; answered when every label is seen (or 30 s after the last answer) and the consumers drained. */
async function ruleRound(ctx, d, total, rate, { pgss = false, stages = false } = {}) {
  let ids = await ruleTargets(ctx.db, d, total);
  if (ids.length < total) {
    const freed = await freeRuleTargets(ctx, d, total - ids.length);
    log(`  took the rule's label off ${freed} conversations labelled by earlier runs`);
    ids = await ruleTargets(ctx.db, d, total);
  }
  if (ids.length < total) return { error: `only ${ids.length} conversations without the label left` };
  // BENCH_PGSS: the round's statements only, not the freeing of targets above.
  if (pgss) await resetStatements(ctx.db);
  // A failed read of where the time went costs the stages only, not the measurement.
  const marks = stages ? await ruleMarks(ctx.db).catch((err) => ({ error: err.message })) : null;
  const answered = new Map();
  const seen = new Map();
  const before = cpu.snapshot();
  let failures = 0;
  let polling = true;
  let lastAnswer = performance.now();
  // Every statement with parameters on this connection is planned generic until the RESET below;
  // nothing but the poll runs on it meanwhile.
  await ctx.db.query('SET plan_cache_mode = force_generic_plan');
  let poller = null;
  let offered = 0;
  try {
    poller = (async () => {
      while (polling || seen.size < answered.size) {
        const pending = [...answered.keys()].filter((k) => !seen.has(k));
        let found = 0;
        if (pending.length) {
          // Prepared, its generic plan forced (above): the poll runs every 5 ms on the cores the
          // stack is measured on, and Postgres planned it every time, 0.25-0.32 ms a poll
          // (pg_stat_statements, 2026-11-30: the conversations table's fifteen indexes to weigh).
          const { rows: hit } = await ctx.db.query({
            name: 'bench_rule_poll',
            text: `SELECT display_id FROM conversations.conversations WHERE account_id = $1 AND display_id = ANY($2::int[]) AND labels @> ARRAY['${RULE_LABEL}']`,
            values: [d.accountId, pending],
          });
          const now = performance.now();
          for (const h of hit) seen.set(h.display_id, now);
          found = hit.length;
        }
        // Every 5 ms, or a twentieth of the mean wait when that is longer (the labels still pending
        // over the rate, Little's law): a poll costs Postgres a probe per pending label, so at a
        // fixed interval its cost grew with the backlog (a saturated run's poll was a tenth of its
        // Postgres time, on the cores measured); this way it is ~20 probes per rule message, and
        // a label is seen within a twentieth of the mean wait of its round.
        await sleep(Math.max(5, ((pending.length - found) * 1000) / rate / 20));
        if (!polling && performance.now() - lastAnswer > 30_000) break;
      }
    })();
    // A failed poll is thrown where the poller is awaited, not as an unhandled rejection before.
    poller.catch(() => undefined);
    const t0 = performance.now();
    const sends = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const id = ids[i];
      sends.push(
        postRuleMessage(ctx.base, d, id, i)
          .then(async (res) => {
            await res.arrayBuffer();
            if (!res.ok) failures++;
            else {
              lastAnswer = performance.now();
              answered.set(id, lastAnswer);
            }
          })
          .catch(() => failures++),
      );
    }
    offered = total / ((performance.now() - t0) / 1000);
    await Promise.all(sends);
    polling = false;
    await poller;
  } finally {
    polling = false;
    await poller?.catch(() => undefined);
    await ctx.db.query('RESET plan_cache_mode').catch(() => undefined);
  }
  await ctx.drain();
  const used = cpuUsed(before, cpu.snapshot()).net;
  const lat = [...answered].filter(([k]) => seen.has(k)).map(([k, at]) => Math.max(0, seen.get(k) - at));
  // BENCH_PGSS: the round's statements, before the stages' own query runs.
  if (pgss) await printStatements(ctx.db, total);
  let stageRows = null;
  if (marks?.error) stageRows = { error: `marks: ${marks.error}` };
  else if (marks) stageRows = await ruleStages(ctx.db, d, marks, answered, seen).catch((err) => ({ error: err.message }));
  return {
    ...(stageRows ? { stages: stageRows } : {}),
    // Latency of a few survivors of a failing run is no measure of the target.
    ...(failures > total * 0.05 ? { error: `${failures} of ${total} posts failed` } : {}),
    messages: total,
    offeredRate: Math.round(offered),
    failures,
    missing: answered.size - lat.length,
    latency: summarize(lat),
    cpuMsPerRequest: withoutPoller(stackCpu(cpu.perRequest(used, answered.size))),
  };
}

/** Publishes auditable events (canned_response.updated: only the audit service consumes them) as the relay would, and times the audit service's ingest. */
async function auditIngest(ctx, d) {
  const amqp = ceilings.fromShared('amqplib');
  const count = async () => Number((await ctx.db.query('SELECT coalesce(max(entries), 0) AS n FROM audit.audit_log_counts WHERE account_id = $1', [d.accountId])).rows[0].n);
  const start = await count();
  const conn = await amqp.connect(AMQP_URL);
  try {
    const ch = await conn.createConfirmChannel();
    const exchange = `${NAMESPACE}domain.events`;
    const before = cpu.snapshot();
    const t0 = performance.now();
    for (let i = 0; i < AUDIT_ENTRIES; i++) {
      const id = 3_000_000 + (i % 1000);
      const env = {
        id: randomUUID(),
        type: 'canned_response.updated',
        version: 1,
        occurred_at: new Date().toISOString(),
        account_id: d.accountId,
        actor: { type: 'user', id: d.adminId, name: 'Bench Admin', email: null },
        request_id: randomUUID(),
        causation_id: null,
        data: { id, account_id: d.accountId, short_code: `reply-${id}`, content: `Reply ${id}, version ${i}` },
        changes: { content: [`Reply ${id}, version ${i - 1}`, `Reply ${id}, version ${i}`] },
        meta: { ip: '203.0.113.9' },
      };
      ch.publish(exchange, env.type, Buffer.from(JSON.stringify(env)), { persistent: true, contentType: 'application/json', messageId: env.id, type: env.type });
      if (i % 1000 === 999) await ch.waitForConfirms();
    }
    await ch.waitForConfirms();
    const published = performance.now();
    const atPublished = await count();
    let n = start;
    const deadline = Date.now() + 180_000;
    while (n < start + AUDIT_ENTRIES && Date.now() < deadline) {
      await sleep(100);
      n = await count();
    }
    const done = performance.now();
    const used = cpuUsed(before, cpu.snapshot()).net;
    const ingested = n - start;
    // The consumer's own rate is how fast it drains what was still queued when publishing ended
    // (the publisher on this machine is not much faster than the consumer); when little was left,
    // the rate over the whole run (then bounded by the publisher) is the figure.
    const backlog = start + AUDIT_ENTRIES - atPublished;
    const drainRate = backlog >= AUDIT_ENTRIES * 0.2 ? Math.round(backlog / ((done - published) / 1000)) : null;
    const overall = Math.round(ingested / ((done - t0) / 1000));
    return {
      ...(ingested < AUDIT_ENTRIES ? { error: `${AUDIT_ENTRIES - ingested} of ${AUDIT_ENTRIES} entries never arrived` } : {}),
      entries: ingested,
      published: AUDIT_ENTRIES,
      publishSeconds: Math.round((published - t0) / 100) / 10,
      seconds: Math.round((done - t0) / 100) / 10,
      backlogAtPublished: backlog,
      overallPerSecond: overall,
      entriesPerSecond: drainRate ?? overall,
      boundedByPublisher: drainRate === null,
      cpuMsPerRequest: stackCpu(cpu.perRequest(used, ingested)),
    };
  } finally {
    await conn.close().catch(() => undefined);
  }
}

function rssOfServices(parentPid) {
  const rows = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const m = new RegExp(`${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/services/([a-z]+)/dist/main\\.js`).exec(cmd);
      if (!m) continue;
      if (Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) !== parentPid) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const mb = (key) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)[1]) / 1024);
      // VmHWM: the peak over the process's life (what a memory limit must allow).
      rows.push({ service: m[1], rssMb: mb('VmRSS'), peakMb: mb('VmHWM') });
    } catch {
      /* gone */
    }
  }
  return rows.sort((a, b) => a.service.localeCompare(b.service));
}

async function versions(db) {
  const { rows } = await db.query('SHOW server_version');
  let rabbit = null;
  try {
    const amqp = ceilings.fromShared('amqplib');
    const c = await amqp.connect(AMQP_URL);
    rabbit = c.connection?.serverProperties?.version ?? null;
    await c.close();
  } catch {
    /* unknown */
  }
  return { node: process.version, postgres: rows[0].server_version, rabbitmq: rabbit };
}

async function safe(what, fn) {
  try {
    return await fn();
  } catch (err) {
    log(`  ${what}: ERROR ${err.message}`);
    return { error: err.message };
  }
}

/** The tables the scenarios read most, vacuumed before measuring. */
const VACUUMED = ['conversations.conversations', 'conversations.messages', 'conversations.conversation_participants', 'conversations.projections', 'contacts.contacts', 'contacts.contact_inboxes', 'reports.reporting_events', 'reports.rollups', 'reports.conversations', 'audit.audit_logs'];

/** One data set in a database of its own: its stack, its account, the idle baseline, then `measure(ctx, d)`. */
/**
 * The small data set is made again for every run (two seconds): its scenarios write (the message
 * creates add thousands of messages to its 300 conversations a run, the public read's conversation
 * answers all of its own), so a reused one grew with every run and no two runs measured the same
 * account (87,095 messages on 2026-11-29 where it was made with 3,000). BENCH_KEEP_SMALL=1 reuses it.
 * The large one (minutes to make) is reused: a run adds a few thousand of its million messages.
 */
const FRESH = { small: env.BENCH_KEEP_SMALL !== '1', large: false };

async function phase(label, databaseUrl, sizes, result, measure) {
  const dbName = new URL(databaseUrl).pathname.slice(1);
  await ensureDatabase(databaseUrl, { fresh: FRESH[label] ?? false });
  const stack = await startStack(databaseUrl);
  cpu.configure({ root, database: dbName, parentPid: stack.child.pid, ...privateMatch });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const { drain, close } = await makeDrain(db);
  const ctx = { base: stack.base, db, drain, stack, only: result.only };
  try {
    const d = await generate({ base: stack.base, databaseUrl, platformToken: PLATFORM, label, sizes, log: (l) => log(`  ${l}`) });
    result.datasets[label] = { database: dbName, accountId: d.accountId, counts: d.counts, generatedNow: d.generatedNow, seconds: d.seconds };
    if (!result.machine.postgres) Object.assign(result.machine, await versions(db));
    log(`[bench] ${label}: waiting for the consumers to drain`);
    await drain(300_000);
    // The kernel's retention, which the stack's own pruner would do while it runs (it is held off
    // during the run, startStack): earlier runs' outbox and processed_events rows past it.
    const { baseConfigSchema, pruneKernelTables } = require('@parley/shared');
    const kernel = baseConfigSchema.parse({});
    for (const schema of fs.readdirSync(path.join(root, 'services'))) {
      await db.query(`SET search_path = "${schema}"`);
      const pruned = await pruneKernelTables(db, { outboxHours: kernel.OUTBOX_RETENTION_HOURS, processedEventsHours: kernel.PROCESSED_EVENTS_RETENTION_HOURS }).catch((err) => ({ error: err.message }));
      const deleted = !pruned.error && Object.values(pruned).some((n) => n > 0);
      if (pruned.error || deleted) log(`  ${schema}: pruned ${JSON.stringify(pruned)}`);
      if (deleted) await db.query(`VACUUM (ANALYZE) "${schema}".outbox, "${schema}".processed_events`);
    }
    await db.query('RESET search_path');
    // What autovacuum does on a production server (this machine's has it off): the visibility map
    // set, so index-only scans read no heap pages. Cheap after the first run (all-visible pages are skipped).
    const vacuumStarted = Date.now();
    for (const t of VACUUMED) await db.query(`VACUUM (ANALYZE) ${t}`).catch((err) => log(`  vacuum ${t}: ${err.message}`));
    log(`[bench] ${label}: VACUUM (ANALYZE) of ${VACUUMED.length} tables in ${((Date.now() - vacuumStarted) / 1000).toFixed(1)} s`);
    // What the stack burns doing nothing (timers, pollers, relays; other tenants of the shared
    // servers): measured once per stack, subtracted from every measurement's window. Two halves,
    // each group's lower rate kept: a one-off (the vacuum's tail, a count fold) in one half would
    // otherwise be subtracted from every scenario and understate its CPU.
    await sleep(2000);
    const halves = [];
    for (let h = 0; h < 2; h++) {
      const a = cpu.snapshot();
      await sleep((Number(env.BENCH_IDLE_SECONDS || 8) * 1000) / 2);
      const b = cpu.snapshot();
      const seconds = Number(b.at - a.at) / 1e9;
      halves.push(Object.fromEntries(Object.entries(cpu.diff(a, b)).map(([g, ms]) => [g, ms / seconds])));
    }
    const idleRate = Object.fromEntries(Object.keys(halves[0]).map((g) => [g, Math.min(halves[0][g], halves[1][g] ?? halves[0][g])]));
    result.idleMsPerSecond[label] = Object.fromEntries(Object.entries(idleRate).map(([g, v]) => [g, Math.round(v * 10) / 10]));
    setIdle(idleRate);
    log(`[bench] ${label}: idle CPU, ms per second: ${Object.entries(result.idleMsPerSecond[label]).map(([g, v]) => `${g} ${v}`).join(', ')}`);
    await measure(ctx, d);
    await drain(60_000);
    // Resident memory when the load ends, then once the stack has been idle long enough for each
    // service to give back the young generation V8 grew under load (HEAP_TRIM_IDLE_MS: about 7 s
    // into a quiet spell, heap-trim.ts in packages/shared): the memory a quiet service holds.
    const atEnd = new Map(rssOfServices(stack.child.pid).map((x) => [x.service, x.rssMb]));
    await sleep(Number(env.BENCH_RSS_IDLE_SECONDS || 12) * 1000);
    result.rss[label] = rssOfServices(stack.child.pid).map((x) => ({ ...x, atEndMb: atEnd.get(x.service) ?? null }));
    log(`[bench] ${label}: RSS after the run, idle (at its end; peak): ${result.rss[label].map((x) => `${x.service} ${x.rssMb} MB (${x.atEndMb}; ${x.peakMb})`).join(', ')}`);
  } finally {
    await close();
    await db.end().catch(() => undefined);
    await stack.stop();
  }
}

async function main(argv) {
  const args = new Set(argv);
  if (args.has('--rewrite-docs')) {
    const last = report.readLast();
    if (!last) throw new Error('no docs/benchmarks.json to rewrite the docs from');
    report.write(last, report.evaluate(last));
    log('[bench] rewrote docs/benchmarks.md, .svg and .json from docs/benchmarks.json');
    return;
  }
  const only = env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : null;
  const started = new Date();
  const t0 = Date.now();
  const previous = report.readLast();
  for (const s of fs.readdirSync(path.join(root, 'services'))) {
    if (!fs.existsSync(path.join(root, 'services', s, 'dist', 'main.js'))) throw new Error(`services/${s} is not built: run \`pnpm build\` first (\`pnpm bench\` does)`);
  }
  const result = {
    startedAt: started.toISOString(),
    settings: { seconds: SECONDS, connections: CONNECTIONS, rate: RATE, ruleRate: RULE_RATE, ruleWarmup: RULE_WARMUP, auditEntries: AUDIT_ENTRIES, warmupRequests: WARMUP_REQUESTS, warmupSeconds: WARMUP_SECONDS },
    machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, memoryGb: Math.round(os.totalmem() / 2 ** 30) },
    datasets: {},
    idleMsPerSecond: {},
    ceilings: {},
    scenarios: [],
    rss: {},
    only,
  };
  // RabbitMQ and Redis of its own (packages/testkit's private servers), so their CPU is this stack's
  // alone on a shared machine; BENCH_SHARED_SERVERS=1 uses AMQP_URL/REDIS_URL (the shared ones) instead.
  const privateServers = [];
  if (env.BENCH_SHARED_SERVERS !== '1') {
    log('[bench] starting a private RabbitMQ and Redis');
    const servers = await startPrivateServers();
    const { mq, redis } = servers;
    privateServers.push(servers);
    AMQP_URL = mq.url;
    REDIS_URL = redis.url;
    privateMatch.rabbitmqPgid = mq.proc.pid;
    privateMatch.redis = `:${redis.port}`;
    result.servers = 'private RabbitMQ and Redis';
  } else result.servers = 'shared RabbitMQ and Redis';
  const c = result.ceilings;
  const ceiling = async (key, fn) => {
    c[key] = await safe(key, fn);
    const v = c[key];
    log(`  ceiling ${key.padEnd(13)} ${v.error ? `ERROR ${v.error}` : `${v.rps} /s  cpu ${v.cpuMsPerRequest?.total} ms each${v.latency ? `  p95 ${v.latency.p95} ms` : ''}`}`);
  };
  // The CPU targets: a 300-conversation account in a database of its own (an install of that size).
  await safe('small data set', () =>
    phase('small', SMALL_URL, sizesFromEnv(SMALL), result, async (ctx, d) => {
      log('[bench] small: ceilings');
      await ceiling('http', () => ceilings.bareHttp({ seconds: SECONDS, connections: CONNECTIONS }));
      await ceiling('httpPaced', () => ceilings.bareHttp({ seconds: SECONDS, connections: Math.min(CONNECTIONS, 16), rate: RATE }));
      await ceiling('listSql', () => ceilings.listSql({ seconds: SECONDS, connections: CONNECTIONS, databaseUrl: SMALL_URL, accountId: d.accountId, userId: d.adminId }));
      await searchOnce(ctx, d);
      await ceiling('qSql', () => ceilings.listSql({ seconds: SECONDS, connections: CONNECTIONS, databaseUrl: SMALL_URL, accountId: d.accountId, userId: d.adminId, q: 'refund' }));
      await ceiling('rabbit', () => ceilings.rabbit({ seconds: SECONDS, amqpUrl: AMQP_URL }));
      log(`[bench] small: scenarios, ${SECONDS} s each at ${CONNECTIONS} connections`);
      const small = await runScenarios(ctx, d, 'small', ['sat'], { warm: true });
      result.scenarios.push(...small);
      // Again after them: how far the host's speed moved while the CPU targets were measured (report.js, hostDrift).
      if (small.length > 0) await ceiling('httpAfter', () => ceilings.bareHttp({ seconds: SECONDS, connections: CONNECTIONS }));
    }),
  );
  // The latency targets: 100k conversations, 1M messages.
  if (!args.has('--small-only')) {
    await safe('large data set', () =>
      phase('large', LARGE_URL, sizesFromEnv(LARGE), result, async (ctx, d) => {
        log('[bench] large: ceilings');
        await ceiling('listSqlLarge', () => ceilings.listSql({ seconds: SECONDS, connections: CONNECTIONS, databaseUrl: LARGE_URL, accountId: d.accountId, userId: d.adminId }));
        await searchOnce(ctx, d);
        await ceiling('qSqlLarge', () => ceilings.listSql({ seconds: SECONDS, connections: CONNECTIONS, databaseUrl: LARGE_URL, accountId: d.accountId, userId: d.adminId, q: 'refund' }));
        log(`[bench] large: scenarios, ${SECONDS} s each at ${CONNECTIONS} connections, then at ${RATE} req/s offered`);
        result.scenarios.push(...(await runScenarios(ctx, d, 'large', ['sat', 'rate'])));
        if (!only || only.test('rule')) {
          log(`[bench] large: automation rule effect at ${RULE_RATE} messages/s${RULE_WARMUP ? ` (after ${RULE_WARMUP} unmeasured at ${RULE_WARMUP_RATE}/s)` : ''}`);
          result.rule = await safe('rule latency', () => ruleLatency(ctx, d));
          if (!result.rule.error) {
            log(`  offered ${result.rule.offeredRate}/s: p50 ${result.rule.latency.p50} ms, p95 ${result.rule.latency.p95} ms, p99 ${result.rule.latency.p99} ms (${result.rule.missing} never seen, ${result.rule.failures} failed)`);
            if (result.rule.warmup) log(`  warm-up: ${result.rule.warmup.messages} at ${result.rule.warmup.offeredRate}/s, cold cpu ${result.rule.warmup.cpuMsPerRequest?.stack} ms/message`);
            log(`  measured: cpu ${result.rule.cpuMsPerRequest?.stack} ms/message`);
            logByProcess(result.rule.cpuMsPerRequest);
            const st = result.rule.stages;
            if (st?.error) log(`  stages: ${st.error}`);
            else if (st && !report.ruleStagesText(st)) log('  stages: no rows of the round found');
            else if (st) log(`  stages, ms after each message's transaction began (p50/p95/p99): ${report.ruleStagesText(st)}`);
          }
        }
        if (!only || only.test('audit')) {
          log(`[bench] large: audit ingest of ${AUDIT_ENTRIES} events`);
          result.audit = await safe('audit ingest', () => auditIngest(ctx, d));
          if (!result.audit.error) log(`  ${result.audit.entries} entries in ${result.audit.seconds} s: ${result.audit.entriesPerSecond} entries/s`);
        }
      }),
    );
  }
  for (const s of privateServers) await s.stop().catch(() => undefined);
  result.durationSeconds = Math.round((Date.now() - t0) / 1000);
  delete result.only;
  const summary = report.evaluate(result);
  report.printTables(result, summary, log);
  if (args.has('--compare') && previous) report.printCompare(previous, { ...result, targets: summary }, log);
  if (!args.has('--no-write') && !only && REPEAT === 1) {
    report.write(result, summary);
    log(`[bench] wrote docs/benchmarks.md, docs/benchmarks.svg and docs/benchmarks.json (${result.durationSeconds} s in all)`);
  }
}

module.exports = { main, startPrivateServers, ensureDatabase, startStack, makeDrain, scenarios, writeTargets, ensureRuleProbe, ruleTargets, freeRuleTargets, postRuleMessage, stagesOf };
