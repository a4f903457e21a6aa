/* CPU time of every process of the stack, read from /proc (utime + stime, and for the Postgres
 * postmaster also its exited children's cutime + cstime, so backends that come and go are counted).
 * CPU per request is steady on a noisy machine; req/s is not (issue 12).
 *
 *   const { snapshot, diff } = require('./proc-cpu');
 *   const a = snapshot(); ...run...; const perProcess = diff(a, snapshot()); // { gateway: ms, postgres: ms, ... }
 *
 * Groups: each service by its `services/<name>/dist/main.js` command line, `postgres`, `rabbitmq`
 * (beam.smp and its helpers), `redis`, and `bench` (this process: the load generator). */
const fs = require('node:fs');
const { execFileSync } = require('node:child_process');

let tickMs = 10;
try {
  tickMs = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
} catch {
  /* 100 Hz is Linux's USER_HZ everywhere we run */
}

function readStat(pid) {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may hold spaces and parentheses: split after the last ')'
    const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); utime is field 14, stime 15, cutime 16, cstime 17
    return { ppid: Number(rest[1]), utime: Number(rest[11]), stime: Number(rest[12]), cutime: Number(rest[13]), cstime: Number(rest[14]) };
  } catch {
    return null;
  }
}

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function groupOf(pid, cmd) {
  if (pid === process.pid) return 'bench';
  const svc = /services\/([a-z]+)\/dist\/main\.js/.exec(cmd);
  if (svc) return svc[1];
  if (/^postgres[: ]|\/postgres /.test(cmd) || /^postgres:/.test(cmd)) return 'postgres';
  if (/beam\.smp|erl_child_setup|inet_gethost|epmd/.test(cmd)) return 'rabbitmq';
  if (/redis-server/.test(cmd)) return 'redis';
  return null;
}

/** Clock ticks per group right now. Only the postmaster counts its reaped children. */
function snapshot() {
  const ticks = {};
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const pgPids = new Set();
  const stats = new Map();
  for (const pid of pids) {
    const cmd = cmdline(pid);
    const group = groupOf(pid, cmd);
    if (!group) continue;
    const st = readStat(pid);
    if (!st) continue;
    stats.set(pid, { group, st });
    if (group === 'postgres') pgPids.add(pid);
  }
  for (const [, { group, st }] of stats) {
    let t = st.utime + st.stime;
    // the postmaster (a postgres process whose parent is not postgres) inherits its backends' CPU when they exit
    if (group === 'postgres' && !pgPids.has(st.ppid)) t += st.cutime + st.cstime;
    ticks[group] = (ticks[group] || 0) + t;
  }
  return { at: process.hrtime.bigint(), ticks };
}

/** CPU milliseconds per group between two snapshots (and `total`). */
function diff(a, b) {
  const out = {};
  let total = 0;
  for (const g of new Set([...Object.keys(a.ticks), ...Object.keys(b.ticks)])) {
    const ms = Math.max(0, ((b.ticks[g] || 0) - (a.ticks[g] || 0)) * tickMs);
    out[g] = ms;
    total += ms;
  }
  out.total = total;
  return out;
}

/** diff() divided by a request count, rounded to 0.01 ms. */
function perRequest(cpuMs, requests) {
  const out = {};
  for (const [g, ms] of Object.entries(cpuMs)) out[g] = requests > 0 ? Math.round((ms / requests) * 100) / 100 : null;
  return out;
}

module.exports = { snapshot, diff, perRequest, tickMs };
