#!/usr/bin/env node
/* Two builds measured side by side, at the same time (issue 12): this checkout (B) against a git
 * revision (A, default HEAD: an A/A run, which tells the method's own noise).
 *
 *   node scripts/bench/ab.js [<git revision>]      # BENCH_ONLY, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_AB_ROUNDS
 *   BENCH_AB_ENV_B='SERVICE_NODE_ARGS=--maglev' node scripts/bench/ab.js   # one build, two settings
 *
 * Why: on a shared two-core host the CPU a request costs moves with the host's speed (a fifth either
 * way within an hour, docs/benchmarks.md), so runs one after the other cannot tell a change of 5-10%.
 * Here both stacks take the same load at the same moment, so whatever slows the host slows both, and
 * the ratio of their CPU per request is what the change did.
 *
 * A is checked out (detached) under /tmp/parley-ab/<sha>, installed offline and built once. Each side
 * gets a database of its own with the small data set made fresh, a private RabbitMQ and Redis (their
 * CPU counted for their side alone), its own port block, and the same scenarios as `pnpm bench`
 * (small account, saturation, BENCH_CONNECTIONS each). Every round runs a scenario on both at once
 * for BENCH_SECONDS, after a warm-up of both together; writes are drained before the CPU is read.
 * Prints each round's stack CPU ms per request of A and B and B/A, then the median ratio per scenario
 * and, for the median round, the processes that moved most. Measures and prints; writes nothing. */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const autocannon = require('autocannon');
const cpu = require('./proc-cpu');
const { generate, SMALL, sizesFromEnv } = require('./generate');
const { ensureDatabase, startStack, makeDrain, scenarios, writeTargets } = require('./run');

const root = path.resolve(__dirname, '..', '..');
const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 16);
const ROUNDS = Math.max(1, Number(env.BENCH_AB_ROUNDS || 6));
const WARM_SECONDS = Number(env.BENCH_AB_WARMUP_SECONDS || 10);
const ONLY = new RegExp(env.BENCH_ONLY || '^(labels|list|message_create)$');
const PLATFORM = env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';
const BASE_DB = env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley_bench';
const log = (line) => process.stdout.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** The revision's checkout, installed and built (once: reused while its directory has dist/). */
function checkout(rev) {
  const sha = git('rev-parse', '--verify', `${rev}^{commit}`);
  const dir = path.join('/tmp/parley-ab', sha);
  if (!fs.existsSync(path.join(dir, 'services', 'gateway', 'dist', 'main.js'))) {
    if (!fs.existsSync(dir)) git('worktree', 'add', '--detach', dir, sha);
    log(`[ab] installing and building ${sha.slice(0, 12)} in ${dir}`);
    execFileSync('pnpm', ['install', '--offline', '--frozen-lockfile'], { cwd: dir, stdio: 'inherit' });
    execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
  }
  return { sha, dir };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
};
const round2 = (v) => Math.round(v * 100) / 100;

/** CPU snapshots of both sides at one moment (proc-cpu keeps one scope: set before each). */
function snapshots(sides) {
  return sides.map((s) => {
    cpu.configure(s.scope);
    return cpu.snapshot();
  });
}

/**
 * One load on one side, in a child process of its own (`--load`): one process loading both sides
 * served one first (in an A/A run the list's A got 10-15% more requests in every round, and
 * cost less a request for it). Answers the requests served.
 */
function load(job, seconds) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [__filename, '--load', JSON.stringify({ ...job, seconds })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`load of ${job.key} exited ${code}`))));
  });
}

