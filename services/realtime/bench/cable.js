#!/usr/bin/env node
/* The /cable channel under load (issue 14 targets; docs/architecture.md "Realtime"). Measures and prints; never fails a build.
 *
 *   pnpm start                                    # a running stack (raise the gateway's rate limits)
 *   ulimit -n 20000 && pnpm --filter @parley/realtime bench
 *
 * Three scenarios, against a running stack (BENCH_CABLE_ONLY=idle|api|outbox, comma-separated, picks some):
 * - idle: BENCH_CABLE_IDLE (10000) sockets, each subscribed to RoomChannel, held open; then the
 *   realtime process's resident memory (its Prometheus endpoint, REALTIME_METRICS_URL) and its CPU
 *   while they idle (pings every 3 s). Target < 1 GB.
 * - outbox: BENCH_CABLE_SUBSCRIBERS (1000) subscribers of one account while message.created events
 *   enter where a committed message's do, the conversations service's outbox (a copy of a real
 *   message's event with a new event id, message id and `updated_at`), at BENCH_CABLE_RATE (200/s)
 *   for BENCH_SECONDS (10). Latency: from just before the INSERT that commits the event (an upper
 *   bound on its commit) to the frame on each socket. Target p99 <= 100 ms.
 * - api: the same subscribers while agent messages are posted through the gateway at
 *   BENCH_CABLE_API_RATE (BENCH_CABLE_RATE); latency from the message's `updated_at` (its
 *   transaction's start, before the commit: an upper bound) to each frame.
 * The CPU ms per event of each service during the outbox and api runs comes from /proc
 * (scripts/bench/proc-cpu.js): realtime's is what one event's fan-out to the subscribers costs.
 *
 * Settings: GATEWAY_URL (http://127.0.0.1:3000), CABLE_URL (ws://127.0.0.1:3006/cable: straight to
 * the realtime service, so the gateway's proxy does not double the sockets; point it at the gateway's
 * /cable to measure both), PLATFORM_API_TOKEN, BENCH_DATABASE_URL (the stack's database, for the
 * outbox scenario). */
const { randomUUID } = require('node:crypto');
const path = require('node:path');
const WebSocket = require('ws');
const { Pool } = require('pg');
const { callApi } = require('../../../scripts/bench-http');
const procCpu = require('../../../scripts/bench/proc-cpu');

const GATEWAY = process.env.GATEWAY_URL || 'http://127.0.0.1:3000';
const CABLE = process.env.CABLE_URL || 'ws://127.0.0.1:3006/cable';
const METRICS = process.env.REALTIME_METRICS_URL || 'http://127.0.0.1:9469/metrics';
const PLATFORM = process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';
const DATABASE = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley';
const IDLE = Number(process.env.BENCH_CABLE_IDLE || 10_000);
const SUBSCRIBERS = Number(process.env.BENCH_CABLE_SUBSCRIBERS || 1000);
const RATE = Number(process.env.BENCH_CABLE_RATE || 200);
const API_RATE = Number(process.env.BENCH_CABLE_API_RATE || RATE);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ONLY = new Set((process.env.BENCH_CABLE_ONLY || 'idle,outbox,api').split(','));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function call(method, p, token, body) {
  return callApi(GATEWAY, method, p, token, body);
}

