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
 *   for BENCH_SECONDS (10), to BENCH_CABLE_CONVERSATIONS (50) conversations in turn, each one's in
 *   the order of their times (one conversation taking 200 messages a second is not an account's
 *   traffic: the consumers that serialise on a conversation's row, reports, then work one event at
 *   a time; 1 measures that). Latency: from just before the INSERT that commits the event (an upper
 *   bound on its commit) to the frame on each socket. Target p99 <= 100 ms.
 * - log (only when named in BENCH_CABLE_ONLY): the same subscribers while copies of a real
 *   message.created entry are appended straight to the account's stream in Redis (the realtime log)
 *   at BENCH_CABLE_RATE, paced, with no consumer in between: the delivery alone, from the XADD to
 *   each socket, and its CPU without the rest of the stack's (BENCH_REDIS_URL, BENCH_NAMESPACE: the
 *   stack's REDIS_URL and NAMESPACE).
 * - api: the same subscribers while agent messages are posted through the gateway at
 *   BENCH_CABLE_API_RATE (BENCH_CABLE_RATE), to the same conversations in turn; latency from the message's `updated_at` (its
 *   transaction's start, before the commit: an upper bound) to each frame.
 * The CPU ms per event of each service during the outbox and api runs comes from /proc
 * (scripts/bench/proc-cpu.js): realtime's is what one event's fan-out to the subscribers costs.
 *
 * Settings: GATEWAY_URL (http://127.0.0.1:3000), CABLE_URL (ws://127.0.0.1:3006/cable: straight to
 * the realtime service, so the gateway's proxy does not double the sockets; point it at the gateway's
 * /cable to measure both; several, comma-separated, get BENCH_CABLE_SUBSCRIBERS each: two replicas
 * side by side compare two settings under the same load), PLATFORM_API_TOKEN, BENCH_DATABASE_URL (the stack's database, for the
 * outbox scenario). */
const { randomUUID } = require('node:crypto');
const path = require('node:path');
const WebSocket = require('ws');
const { Pool } = require('pg');
const { callApi } = require('../../../scripts/bench-http');
const procCpu = require('../../../scripts/bench/proc-cpu');

