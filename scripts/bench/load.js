/* One measured load: autocannon through the gateway, latency of every response kept (autocannon
 * reports no p95), CPU per process group from /proc before and after (after the event consumers
 * drained, for writes). */
const autocannon = require('autocannon');
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
 * Runs one scenario. `o.requests` are autocannon request objects (a `pick()` on one varies its
 * path per request); `o.rate` (req/s over all connections) makes it a fixed offered rate.
 * Never throws: a failure is the answer's `error`.
 */
async function runLoad(base, o) {
  const before = cpu.snapshot();
  const times = [];
  let r;
  try {
    r = await new Promise((resolve, reject) => {
      const inst = autocannon(
        {
          url: base,
          connections: o.connections,
          duration: o.seconds,
          ...(o.rate ? { overallRate: o.rate } : {}),
          requests: o.requests,
          timeout: 10,
        },
        (err, res) => (err ? reject(err) : resolve(res)),
      );
      inst.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
    });
    if (o.afterLoad) await o.afterLoad();
  } catch (err) {
    return { error: String(err && err.message ? err.message : err) };
  }
  const u = used(before, cpu.snapshot());
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
    cpuSeconds: Math.round(u.seconds * 10) / 10,
    statusCodes: r.statusCodeStats,
  };
}

module.exports = { runLoad, summarize, setIdle, used };
