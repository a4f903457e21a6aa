#!/usr/bin/env node
/* The /cable channel under load (issue 14 targets; docs/benchmarks.md). Measures and prints; never fails a build.
 *
 *   pnpm start                                    # a running stack (raise the gateway's rate limits)
 *   ulimit -n 65536 && pnpm --filter @parley/realtime bench
 *
 * Two scenarios, against a running stack:
 * - idle: BENCH_CABLE_IDLE (10000) sockets, each subscribed to RoomChannel, held open; then the
 *   realtime process's resident memory (its Prometheus endpoint, REALTIME_METRICS_URL). Target < 1 GB.
 * - latency: BENCH_CABLE_SUBSCRIBERS (1000) subscribers of one account while agent messages are
 *   posted at BENCH_CABLE_RATE (200/s) for BENCH_SECONDS (10); for every (message, subscriber) the
 *   time from the API's answer (the commit) to the frame on the socket. Target p99 <= 100 ms.
 *
 * Settings: GATEWAY_URL (http://127.0.0.1:3000), CABLE_URL (ws://127.0.0.1:3006/cable: straight to
 * the realtime service, so the gateway's proxy does not double the sockets; point it at the gateway's
 * /cable to measure both), PLATFORM_API_TOKEN. */
const WebSocket = require('ws');
const { callApi } = require('../../../scripts/bench-http');

const GATEWAY = process.env.GATEWAY_URL || 'http://127.0.0.1:3000';
const CABLE = process.env.CABLE_URL || 'ws://127.0.0.1:3006/cable';
const METRICS = process.env.REALTIME_METRICS_URL || 'http://127.0.0.1:9469/metrics';
const PLATFORM = process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';
const IDLE = Number(process.env.BENCH_CABLE_IDLE || 10_000);
const SUBSCRIBERS = Number(process.env.BENCH_CABLE_SUBSCRIBERS || 1000);
const RATE = Number(process.env.BENCH_CABLE_RATE || 200);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);

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

/** Opens `n` sockets subscribed to `identifier`, `batch` at a time; `onMessage` gets each data frame. */
async function openMany(n, identifier, onMessage, batch = 200) {
  const sockets = [];
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, () => new Promise((resolve, reject) => {
        const ws = new WebSocket(CABLE, ['actioncable-v1-json']);
        ws.on('error', reject);
        ws.on('message', (raw) => {
          const f = JSON.parse(raw.toString());
          if (f.type === 'welcome') ws.send(JSON.stringify({ command: 'subscribe', identifier }));
          else if (f.type === 'confirm_subscription') resolve();
          else if (f.type === 'reject_subscription') reject(new Error('subscription rejected'));
          // Told to come back (an owner check timed out): say so rather than wait for ever.
          else if (f.type === 'disconnect') reject(new Error(`disconnected before confirmation: ${f.reason}`));
          else if (f.message && onMessage) onMessage(f.message);
        });
        sockets.push(ws);
      })),
    );
  }
  return sockets;
}

async function rssMb() {
  try {
    const text = await (await fetch(METRICS)).text();
    const m = text.match(/^process_resident_memory_bytes(?:\{[^}]*\})? ([0-9.e+]+)$/m);
    return m ? Math.round(Number(m[1]) / 1048576) : null;
  } catch {
    return null;
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const s = await seed();
  console.log(`[cable bench] account ${s.accountId}; cable ${CABLE}`);

  const before = await rssMb();
  let t = Date.now();
  const idle = await openMany(IDLE, s.identifier, null);
  console.log(`idle: ${idle.length} subscribed sockets in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  await new Promise((r) => setTimeout(r, 5000));
  console.log(`idle: realtime RSS ${before ?? '?'} MB before, ${(await rssMb()) ?? '?'} MB with ${idle.length} sockets (target < 1024 MB)`);
  for (const ws of idle) ws.terminate();
  await new Promise((r) => setTimeout(r, 2000));

  const answered = new Map();
  // Every frame's arrival, matched with its message's API answer at the end: a frame that beats the
  // answer (the fan-out is faster than the HTTP reply) counts as 0 ms rather than dropping out.
  const arrivals = [];
  await openMany(SUBSCRIBERS, s.identifier, (m) => {
    if (m.event === 'message.created') arrivals.push([m.data.id, Date.now()]);
  });
  console.log(`latency: ${SUBSCRIBERS} subscribers; posting ${RATE} messages/s for ${SECONDS} s`);
  const total = RATE * SECONDS;
  const sends = [];
  const failed = [];
  t = Date.now();
  for (let i = 0; i < total; i++) {
    const due = t + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sends.push(
      call('POST', `/api/v1/accounts/${s.accountId}/conversations/${s.convId}/messages`, s.token, { content: `bench ${i}` })
        .then((msg) => answered.set(msg.id, Date.now()))
        .catch((err) => failed.push(err.message.slice(0, 120))),
    );
  }
  await Promise.all(sends);
  const achieved = total / ((Date.now() - t) / 1000);
  await new Promise((r) => setTimeout(r, 3000));
  const latencies = arrivals.filter(([id]) => answered.has(id)).map(([id, at]) => Math.max(0, at - answered.get(id)));
  const early = arrivals.filter(([id, at]) => answered.has(id) && at < answered.get(id)).length;
  latencies.sort((a, b) => a - b);
  console.log(`latency: posted ${total} (${achieved.toFixed(0)}/s achieved, ${failed.length} refused), ${arrivals.length} frames of ${answered.size * SUBSCRIBERS} expected for the accepted ones`);
  if (failed.length) console.log(`latency: first refusal: ${failed[0]}`);
  if (latencies.length) {
    console.log(`latency: API answer -> socket p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${latencies[latencies.length - 1]} ms (target p99 <= 100 ms; ${early} frames beat the answer and count as 0 ms)`);
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
