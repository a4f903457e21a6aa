/* CPU time of every process of the stack, read from /proc (utime + stime, and for the Postgres
 * postmaster also its exited children's cutime + cstime, so backends that come and go are counted).
 * CPU per request is steady on a noisy machine; req/s is not (issue 12).
 *
 *   const { snapshot, diff, calls } = require('./proc-cpu');
 *   const a = snapshot(); ...run...; const perProcess = diff(a, snapshot()); // { gateway: ms, postgres: ms, ... }
 *   calls(a, b)   // the same groups' read and write system calls in between (/proc/<pid>/io)
 *
 * Groups: each service by its `services/<name>/dist/main.js` command line, `postgres`, `rabbitmq`
 * (beam.smp and its helpers), `redis`, `ceiling` (a process whose command line names
 * `parley-bench-ceiling`: the benchmark's bare servers) and `bench` (this process: the load generator).
 *
 * On a machine shared with other stacks (other worktrees' test runs), `configure({ root, database })`
 * narrows the groups to this stack: services only when their command line is under `root`, and
 * `postgres` only the backends connected to `database` (counted per process: a backend present at
 * both snapshots counts its difference, a new one all of its time; one that exits in between loses
 * its share, which pooled connections rarely do). The whole server, other databases, background
 * writers and exited backends included, is then the separate group `postgres_server` (never in the
 * sum of the caller's choosing). RabbitMQ and Redis cannot be split by client: the benchmark gives
 * its stack private ones (`rabbitmqPgid`, `redis`) unless told not to. */
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
    return { ppid: Number(rest[1]), pgrp: Number(rest[2]), utime: Number(rest[11]), stime: Number(rest[12]), cutime: Number(rest[13]), cstime: Number(rest[14]) };
  } catch {
    return null;
  }
}

/**
 * The system calls a process made that read or wrote (`syscr` + `syscw` of /proc/<pid>/io: read,
 * write, readv, writev, recvmsg, sendto and the like, every thread's, the exited ones' too): a
 * socket message each, mostly, so a round trip or a publish saved shows here whatever the host's
 * speed. 0 when the kernel does not keep them (no task I/O accounting) or the process is gone.
 */