/** The child's side of `load`: the scenario's requests built as `pnpm bench` builds them, sent for `seconds`. */
async function loadChild(job) {
  const db = new Client({ connectionString: job.databaseUrl });
  await db.connect();
  const targets = await writeTargets(db, job.d);
  await db.end();
  const found = scenarios(job.d, targets).find(([key]) => key === job.key);
  if (!found) throw new Error(`no scenario ${job.key}`);
  const r = await new Promise((resolve, reject) => {
    autocannon({ url: job.base, connections: CONNECTIONS, duration: job.seconds, requests: found[3], timeout: 10 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
  process.stdout.write(`${r['2xx'] + r.non2xx}\n`);
}

async function side(label, dir, portOffset) {
  const { PrivateRabbit, PrivateRedis } = require('@parley/testkit');
  const [mq, redis] = await Promise.all([PrivateRabbit.start(), PrivateRedis.start()]);
  const u = new URL(BASE_DB);
  u.pathname = `/parley_ab_${label.toLowerCase()}`;
  const databaseUrl = u.toString();
  await ensureDatabase(databaseUrl, { fresh: true });
  const namespace = `ab${label.toLowerCase()}.`;
  // BENCH_AB_ENV_A / BENCH_AB_ENV_B: settings for one side only ("KEY=value KEY2=value"), to compare settings of one build.
  const extra = Object.fromEntries((env[`BENCH_AB_ENV_${label}`] || '').split(/\s+(?=[A-Z_][A-Z0-9_]*=)/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const stack = await startStack(databaseUrl, { root: dir, amqpUrl: mq.url, redisUrl: redis.url, namespace, portOffset, quiet: true, env: extra });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const { drain, close } = await makeDrain(db, { amqpUrl: mq.url, namespace });
  const d = await generate({ base: stack.base, databaseUrl, platformToken: PLATFORM, label: 'small', sizes: sizesFromEnv(SMALL), log: () => undefined });
  await drain(300_000);
  const scope = { root: dir, database: u.pathname.slice(1), parentPid: stack.child.pid, rabbitmqPgid: mq.proc.pid, redis: `:${redis.port}` };
  const list = scenarios(d, await writeTargets(db, d)).filter(([key]) => ONLY.test(key));
  log(`[ab] ${label}: ${dir} on ${stack.base}, database ${u.pathname.slice(1)}${Object.keys(extra).length ? `, with ${JSON.stringify(extra)}` : ''}`);
  return {
    label,
    base: stack.base,
    scope,
    drain,
    scenarios: new Map(list.map(([key, , kind]) => [key, { kind, job: { key, base: stack.base, databaseUrl, d } }])),
    stop: async () => {
      await close();
      await db.end().catch(() => undefined);
      await stack.stop();
      await Promise.all([mq.stop(), redis.stop()].map((p) => p.catch(() => undefined)));
    },
  };
}

async function main() {
  const rev = process.argv[2] || 'HEAD';
  const a = checkout(rev);
  log(`[ab] A = ${rev} (${a.sha.slice(0, 12)}), B = this checkout (${root}${git('status', '--porcelain').length ? ', with uncommitted changes' : ''})`);
  if (!fs.existsSync(path.join(root, 'services', 'gateway', 'dist', 'main.js'))) throw new Error('this checkout is not built: run `pnpm build` first');
  const sides = [];
  try {
    sides.push(await side('A', a.dir, 2700));
    sides.push(await side('B', root, 2800));
    const keys = [...sides[0].scenarios.keys()].filter((k) => sides[1].scenarios.has(k));
    for (const key of keys) {
      const write = sides[0].scenarios.get(key).kind === 'write';
      const both = (seconds) => Promise.all(sides.map((s) => load(s.scenarios.get(key).job, seconds)));
      const drained = () => (write ? Promise.all(sides.map((s) => s.drain(120_000))) : Promise.resolve());
      await both(write ? WARM_SECONDS * 2 : WARM_SECONDS);
      await drained();
      const rows = [];
      for (let i = 0; i < ROUNDS; i++) {
        const before = snapshots(sides);
        const served = await both(SECONDS);
        await drained();
        const after = snapshots(sides);
        // The stack's processes only: the load generator (this process) serves both sides.
        const per = sides.map((s, k) => {
          const ms = cpu.diff(before[k], after[k]);
          return cpu.perRequest({ ...ms, total: ms.total - (ms.bench ?? 0) - (ms.ceiling ?? 0), bench: 0 }, served[k]);
        });
        const [ca, cb] = per.map((p) => p.total);
        rows.push({ a: ca, b: cb, ratio: cb / ca, per });
        log(`  ${key.padEnd(16)} round ${i + 1}: A ${ca.toFixed(2)}  B ${cb.toFixed(2)} CPU ms/request (${served[0]} / ${served[1]} requests)  B/A ${(cb / ca).toFixed(3)}`);
      }
      const m = median(rows.map((r) => r.ratio));
      const mid = rows.find((r) => r.ratio === m);
      const moved = Object.keys(mid.per[0])
        .filter((g) => !['total', 'postgres_server', 'bench', 'ceiling'].includes(g))
        .map((g) => [g, round2((mid.per[1][g] ?? 0) - (mid.per[0][g] ?? 0))])
        .filter(([, dlt]) => Math.abs(dlt) >= 0.02)
        .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
        .slice(0, 6);
      log(`[ab] ${key}: median B/A ${m.toFixed(3)} over ${ROUNDS} rounds (range ${Math.min(...rows.map((r) => r.ratio)).toFixed(3)}-${Math.max(...rows.map((r) => r.ratio)).toFixed(3)}); median round B-A: ${moved.map(([g, dlt]) => `${g} ${dlt > 0 ? '+' : ''}${dlt}`).join(', ') || 'no process moved 0.02'}`);
      await sleep(500);
    }
  } finally {
    for (const s of sides) await s.stop();
  }
}

const loadArg = process.argv.indexOf('--load');
(loadArg > 0 ? loadChild(JSON.parse(process.argv[loadArg + 1])) : main()).then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
