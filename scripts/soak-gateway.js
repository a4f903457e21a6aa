#!/usr/bin/env node
/*
 * Gateway memory under steady authenticated traffic (issue 13, finding 5): 16 connections for
 * `seconds`, a mix of profile (served by the gateway), labels and the open conversation list
 * (proxied), sampling the gateway's RSS (/proc) and V8 heap (its /metrics) every 20 s. A leak shows
 * as a heap floor (the low points after collections) that keeps rising; a plateau is V8 sizing.
 *
 *   node scripts/soak-gateway.js <gateway pid> <api_access_token> <account id> <seconds> [metrics url]
 */
const autocannon = require('autocannon');
const fs = require('fs');
const [pid, token, account, seconds, metricsUrl = 'http://127.0.0.1:9464/metrics'] = process.argv.slice(2);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
async function heap() {
  const t = await (await fetch(metricsUrl)).text();
  const v = (n) => Number(new RegExp(`^${n}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(t)?.[1] ?? NaN) / 1048576;
  return { heapUsed: v('nodejs_heap_size_used_bytes').toFixed(1), heapTotal: v('nodejs_heap_size_total_bytes').toFixed(1) };
}
(async () => {
  const start = Date.now();
  const timer = setInterval(async () => console.log(JSON.stringify({ t: Math.round((Date.now() - start) / 1000), rssMB: rss().toFixed(1), ...(await heap()) })), 20_000);
  console.log(JSON.stringify({ t: 0, rssMB: rss().toFixed(1), ...(await heap()) }));
  const r = await autocannon({
    url: process.env.GATEWAY_URL || 'http://127.0.0.1:3000', connections: 16, duration: Number(seconds),
    requests: [
      { method: 'GET', path: '/api/v1/profile', headers: { api_access_token: token } },
      { method: 'GET', path: `/api/v1/accounts/${account}/labels`, headers: { api_access_token: token } },
      { method: 'GET', path: `/api/v1/accounts/${account}/conversations?status=open`, headers: { api_access_token: token } },
    ],
  });
  clearInterval(timer);
  console.log(JSON.stringify({ requests: r.requests.total, non2xx: r.non2xx, errors: r.errors, rssMB: rss().toFixed(1), ...(await heap()) }));
})();
