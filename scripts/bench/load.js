/* One measured load through the gateway, latency of every response kept, CPU per process group from
 * /proc before and after (after the event consumers drained, for writes).
 *
 * At saturation: autocannon (closed loop: each connection sends its next request when the last one
 * answers). At a fixed offered rate: an open-loop pacer on undici's Pool, request i due at
 * t0 + i/rate and its latency counted from that due time, as wrk2 does. Autocannon's own rate limit
 * is not used there: each connection sends its whole per-second quota back to back when its
 * one-second tick fires, so "100 req/s" arrives as a burst of 100 at the top of every second and
 * p50/p95 measure the queue of that burst, not what a user sees at an even 100 req/s. */
const autocannon = require('autocannon');
const { Pool } = require('undici');
const cpu = require('./proc-cpu');

let idlePerSecond = null;
/** The stack's idle CPU (ms per second per group), subtracted from every measurement after this. */
function setIdle(rates) {
  idlePerSecond = rates;
}

/** CPU ms per group between two snapshots, less the idle share; `raw` without that. */
function used(before, after) {
  const raw = cpu.diff(before, after);
  const seconds = Number(after.at - before.at) / 1e9;
  return { raw, net: cpu.net(raw, idlePerSecond, seconds), seconds };
}

/**
 * Read and write system calls a request per group between two snapshots (proc-cpu's `calls`), the
 * stack's alone in `total` (not the load generator's, nor a ceiling's): about a socket message each,
 * so a round trip saved shows here whatever the host's speed. Idle calls (pollers) are not taken off.
 */