async function seed() {
  const stamp = Date.now().toString(36);
  const account = await call('POST', '/platform/api/v1/accounts', PLATFORM, { name: `Cable bench ${stamp}` });
  const user = await call('POST', '/platform/api/v1/users', PLATFORM, { name: 'Bench Admin', email: `cable-${stamp}@example.com` });
  await call('POST', `/platform/api/v1/accounts/${account.id}/account_users`, PLATFORM, { user_id: user.id, role: 'administrator' });
  const token = user.access_token;
  const profile = await call('GET', '/api/v1/profile', token);
  const inbox = await call('POST', `/api/v1/accounts/${account.id}/inboxes`, token, { name: 'Bench inbox', channel: { type: 'api' } });
  const contact = await call('POST', `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, null, { name: 'Customer' });
  const conv = await call('POST', `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${contact.source_id}/conversations`, null, {});
  const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: profile.pubsub_token, account_id: account.id, user_id: user.id });
  return { accountId: account.id, token, convId: conv.id, identifier };
}

/**
 * Opens `n` sockets subscribed to `identifier`, `batch` at a time; once confirmed, `onFrame` gets
 * each frame's raw bytes (the load generator shares the machine: it parses nothing it need not).
 */
async function openMany(n, identifier, onFrame, batch = 200) {
  const sockets = [];
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => new Promise((resolve, reject) => {
        const ws = new WebSocket(CABLE, ['actioncable-v1-json']);
        let confirmed = false;
        ws.on('error', reject);
        ws.on('message', (raw) => {
          if (confirmed) return onFrame?.(raw);
          const f = JSON.parse(raw.toString());
          if (f.type === 'welcome') ws.send(JSON.stringify({ command: 'subscribe', identifier }));
          else if (f.type === 'confirm_subscription') {
            confirmed = true;
            resolve();
          }
          else if (f.type === 'reject_subscription') reject(new Error('subscription rejected'));
          // Told to come back (an owner check timed out): say so rather than wait for ever.
          else if (f.type === 'disconnect') reject(new Error(`disconnected before confirmation: ${f.reason}`));
        });
        sockets.push(ws);
      })),
    );
  }
  return sockets;
}

async function metric(name) {
  try {
    const text = await (await fetch(METRICS)).text();
    const m = text.match(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
const rssMb = async () => {
  const b = await metric('process_resident_memory_bytes');
  return b === null ? null : Math.round(b / 1048576);
};
const cpuSeconds = () => metric('process_cpu_seconds_total');

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function summary(latencies) {
  const s = [...latencies].sort((a, b) => a - b);
  return s.length ? `p50 ${pct(s, 50)} ms, p95 ${pct(s, 95)} ms, p99 ${pct(s, 99)} ms, max ${s[s.length - 1]} ms` : 'no frames';
}

/** CPU ms per event of each service (and Postgres, RabbitMQ, Redis) over a run. */
function cpuPer(before, events) {
  const d = procCpu.diff(before, procCpu.snapshot());
  return Object.entries(d)
    .filter(([g, v]) => v > 0 && !['total', 'postgres_server'].includes(g))
    .sort((a, b) => b[1] - a[1])
    .map(([g, v]) => `${g} ${(v / events).toFixed(2)}`)
    .join(', ');
}

async function idle(s) {
  const before = await rssMb();
  let t = Date.now();
  const sockets = await openMany(IDLE, s.identifier, null);
  console.log(`idle: ${sockets.length} subscribed sockets in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  await sleep(5000);
  const cpu0 = await cpuSeconds();
  t = Date.now();
  await sleep(15_000);
  const cpu1 = await cpuSeconds();
  const busy = cpu0 !== null && cpu1 !== null ? `${(((cpu1 - cpu0) * 1000) / (Date.now() - t) * 100).toFixed(1)}% of a core` : '?';
  console.log(`idle: realtime RSS ${before ?? '?'} MB before, ${(await rssMb()) ?? '?'} MB with ${sockets.length} subscribed sockets (target < 1024 MB); realtime CPU while they idle (pings every 3 s): ${busy}`);
  for (const ws of sockets) ws.terminate();
  await sleep(3000);
}

/**
 * Subscribers, then `send(i)` called `RATE` times a second for SECONDS; `send` resolves to the
 * message id or throws. Latency of every frame: arrival minus its message's `updated_at`.
 * With `inject` instead, a child process sends (so the frames this process reads do not slow the
 * sending down) and answers the ids it sent.
 */
async function delivery(label, s, rate, send, inject) {
  const arrivals = [];
  // A message.created frame: `{"identifier":...,"message":{"event":"message.created","data":{"id":<id>,...,"updated_at":"<iso>",...`
  const sockets = await openMany(SUBSCRIBERS, s.identifier, (raw) => {
    const at = Date.now();
    const ev = raw.indexOf('"event":"message.created","data":{"id":');
    if (ev < 0) return;
    const idStart = ev + 39;
    const id = Number(raw.toString('latin1', idStart, raw.indexOf(',', idStart)));
    const v = raw.indexOf('"updated_at":"', idStart);
    arrivals.push([at, raw.toString('latin1', v + 14, v + 38), id]);
  });
  await sleep(2000);
  console.log(`${label}: ${SUBSCRIBERS} subscribers; ${rate} messages/s for ${SECONDS} s`);
  const total = rate * SECONDS;
  const sent = new Set();
  const failed = [];
  const pending = [];
  const cpu = procCpu.snapshot();
  const t = Date.now();
  if (inject) {
    const r = await inject(total);
    for (const id of r.sent) sent.add(id);
    failed.push(...r.failed);
  }
  for (let i = 0; !inject && i < total; i++) {
    const wait = t + (i * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    pending.push(send(i).then((id) => sent.add(id), (err) => failed.push(String(err.message).slice(0, 160))));
  }
  await Promise.all(pending);
  const achieved = total / ((Date.now() - t) / 1000);
  // Let the last frames arrive (a backlog shows as latency, not as loss).
  for (let k = 0; k < 60 && arrivals.filter(([, , id]) => sent.has(id)).length < sent.size * SUBSCRIBERS; k++) await sleep(500);
  const cpuLine = cpuPer(cpu, sent.size || 1);
  const mine = arrivals.filter(([, , id]) => sent.has(id));
  const latencies = mine.map(([at, version]) => Math.max(0, at - Date.parse(version)));
  console.log(`${label}: sent ${total} (${achieved.toFixed(0)}/s achieved, ${failed.length} failed); ${mine.length} frames of ${sent.size * SUBSCRIBERS} expected`);
  if (failed.length) console.log(`${label}: first failure: ${failed[0]}`);
  console.log(`${label}: commit -> socket ${summary(latencies)} (target p99 <= 100 ms)`);
  console.log(`${label}: CPU ms per event: ${cpuLine}`);
  for (const ws of sockets) ws.terminate();
  await sleep(3000);
}

async function main() {
  procCpu.configure?.({ root: path.resolve(__dirname, '..', '..', '..'), database: new URL(DATABASE).pathname.slice(1) });
  const s = await seed();
  console.log(`[cable bench] account ${s.accountId}; cable ${CABLE}`);
  if (ONLY.has('idle')) await idle(s);

  if (ONLY.has('outbox')) {
    // A real agent message's event, copied with new ids: what a committed message puts in the outbox.
    const first = await call('POST', `/api/v1/accounts/${s.accountId}/conversations/${s.convId}/messages`, s.token, { content: 'template' });
    const db = new Pool({ connectionString: DATABASE, max: 4 });
    const { rows } = await db.query(`SELECT payload FROM conversations.outbox WHERE routing_key = 'message.created' AND (payload->'data'->>'id')::bigint = $1`, [first.id]);
    if (!rows[0]) throw new Error('the template message.created is not in conversations.outbox (is BENCH_DATABASE_URL the stack\'s database?)');
    const template = rows[0].payload;
    const base = 1_900_000_000 + Math.floor(Math.random() * 100_000_000);
    await db.end();
    const file = path.join(require('node:os').tmpdir(), `cable-template-${process.pid}.json`);
    require('node:fs').writeFileSync(file, JSON.stringify(template));
    await delivery('outbox', s, RATE, null, (total) => new Promise((resolve, reject) => {
      const child = require('node:child_process').spawn(process.execPath, [__filename, '--inject', file, String(RATE), String(total), String(base)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`injector exited ${code}`))));
    }));
  }

  if (ONLY.has('api')) {
    await delivery('api', s, API_RATE, async (i) => (await call('POST', `/api/v1/accounts/${s.accountId}/conversations/${s.convId}/messages`, s.token, { content: `bench ${i}` })).id);
  }
  process.exit(0);
}