const GATEWAY = process.env.GATEWAY_URL || 'http://127.0.0.1:3000';
/** Several (comma-separated): BENCH_CABLE_SUBSCRIBERS on each, e.g. two replicas with different settings compared in one run. */
const CABLES = (process.env.CABLE_URL || 'ws://127.0.0.1:3006/cable').split(',');
const METRICS = process.env.REALTIME_METRICS_URL || 'http://127.0.0.1:9469/metrics';
const PLATFORM = process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';
const DATABASE = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley';
const IDLE = Number(process.env.BENCH_CABLE_IDLE || 10_000);
const SUBSCRIBERS = Number(process.env.BENCH_CABLE_SUBSCRIBERS || 1000);
const RATE = Number(process.env.BENCH_CABLE_RATE || 200);
const API_RATE = Number(process.env.BENCH_CABLE_API_RATE || RATE);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
/** Conversations the outbox and api scenarios' messages go to, in turn (1: all to one, as before 2026-11-30). */
const CONVERSATIONS = Math.max(1, Number(process.env.BENCH_CABLE_CONVERSATIONS || 50));
const REDIS = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const NAMESPACE = process.env.BENCH_NAMESPACE || '';
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
  const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: profile.pubsub_token, account_id: account.id, user_id: user.id });
  // A customer each, with a conversation each: the messages of the outbox and api scenarios go to
  // them in turn, as an account's traffic does (see CONVERSATIONS).
  const convIds = [];
  for (let i = 0; i < CONVERSATIONS; i++) {
    const contact = await call('POST', `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, null, { name: `Customer ${i}` });
    convIds.push((await call('POST', `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${contact.source_id}/conversations`, null, {})).id);
  }
  return { accountId: account.id, token, convId: convIds[0], convIds, identifier };
}

/**
 * Opens `n` sockets subscribed to `identifier`, `batch` at a time; once confirmed, `onFrame` gets
 * each frame's raw bytes and the socket's index (the load generator shares the machine: it parses
 * nothing it need not).
 */
async function openMany(n, identifier, onFrame, batch = 200) {
  const sockets = [];
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => new Promise((resolve, reject) => {
        const k = sockets.length;
        const ws = new WebSocket(CABLES[k % CABLES.length], ['actioncable-v1-json']);
        let confirmed = false;
        ws.on('error', reject);
        ws.on('message', (raw) => {
          if (confirmed) return onFrame?.(raw, k);
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
  const s = Float64Array.from(latencies).sort();
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

/** Where a message.created frame's message id begins, and its `updated_at`. */
const CREATED = Buffer.from('"event":"message.created","data":{"id":');
const UPDATED_AT = Buffer.from('"updated_at":"');

/** What one socket got: the message id of each message.created frame, in arrival order, and when. */
function received(capacity) {
  return { n: 0, ids: new Float64Array(capacity), at: new Float64Array(capacity) };
}
function record(r, id, at) {
  if (r.n === r.ids.length) {
    const ids = new Float64Array(r.n * 2);
    const ats = new Float64Array(r.n * 2);
    ids.set(r.ids);
    ats.set(r.at);
    r.ids = ids;
    r.at = ats;
  }
  r.ids[r.n] = id;
  r.at[r.n++] = at;
}

/**
 * Every socket must get the same sequence: each event sent once, in the stream's order (every
 * subscriber of one stream gets its entries in the same order). Answers the latencies (arrival minus
 * the message's `updated_at`) of the frames of sent events, per cable URL, and how many sockets got exactly that.
 */
function check(perSocket, sent, versions) {
  const counts = perSocket.map((r) => r.ids.subarray(0, r.n).reduce((c, id) => c + (sent.has(id) ? 1 : 0), 0));
  // The reference: the first socket that got every event once (then every other must match its order).
  let ref = [];
  for (const [k, r] of perSocket.entries()) {
    if (counts[k] !== sent.size) continue;
    const seq = Array.from(r.ids.subarray(0, r.n)).filter((id) => sent.has(id));
    if (new Set(seq).size === seq.length) {
      ref = seq;
      break;
    }
  }
  const complete = ref.length === sent.size && sent.size > 0;
  const latencies = CABLES.map((_, c) => new Float64Array(counts.reduce((a, b, k) => a + (k % CABLES.length === c ? b : 0), 0)));
  const filled = CABLES.map(() => 0);
  let frames = 0;
  let exact = 0;
  for (const [k, r] of perSocket.entries()) {
    const c = k % CABLES.length;
    let p = 0;
    let same = complete;
    for (let j = 0; j < r.n; j++) {
      const id = r.ids[j];
      if (!sent.has(id)) continue;
      if (ref[p] !== id) same = false;
      p++;
      latencies[c][filled[c]++] = Math.max(0, r.at[j] - versions.get(id));
      frames++;
    }
    if (same && p === ref.length) exact++;
  }
  return { frames, exact, latencies };
}

/**
 * Subscribers, then `send(i)` called `RATE` times a second for SECONDS; `send` resolves to the
 * message id or throws. Latency of every frame: arrival minus its message's `updated_at`.
 * With `inject` instead, a child process sends (so the frames this process reads do not slow the
 * sending down) and answers the ids it sent.
 */
async function delivery(label, s, rate, send, inject) {
  const total = rate * SECONDS;
  const subscribers = SUBSCRIBERS * CABLES.length;
  const perSocket = Array.from({ length: subscribers }, () => received(total + 16));
  /** Each message's `updated_at` (ms), read from the first frame that carries it: every socket gets the same. */
  const versions = new Map();
  let arrived = 0;
  // A message.created frame: `{"identifier":...,"message":{"event":"message.created","data":{"id":<id>,...,"updated_at":"<iso>",...`
  // Per frame: the id's digits and the arrival time; no string, no object.
  const sockets = await openMany(subscribers, s.identifier, (raw, k) => {
    const at = Date.now();
    const ev = raw.indexOf(CREATED);
    if (ev < 0) return;
    let i = ev + CREATED.length;
    let id = 0;
    for (let c = raw[i]; c >= 48 && c <= 57; c = raw[++i]) id = id * 10 + (c - 48);
    if (!versions.has(id)) {
      const v = raw.indexOf(UPDATED_AT, i) + UPDATED_AT.length;
      versions.set(id, Date.parse(raw.toString('latin1', v, v + 24)));
    }
    record(perSocket[k], id, at);
    arrived++;
  });
  await sleep(2000);
  console.log(`${label}: ${subscribers} subscribers; ${rate} messages/s for ${SECONDS} s`);
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
  for (let k = 0; k < 60 && arrived < sent.size * subscribers; k++) await sleep(500);
  const cpuLine = cpuPer(cpu, sent.size || 1);
  const { frames, exact, latencies } = check(perSocket, sent, versions);
  console.log(`${label}: sent ${total} (${achieved.toFixed(0)}/s achieved, ${failed.length} failed); ${frames} frames of ${sent.size * subscribers} expected; ${exact} of ${subscribers} sockets got every event once, in the same order`);
  if (failed.length) console.log(`${label}: first failure: ${failed[0]}`);
  const from = label === 'log' ? 'append' : 'commit';
  if (CABLES.length === 1) console.log(`${label}: ${from} -> socket ${summary(latencies[0])} (target p99 <= 100 ms)`);
  else for (const [c, url] of CABLES.entries()) console.log(`${label}: ${from} -> socket via ${url} ${summary(latencies[c])}`);
  console.log(`${label}: CPU ms per event: ${cpuLine}`);
  for (const ws of sockets) ws.terminate();
  await sleep(3000);
}

async function main() {
  procCpu.configure?.({ root: path.resolve(__dirname, '..', '..', '..'), database: new URL(DATABASE).pathname.slice(1) });
  const s = await seed();
  console.log(`[cable bench] account ${s.accountId}; cable ${CABLES.join(', ')}`);
  if (ONLY.has('idle')) await idle(s);

  if (ONLY.has('outbox')) {
    // A real agent message's event in each conversation, copied with new ids: what a committed message puts in the outbox.
    const db = new Pool({ connectionString: DATABASE, max: 4 });
    const templates = [];
    for (const convId of s.convIds) {
      const first = await call('POST', `/api/v1/accounts/${s.accountId}/conversations/${convId}/messages`, s.token, { content: 'template' });
      const { rows } = await db.query(`SELECT payload FROM conversations.outbox WHERE routing_key = 'message.created' AND (payload->'data'->>'id')::bigint = $1`, [first.id]);
      if (!rows[0]) throw new Error('the template message.created is not in conversations.outbox (is BENCH_DATABASE_URL the stack\'s database?)');
      templates.push(rows[0].payload);
    }
    const base = 1_900_000_000 + Math.floor(Math.random() * 100_000_000);
    await db.end();
    const file = path.join(require('node:os').tmpdir(), `cable-template-${process.pid}.json`);
    require('node:fs').writeFileSync(file, JSON.stringify(templates));
    await delivery('outbox', s, RATE, null, (total) => injector('--inject', file, total, base));
  }

  if (ONLY.has('log')) {
    // A real message's entry in the account's stream, copied with new ids straight into the stream.
    const Redis = require('ioredis');
    const redis = new Redis(REDIS);
    const key = `${NAMESPACE}rt:account:${s.accountId}`;
    const first = await call('POST', `/api/v1/accounts/${s.accountId}/conversations/${s.convId}/messages`, s.token, { content: 'template' });
    let template = null;
    for (let k = 0; k < 60 && !template; k++) {
      for (const [, fields] of await redis.xrevrange(key, '+', '-', 'COUNT', 50)) {
        const body = JSON.parse(fields[1]);
        if (body.kind === 'event' && body.event === 'message.created' && body.data.id === first.id) template = body;
      }
      if (!template) await sleep(500);
    }
    redis.disconnect();
    if (!template) throw new Error(`the template message.created is not in ${key} (are BENCH_REDIS_URL and BENCH_NAMESPACE the stack's?)`);
    const file = path.join(require('node:os').tmpdir(), `cable-entry-${process.pid}.json`);
    require('node:fs').writeFileSync(file, JSON.stringify({ key, template }));
    const base = 1_900_000_000 + Math.floor(Math.random() * 100_000_000);
    await delivery('log', s, RATE, null, (total) => injector('--inject-log', file, total, base));
  }

  if (ONLY.has('api')) {
    await delivery('api', s, API_RATE, async (i) => (await call('POST', `/api/v1/accounts/${s.accountId}/conversations/${s.convIds[i % s.convIds.length]}/messages`, s.token, { content: `bench ${i}` })).id);
  }
  process.exit(0);
}

/** Runs an injector (this file with `mode`) in a child process; resolves to what it sent. */
function injector(mode, file, total, base) {
  return new Promise((resolve, reject) => {
    const child = require('node:child_process').spawn(process.execPath, [__filename, mode, file, String(RATE), String(total), String(base)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`injector exited ${code}`))));
  });
}

/**
 * The injector (a child of the outbox scenario): copies of the templates (one a conversation) into
 * the outbox at `rate`/s, the conversations in turn; prints the ids it committed.
 */
async function inject([file, rate, total, base]) {
  const templates = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
  // Two connections, each conversation's messages always on the same one: a connection runs its
  // statements in the order they were sent, so each conversation's events commit in the order of
  // their times, as its row lock makes a real conversation's do. With messages spread over four
  // connections (and all to one conversation, before 2026-11-30), some committed out of order, and
  // each such late message had the reports service rebuild the conversation from all its facts.
  const lanes = [new Pool({ connectionString: DATABASE, max: 1 }), new Pool({ connectionString: DATABASE, max: 1 })];
  const sent = [];
  const failed = [];
  const pending = [];
  const t = Date.now();
  for (let i = 0; i < Number(total); i++) {
    const wait = t + (i * 1000) / Number(rate) - Date.now();
    if (wait > 0) await sleep(wait);
    const at = new Date();
    const id = Number(base) + i;
    const c = i % templates.length;
    const template = templates[c];
    const db = lanes[c % lanes.length];
    const envelope = {
      ...template,
      id: randomUUID(),
      request_id: randomUUID(),
      occurred_at: at.toISOString(),
      data: { ...template.data, id, content: `bench ${i}`, created_at: Math.floor(at.getTime() / 1000), updated_at: at.toISOString() },
    };
    pending.push(
      // A row written outside the service wakes its relay with a NOTIFY (packages/shared/src/outbox.ts).
      db.query(`WITH w AS (INSERT INTO conversations.outbox (event_id, routing_key, payload) VALUES ($1, $2, $3) RETURNING 1) SELECT pg_notify('outbox_conversations', '') FROM w`, [envelope.id, envelope.type, JSON.stringify(envelope)]).then(
        () => sent.push(id),
        (err) => failed.push(String(err.message).slice(0, 160)),
      ),
    );
  }
  await Promise.all(pending);
  for (const db of lanes) await db.end();
  process.stdout.write(JSON.stringify({ sent, failed, seconds: (Date.now() - t) / 1000 }));
}

/** The log scenario's injector: copies of the entry appended to the stream at `rate`/s (XADD, trimmed as the log trims). */
async function injectLog([file, rate, total, base]) {
  const { key, template } = JSON.parse(require('node:fs').readFileSync(file, 'utf8'));
  const Redis = require('ioredis');
  const redis = new Redis(REDIS);
  const sent = [];
  const failed = [];
  const pending = [];
  const t = Date.now();
  for (let i = 0; i < Number(total); i++) {
    const wait = t + (i * 1000) / Number(rate) - Date.now();
    if (wait > 0) await sleep(wait);
    const at = new Date();
    const id = Number(base) + i;
    const body = { ...template, data: { ...template.data, id, content: `bench ${i}`, created_at: Math.floor(at.getTime() / 1000), updated_at: at.toISOString() } };
    pending.push(
      redis.xadd(key, 'MAXLEN', '~', '10000', '*', 'e', JSON.stringify(body)).then(
        () => sent.push(id),
        (err) => failed.push(String(err.message).slice(0, 160)),
      ),
    );
  }
  await Promise.all(pending);
  redis.disconnect();
  process.stdout.write(JSON.stringify({ sent, failed, seconds: (Date.now() - t) / 1000 }));
}

const INJECTORS = { '--inject': inject, '--inject-log': injectLog };
if (INJECTORS[process.argv[2]]) {
  INJECTORS[process.argv[2]](process.argv.slice(3)).then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
} else main().catch((err) => {
  console.error(err);
  process.exit(1);
});