function readCalls(pid) {
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    return Number(/^syscr: (\d+)/m.exec(io)?.[1] ?? 0) + Number(/^syscw: (\d+)/m.exec(io)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

const scope = { root: null, database: null, parentPid: null, rabbitmqPgid: null, redis: null };

/** Narrows the groups to one stack (see the header); `parentPid`: services only if children of it (scripts/start.js). */
function configure(o = {}) {
  scope.root = o.root ?? null;
  scope.database = o.database ?? null;
  scope.parentPid = o.parentPid ?? null;
  // Private servers: RabbitMQ by its process group (the Erlang VM's command line names no node),
  // Redis by the text of its command line (its address).
  scope.rabbitmqPgid = o.rabbitmqPgid ?? null;
  scope.redis = o.redis ?? null;
}

function groupOf(pid, cmd) {
  if (pid === process.pid) return 'bench';
  if (cmd.includes('parley-bench-ceiling')) return 'ceiling';
  const svc = /services\/([a-z]+)\/dist\/main\.js/.exec(cmd);
  if (svc) return scope.root === null || cmd.includes(`${scope.root}/services/`) ? svc[1] : null;
  if (/^postgres[: ]|\/postgres /.test(cmd) || /^postgres:/.test(cmd)) return 'postgres';
  if (/beam\.smp|erl_child_setup|inet_gethost|epmd/.test(cmd)) return 'rabbitmq';
  if (/redis-server/.test(cmd)) return scope.redis === null || cmd.includes(scope.redis) ? 'redis' : null;
  return null;
}

/**
 * Clock ticks per group right now (and `calls`, their read and write system calls: readCalls). Only
 * the postmaster counts its reaped children's ticks; no process counts their calls.
 */
function snapshot() {
  const ticks = {};
  const calls = {};
  const perPid = {};
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const pgPids = new Set();
  const stats = new Map();
  for (const pid of pids) {
    const cmd = cmdline(pid);
    const group = groupOf(pid, cmd);
    if (!group) continue;
    const st = readStat(pid);
    if (!st) continue;
    if (group === 'rabbitmq' && scope.rabbitmqPgid !== null && st.pgrp !== scope.rabbitmqPgid) continue;
    if (scope.parentPid !== null && !['postgres', 'rabbitmq', 'redis', 'bench', 'ceiling'].includes(group) && st.ppid !== scope.parentPid) continue;
    stats.set(pid, { group, st });
    if (group === 'postgres') pgPids.add(pid);
  }
  // `postgres: <cluster>: <user> <database> <host(port)> <state>` (update_process_title)
  const ours = scope.database === null ? null : new RegExp(`^postgres: (?:\\S+: )?\\S+ ${scope.database.replace(/[^A-Za-z0-9_]/g, '')} `);
  for (const [pid, { group, st }] of stats) {
    let t = st.utime + st.stime;
    const c = readCalls(pid);
    // the postmaster (a postgres process whose parent is not postgres) inherits its backends' CPU when they exit
    if (group === 'postgres' && !pgPids.has(st.ppid)) t += st.cutime + st.cstime;
    if (group === 'postgres' && ours !== null) {
      ticks.postgres_server = (ticks.postgres_server || 0) + t;
      calls.postgres_server = (calls.postgres_server || 0) + c;
      const title = cmdline(pid);
      if (ours.test(title)) perPid[pid] = { t: st.utime + st.stime, c, role: /^postgres: (?:\S+: )?svc_([a-z]+) /.exec(title)?.[1] ?? 'other' };
      continue;
    }
    ticks[group] = (ticks[group] || 0) + t;
    calls[group] = (calls[group] || 0) + c;
  }
  return { at: process.hrtime.bigint(), ticks, calls, perPid: ours === null ? null : perPid };
}

/** CPU milliseconds per group between two snapshots (and `total`: every group but `postgres_server`
 * and the `pg_<service>` split of `postgres`, by the role each backend serves). */
function diff(a, b) {
  return between(a, b, 'ticks', 't', tickMs);
}

/** Read and write system calls per group between two snapshots (readCalls), totalled as diff() does. */
function calls(a, b) {
  return between(a, b, 'calls', 'c', 1);
}

function between(a, b, field, perPidField, unit) {
  const out = {};
  let total = 0;
  const before = a[field] ?? {};
  const after = b[field] ?? {};
  for (const g of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const v = Math.max(0, ((after[g] || 0) - (before[g] || 0)) * unit);
    out[g] = v;
    if (g !== 'postgres_server') total += v;
  }
  if (a.perPid && b.perPid) {
    let t = 0;
    for (const [pid, v] of Object.entries(b.perPid)) {
      const d = Math.max(0, (v[perPidField] || 0) - (a.perPid[pid]?.[perPidField] || 0));
      t += d;
      // the backends' share by the service role they serve (`pg_<service>`: never in the total)
      out[`pg_${v.role}`] = (out[`pg_${v.role}`] || 0) + d * unit;
    }
    out.postgres = t * unit;
    total += out.postgres;
  }
  out.total = total;
  return out;
}

/**
 * diff() less what the same groups burn when idle (`idlePerSecond`, ms of CPU per second, from a
 * quiet stretch measured the same way), over `seconds`: timers, pollers, relays and other tenants'
 * load on the shared servers are not any request's cost. Never below zero.
 */
function net(cpuMs, idlePerSecond, seconds) {
  if (!idlePerSecond) return cpuMs;
  const out = {};
  let total = 0;
  for (const [g, ms] of Object.entries(cpuMs)) {
    if (g === 'total') continue;
    out[g] = Math.max(0, ms - (idlePerSecond[g] || 0) * seconds);
    if (g !== 'postgres_server' && !g.startsWith('pg_')) total += out[g];
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

module.exports = { configure, snapshot, diff, calls, net, perRequest, tickMs };