/** The injector (a child of the outbox scenario): copies of the template into the outbox at `rate`/s; prints the ids it committed. */
async function inject([file, rate, total, base]) {
  const template = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
  const db = new Pool({ connectionString: DATABASE, max: 4 });
  const sent = [];
  const failed = [];
  const pending = [];
  const t = Date.now();
  for (let i = 0; i < Number(total); i++) {
    const wait = t + (i * 1000) / Number(rate) - Date.now();
    if (wait > 0) await sleep(wait);
    const at = new Date();
    const id = Number(base) + i;
    const envelope = {
      ...template,
      id: randomUUID(),
      request_id: randomUUID(),
      occurred_at: at.toISOString(),
      data: { ...template.data, id, content: `bench ${i}`, created_at: Math.floor(at.getTime() / 1000), updated_at: at.toISOString() },
    };
    pending.push(
      db.query('INSERT INTO conversations.outbox (event_id, routing_key, payload) VALUES ($1, $2, $3)', [envelope.id, envelope.type, JSON.stringify(envelope)]).then(
        () => sent.push(id),
        (err) => failed.push(String(err.message).slice(0, 160)),
      ),
    );
  }
  await Promise.all(pending);
  await db.end();
  process.stdout.write(JSON.stringify({ sent, failed, seconds: (Date.now() - t) / 1000 }));
}

if (process.argv[2] === '--inject') {
  inject(process.argv.slice(3)).then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
} else main().catch((err) => {
  console.error(err);
  process.exit(1);
});
