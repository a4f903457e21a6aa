#!/usr/bin/env node
/* Benchmarks the stack through the gateway and prints latency, throughput and memory
 * against the targets in docs/benchmarks.md. It measures and prints; it never fails a build.
 *
 *   pnpm bench                      # starts its own stack (database parley_bench), then measures
 *   GATEWAY_URL=http://host:3000 pnpm bench   # measures a stack that is already running
 *
 * Settings: BENCH_SECONDS (per scenario, default 8), BENCH_CONNECTIONS (default 16),
 * BENCH_CONVERSATIONS (seeded, default 300). */
const { spawn, execFileSync } = require('node:child_process');
const path = require('node:path');
const autocannon = require('autocannon');
const { callApi } = require('./bench-http');

const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS || 300);
const PLATFORM = process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';

/** p99 latency (ms) each scenario should stay under at BENCH_CONNECTIONS, and RSS per service. */
const TARGETS = { p99Ms: { read: 100, write: 200 }, rssMb: 256 };

let base = process.env.GATEWAY_URL;
let stack = null;

async function up(url) {
  try {
    return (await fetch(`${url}/readyz`)).ok;
  } catch {
    return false;
  }
}

async function startStack() {
  base = 'http://127.0.0.1:3000';
  if (await up(base)) {
    console.log(`[bench] using the stack already running at ${base}`);
    return;
  }
  const db = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley_bench';
  console.log(`[bench] starting the stack against ${db}`);
  stack = spawn(process.execPath, [path.join(__dirname, 'start.js')], {
    env: { ...process.env, DATABASE_URL: db, NAMESPACE: 'bench.', LOG_LEVEL: 'warn', RATE_LIMIT_PER_IP: '100000000', RATE_LIMIT_PER_TOKEN: '100000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 240; i++) {
    if (await up(base)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('stack did not become ready');
}

function call(method, p, token, body) {
  return callApi(base, method, p, token, body);
}

async function seed() {
  const stamp = Date.now().toString(36);
  const account = await call('POST', '/platform/api/v1/accounts', PLATFORM, { name: `Bench ${stamp}`, features: { audit_logs: true } });
  const user = await call('POST', '/platform/api/v1/users', PLATFORM, { name: 'Bench Admin', email: `bench-${stamp}@example.com` });
  await call('POST', `/platform/api/v1/accounts/${account.id}/account_users`, PLATFORM, { user_id: user.id, role: 'administrator' });
  const token = user.access_token;
  const inbox = await call('POST', `/api/v1/accounts/${account.id}/inboxes`, token, { name: 'Bench inbox', channel: { type: 'api' } });
  const identifier = inbox.inbox_identifier;
  let last = null;
  const t0 = Date.now();
  for (let i = 0; i < CONVERSATIONS; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, CONVERSATIONS - i) }, async (_, k) => {
        const contact = await call('POST', `/public/api/v1/inboxes/${identifier}/contacts`, null, { name: `Customer ${i + k}`, email: `c${i + k}-${stamp}@example.com` });
        const conv = await call('POST', `/public/api/v1/inboxes/${identifier}/contacts/${contact.source_id}/conversations`, null, {});
        await call('POST', `/public/api/v1/inboxes/${identifier}/contacts/${contact.source_id}/conversations/${conv.id}/messages`, null, { content: `I need a refund for order ${i + k}` });
        last = { contact, conv };
      }),
    );
  }
  console.log(`[bench] seeded ${CONVERSATIONS} contacts, conversations and messages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // Let the consumers (contacts, automation, audit) finish the seeding's events first, so the
  // scenarios measure requests, not a backlog: audit is the last stop of every event.
  let before = -1;
  for (let i = 0; i < 120; i++) {
    const { total_entries: n } = await call('GET', `/api/v1/accounts/${account.id}/audit_logs`, token).catch(() => ({ total_entries: -2 }));
    if (n === before && n >= 0) break;
    before = n;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { accountId: account.id, token, identifier, last };
}

function run(title, opts) {
  return new Promise((resolve, reject) => {
    autocannon({ url: base, connections: CONNECTIONS, duration: SECONDS, ...opts }, (err, r) => (err ? reject(err) : resolve({ title, r })));
  });
}

function rssOfServices() {
  try {
    const out = execFileSync('ps', ['-eo', 'rss=,args='], { encoding: 'utf8' });
    const rows = [];
    for (const line of out.split('\n')) {
      const m = /^\s*(\d+)\s+.*services\/([a-z]+)\/dist\/main\.js/.exec(line);
      if (m) rows.push({ service: m[2], rssMb: Math.round(Number(m[1]) / 1024) });
    }
    return rows;
  } catch {
    return [];
  }
}

async function main() {
  if (!base) await startStack();
  const s = await seed();
  const acct = `/api/v1/accounts/${s.accountId}`;
  const headers = { api_access_token: s.token, 'content-type': 'application/json' };
  const scenarios = [
    ['read', 'GET /api/v1/profile (auth + principal cache)', { requests: [{ method: 'GET', path: '/api/v1/profile', headers }] }],
    ['read', 'GET conversations (SPEC 1, page 1 with counts)', { requests: [{ method: 'GET', path: `${acct}/conversations?status=open`, headers }] }],
    ['read', 'GET conversations?q=refund (indexed search)', { requests: [{ method: 'GET', path: `${acct}/conversations?q=refund`, headers }] }],
    ['read', 'GET contacts (SPEC 9, sorted by name)', { requests: [{ method: 'GET', path: `${acct}/contacts?sort=name`, headers }] }],
    ['read', 'GET public conversation (SPEC 14)', { requests: [{ method: 'GET', path: `/public/api/v1/inboxes/${s.identifier}/contacts/${s.last.contact.source_id}/conversations/${s.last.conv.id}` }] }],
    ['write', 'POST agent message (write + outbox)', { requests: [{ method: 'POST', path: `${acct}/conversations/${s.last.conv.id}/messages`, headers, body: JSON.stringify({ content: 'On it!', message_type: 'outgoing' }) }] }],
  ];
  const results = [];
  for (const [kind, title, opts] of scenarios) {
    const { r } = await run(title, opts);
    const non2xx = r.non2xx + r.errors + r.timeouts;
    const p99 = r.latency.p99;
    results.push({ scenario: title, 'req/s': Math.round(r.requests.average), 'p50 ms': r.latency.p50, 'p99 ms': p99, errors: non2xx, target: `p99 < ${TARGETS.p99Ms[kind]} ms`, ok: p99 < TARGETS.p99Ms[kind] && non2xx === 0 ? 'yes' : 'NO' });
  }
  console.log(`\n[bench] ${CONNECTIONS} connections, ${SECONDS} s per scenario, ${CONVERSATIONS} seeded conversations`);
  console.table(results);
  const rss = rssOfServices().map((x) => ({ ...x, target: `< ${TARGETS.rssMb} MB`, ok: x.rssMb < TARGETS.rssMb ? 'yes' : 'NO' }));
  if (rss.length) console.table(rss);
  else console.log('[bench] (memory: the services are not local processes, so RSS was not read)');
}

main()
  .catch((err) => {
    console.error(`[bench] ${err.message}`);
    process.exitCode = 1;
  })
  .finally(() => {
    if (stack) stack.kill('SIGTERM');
  });