function callsPerRequest(before, after, served) {
  const { bench = 0, ceiling = 0, ...c } = cpu.calls(before, after);
  return cpu.perRequest({ ...c, total: c.total - bench - ceiling }, served);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Latency summary (ms, rounded to 0.1) of response times. */
function summarize(times) {
  const s = Float64Array.from(times).sort();
  const r = (v) => (v === null ? null : Math.round(v * 10) / 10);
  return { p50: r(percentile(s, 50)), p95: r(percentile(s, 95)), p99: r(percentile(s, 99)), max: r(s.length ? s[s.length - 1] : null) };
}

/**
 * One autocannon run at saturation: its result. `onResponse` sees each answer; `capSeconds` stops
 * the run then if it has not ended. Options autocannon refuses reject at once (no instance runs).
 */
function cannon(opts, { onResponse, capSeconds } = {}) {
  return new Promise((resolve, reject) => {
    let cap = null;
    const inst = autocannon({ timeout: 10, ...opts }, (err, res) => {
      clearTimeout(cap);
      if (err) reject(err);
      else resolve(res);
    });
    if (typeof inst?.stop !== 'function') return;
    if (onResponse) inst.on('response', onResponse);
    if (capSeconds) cap = setTimeout(() => inst.stop(), capSeconds * 1000);
  });
}

/**
 * Runs one scenario. `o.requests` are autocannon request objects (a `pick()` on one varies its
 * path per request); `o.rate` (req/s over all connections) makes it a fixed offered rate.
 * Never throws: a failure is the answer's `error`.
 */
async function runLoad(base, o) {
  if (o.rate) return paced(base, o);
  const before = cpu.snapshot();
  const times = [];
  let r;
  try {
    r = await cannon({ url: base, connections: o.connections, duration: o.seconds, requests: o.requests }, { onResponse: (_client, _status, _bytes, responseTime) => times.push(responseTime) });
    if (o.afterLoad) await o.afterLoad();
  } catch (err) {
    return { error: String(err && err.message ? err.message : err) };
  }
  const after = cpu.snapshot();
  const u = used(before, after);
  const ok = r['2xx'];
  const served = ok + r.non2xx;
  return {
    requests: served,
    ok,
    errors: r.non2xx + r.errors + r.timeouts,
    rps: Math.round((served / o.seconds) * 10) / 10,
    latency: summarize(times),
    cpuMsPerRequest: cpu.perRequest(u.net, served),
    cpuMsPerRequestRaw: cpu.perRequest(u.raw, served),
    callsPerRequest: callsPerRequest(before, after, served),
    cpuSeconds: Math.round(u.seconds * 10) / 10,
    statusCodes: r.statusCodeStats,
    /** The net CPU ms of each group over the whole run, unrounded per request (for ceilings finer than 0.01 ms). */
    cpuMsNet: u.net,
  };
}

/**
 * The request objects of a scenario, one after another as autocannon sends them (its `setupRequest`
 * applied to each), as undici request options.
 */
function* requestSequence(requests) {
  for (let i = 0; ; i++) {
    const base = requests[i % requests.length];
    const r = base.setupRequest ? base.setupRequest({ ...base }) : base;
    yield { method: r.method ?? 'GET', path: r.path, headers: r.headers ?? {}, body: r.body };
  }
}

/**
 * `o.rate` req/s for `o.seconds`, evenly spaced, over at most `o.connections` keep-alive
 * connections (a request finding them all busy waits in the pool's queue, and that wait is in its
 * latency: it is measured from when it was due, not from when it left).
 */
async function paced(base, o) {
  const pool = new Pool(base, { connections: o.connections, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const total = Math.max(1, Math.round(o.rate * o.seconds));
  const next = requestSequence(o.requests);
  const times = [];
  const statusCodes = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const inflight = new Set();
  const send = (due) => {
    const p = pool
      .request(next.next().value)
      .then(async (res) => {
        await res.body.dump();
        times.push(performance.now() - due);
        statusCodes[res.statusCode] = { count: (statusCodes[res.statusCode]?.count ?? 0) + 1 };
        if (res.statusCode >= 200 && res.statusCode < 300) ok++;
        else non2xx++;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };
  const before = cpu.snapshot();
  const t0 = performance.now() + 5;
  try {
    for (let i = 0; i < total; ) {
      const now = performance.now();
      // Everything due by now leaves now (a late timer must not thin the offered rate).
      while (i < total && t0 + (i * 1000) / o.rate <= now) send(t0 + (i++ * 1000) / o.rate);
      if (i < total) await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i * 1000) / o.rate - performance.now())));
    }
    await Promise.allSettled([...inflight]);
    if (o.afterLoad) await o.afterLoad();
  } catch (err) {
    return { error: String(err && err.message ? err.message : err) };
  } finally {
    await pool.close().catch(() => undefined);
  }
  const after = cpu.snapshot();
  const u = used(before, after);
  const served = ok + non2xx;
  return {
    requests: served,
    ok,
    errors: non2xx + errors,
    rps: Math.round((served / o.seconds) * 10) / 10,
    latency: summarize(times),
    cpuMsPerRequest: cpu.perRequest(u.net, served),
    cpuMsPerRequestRaw: cpu.perRequest(u.raw, served),
    callsPerRequest: callsPerRequest(before, after, served),
    cpuSeconds: Math.round(u.seconds * 10) / 10,
    statusCodes,
    paced: true,
    cpuMsNet: u.net,
  };
}

/**
 * Unmeasured load before a scenario's measurement: `o.amount` requests at saturation (`o.connections`),
 * or what `o.capSeconds` allows. A stack started for the run executes its code cold at first (V8
 * interprets a function before it compiles it, and compiles the hot ones after some thousands of
 * calls); a service that has run for a while does not. Answers the requests sent, the time, the
 * stack's CPU per request over them (the cold figure) and, after `o.afterLoad` (a drain), `drained:
 * false` if it answered false. Never throws: a failure is the answer's `error`.
 */
async function warmUp(base, o) {
  const before = cpu.snapshot();
  const t0 = performance.now();
  try {
    // autocannon refuses fewer requests than connections.
    const r = await cannon({ url: base, connections: Math.max(1, Math.min(o.connections, o.amount)), amount: o.amount, requests: o.requests }, { capSeconds: o.capSeconds });
    const drained = o.afterLoad ? await o.afterLoad() : true;
    const served = r['2xx'] + r.non2xx;
    return {
      requests: served,
      seconds: Math.round((performance.now() - t0) / 100) / 10,
      cpuMsPerRequest: cpu.perRequest(used(before, cpu.snapshot()).net, served),
      ...(drained === false ? { drained: false } : {}),
    };
  } catch (err) {
    return { error: String(err && err.message ? err.message : err) };
  }
}

module.exports = { runLoad, warmUp, summarize, setIdle, used };
