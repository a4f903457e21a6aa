#!/usr/bin/env node
/* Two builds measured side by side, at the same time (issue 12): this checkout (B) against a git
 * revision (A, default HEAD: an A/A run, which tells the method's own noise).
 *
 *   node scripts/bench/ab.js [<git revision>]      # BENCH_ONLY, BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_AB_ROUNDS, BENCH_AB_RUNS
 *   BENCH_AB_ENV_B='SERVICE_NODE_ARGS=--maglev' node scripts/bench/ab.js   # one build, two settings
 *
 * Why: on a shared two-core host the CPU a request costs moves with the host's speed (a fifth either
 * way within an hour, docs/benchmarks.md), so runs one after the other cannot tell a change of 5-10%.
 * Here both stacks take the same load at the same moment, so whatever slows the host slows both, and
 * the ratio of their CPU per request is what the change did.
 *
 * A is checked out (detached) under /tmp/parley-ab/<sha>, installed offline and built once (remove
 * one with `git worktree remove --force /tmp/parley-ab/<sha>`). Each side gets a database of its own
 * (parley_ab_a, parley_ab_b) with the small data set made fresh, a private RabbitMQ and Redis (their
 * CPU counted for their side alone), its own port block, and `pnpm bench`'s small-account scenarios
 * at saturation (BENCH_CONNECTIONS each): by default labels, list and message_create (BENCH_ONLY picks
 * others; `rule`, rule messages at a fixed rate, is below). Every round runs a scenario on both at once for BENCH_SECONDS, each side's load from a
 * process of its own, started together; writes are drained before the CPU is read, and a round with
 * any failed request is refused. Prints each round's stack CPU ms per request of A and B and B/A,
 * then the median ratio per scenario and, for the round nearest it, the processes that moved most.
 * Measures and prints; writes nothing. */
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const autocannon = require('autocannon');
const cpu = require('./proc-cpu');
const { generate, SMALL, sizesFromEnv } = require('./generate');
const { startPrivateServers, ensureDatabase, startStack, makeDrain, scenarios, writeTargets, ensureRuleProbe, ruleTargets, postRuleMessage } = require('./run');

const root = path.resolve(__dirname, '..', '..');
const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS || 16);
const ROUNDS = Math.max(1, Number(env.BENCH_AB_ROUNDS || 6));
/**
 * Whole runs, each with both stacks started anew: one process's compiled code can cost 10-15% more or
 * less than another's for the same build (the list in A/A runs), which rounds on the same two stacks
 * never undo.
 */
const RUNS = Math.max(1, Number(env.BENCH_AB_RUNS || 3));
/**
 * Unmeasured load on both sides before the rounds. 10 s (writes 20) was too short for the
 * list: two builds with nothing changed on its path measured B/A 1.15-1.19 in three runs of 5 s
 * rounds (and 0.85 in one run against another build), 0.99 with 40 s rounds: a conversations process
 * of each stack still settling its compiled code, which a solo run's warm-up gets at twice the rate.
 */
const WARM_SECONDS = Number(env.BENCH_AB_WARMUP_SECONDS || 30);
const ONLY = new RegExp(env.BENCH_ONLY || '^(labels|list|message_create)$');
/**
 * `rule` (only when BENCH_ONLY names it): rule messages (incoming, matched by a `message_created` rule
 * that adds a label: `pnpm bench`'s rule effect) at BENCH_AB_RULE_RATE a second on each side, each to
 * a conversation without the label, drained before the CPU is read: what a rule message costs with
 * its rule's command, the label change and every event's fan-out, at a fixed rate (where consumers
 * batch as they do below saturation). Its data set is larger (BENCH_AB_RULE_CONVERSATIONS: 15,000,
 * about 4,500 open, or more when the warm-up and rounds need more; 50 rules, as the large account) so every round has conversations to label.
 */
const RULE_RATE = Number(env.BENCH_AB_RULE_RATE || 50);
const WITH_RULE = ONLY.test('rule');
/** Enough for the warm-up and every round (the generator leaves about 30% of its conversations open), at least 15,000. */
const RULE_CONVERSATIONS = Number(env.BENCH_AB_RULE_CONVERSATIONS || Math.max(15_000, Math.ceil((RULE_RATE * (WARM_SECONDS + ROUNDS * SECONDS) * 1.2) / 0.3)));
const SIZES = WITH_RULE
  ? sizesFromEnv({ ...SMALL, conversations: RULE_CONVERSATIONS, messages: 50_000, contacts: 5_000, rules: 50 })
  : sizesFromEnv(SMALL);
const PLATFORM = env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';
const BASE_DB = env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley_bench';
const log = (line) => process.stdout.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** The revision's checkout, installed and built (once: reused while its marker says the build finished). */
function checkout(rev) {
  const sha = git('rev-parse', '--verify', `${rev}^{commit}`);
  const dir = path.join('/tmp/parley-ab', sha);
  const built = path.join(dir, '.parley-ab-built');
  if (!fs.existsSync(built)) {
    // A worktree whose directory went (a cleaned /tmp) is still registered until pruned.
    git('worktree', 'prune');
    if (!fs.existsSync(dir)) git('worktree', 'add', '--detach', dir, sha);
    log(`[ab] installing and building ${sha.slice(0, 12)} in ${dir}`);
    execFileSync('pnpm', ['install', '--offline', '--frozen-lockfile'], { cwd: dir, stdio: 'inherit' });
    execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
    fs.writeFileSync(built, `${new Date().toISOString()}\n`);
  }
  return { sha, dir };
}

/** The median (the mean of the two middle values of an even count: neither side favoured). */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round2 = (v) => Math.round(v * 100) / 100;
const round1 = (v) => Math.round(v * 10) / 10;

/** `KEY=value KEY2=value with spaces` (a value runs to the next KEY=). */
function parseEnv(text, name) {
  const parts = (text || '').trim().split(/\s+(?=[A-Z_][A-Z0-9_]*=)/).filter(Boolean);
  for (const kv of parts) if (!/^[A-Z_][A-Z0-9_]*=/.test(kv)) throw new Error(`${name}: "${kv}" is not KEY=value`);
  return Object.fromEntries(parts.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

/** CPU snapshots of both sides at one moment (proc-cpu keeps one scope: set before each). */
function snapshots(sides) {
  return sides.map((s) => {
    cpu.configure(s.scope);
    return cpu.snapshot();
  });
}

/**
 * Loads on both sides at once, each from a child process of its own (`--load`): one process loading
 * both served one first (in an A/A run the list's A got 10-15% more requests in every round, and cost
 * less a request for it). Each child builds its requests, says `ready`, and starts on `go`, sent to
 * both together. Answers each side's counts: `{ ok, non2xx, errors, timeouts }`.
 */
function loadBoth(jobs, seconds) {
  const children = jobs.map((job) => {
    const child = spawn(process.execPath, [__filename, '--load', JSON.stringify({ ...job, seconds })], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const ready = new Promise((resolve, reject) => {
      child.stdout.on('data', (c) => {
        out += c;
        if (out.startsWith('ready\n')) resolve();
      });
      child.on('error', reject);
      child.on('close', (code) => reject(new Error(`load of ${job.key} exited ${code} before it was ready`)));
    });
    const done = new Promise((resolve, reject) => {
      child.on('error', reject);
      // 'close', not 'exit': the child's output is read whole by then.
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.slice('ready\n'.length))) : reject(new Error(`load of ${job.key} exited ${code}`))));
    });
    return { child, ready, done };
  });
  return Promise.all(children.map((c) => c.ready)).then(() => {
    for (const c of children) c.child.stdin.end('go\n');
    return Promise.all(children.map((c) => c.done));
  });
}

/** The child's side of `loadBoth`: the scenario's requests built as `pnpm bench` builds them, sent for `seconds` from `go`. */
async function loadChild(job) {
  if (job.key === 'rule') return ruleLoad(job);
  const db = new Client({ connectionString: job.databaseUrl });
  await db.connect();
  const targets = await writeTargets(db, job.d);
  await db.end();
  const found = scenarios(job.d, targets).find(([key]) => key === job.key);
  if (!found) throw new Error(`no scenario ${job.key}`);
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const r = await new Promise((resolve, reject) => {
    autocannon({ url: job.base, connections: CONNECTIONS, duration: job.seconds, requests: found[3], timeout: 10 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
  process.stdout.write(JSON.stringify({ ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts }));
}

/** The child's side of `loadBoth` for `rule`: RULE_RATE rule messages a second for `seconds`, each to its own conversation. */
async function ruleLoad(job) {
  const db = new Client({ connectionString: job.databaseUrl });
  await db.connect();
  const total = Math.round(RULE_RATE * job.seconds);
  const ids = await ruleTargets(db, job.d, total);
  await db.end();
  if (ids.length < total) throw new Error(`only ${ids.length} conversations without the label left (BENCH_AB_RULE_CONVERSATIONS)`);
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const counts = { ok: 0, non2xx: 0, errors: 0, timeouts: 0 };
  const t0 = performance.now();
  const sends = [];
  for (let i = 0; i < total; i++) {
    const wait = t0 + (i * 1000) / RULE_RATE - performance.now();
    if (wait > 1) await sleep(wait);
    sends.push(
      postRuleMessage(job.base, job.d, ids[i], i)
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.ok) counts.ok++;
          else counts.non2xx++;
        })
        .catch(() => counts.errors++),
    );
  }
  await Promise.all(sends);
  process.stdout.write(JSON.stringify(counts));
}

/** One side: its private servers, fresh database and stack, and the small data set; on any failure what was started is stopped. */
async function side(label, dir, portOffset) {
  const servers = await startPrivateServers();
  const { mq, redis } = servers;
  let stack = null;
  let db = null;
  try {
    const u = new URL(BASE_DB);
    u.pathname = `/parley_ab_${label.toLowerCase()}`;
    const databaseUrl = u.toString();
    await ensureDatabase(databaseUrl, { fresh: true });
    const namespace = `ab${label.toLowerCase()}.`;
    // BENCH_AB_ENV_A / BENCH_AB_ENV_B: settings for one side only ("KEY=value KEY2=value"), to compare settings of one build.
    const extra = parseEnv(env[`BENCH_AB_ENV_${label}`], `BENCH_AB_ENV_${label}`);
    stack = await startStack(databaseUrl, { root: dir, amqpUrl: mq.url, redisUrl: redis.url, namespace, portOffset, quiet: true, env: extra });
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    const { drain, close } = await makeDrain(db, { amqpUrl: mq.url, namespace });
    const d = await generate({ base: stack.base, databaseUrl, platformToken: PLATFORM, label: 'small', sizes: SIZES, log: () => undefined });
    if (WITH_RULE) await ensureRuleProbe(stack.base, d);
    if (!(await drain(300_000))) throw new Error(`${label}: the data set's events did not drain`);
    const scope = { root: dir, database: u.pathname.slice(1), parentPid: stack.child.pid, rabbitmqPgid: mq.proc.pid, redis: `:${redis.port}` };
    const list = [...scenarios(d, await writeTargets(db, d)), ...(WITH_RULE ? [['rule', 'rule messages', 'write']] : [])].filter(([key]) => ONLY.test(key));
    log(`[ab] ${label}: ${dir} on ${stack.base}, database ${u.pathname.slice(1)}${Object.keys(extra).length ? `, with ${JSON.stringify(extra)}` : ''}`);
    return {
      label,
      base: stack.base,
      scope,
      drain,
      alive: stack.alive,
      scenarios: new Map(list.map(([key, , kind]) => [key, { kind, job: { key, base: stack.base, databaseUrl, d } }])),
      stop: async () => {
        await close();
        await db.end().catch(() => undefined);
        await stack.stop();
        await servers.stop();
      },
    };
  } catch (err) {
    await db?.end().catch(() => undefined);
    await stack?.stop();
    await servers.stop();
    throw err;
  }
}

async function main() {
  const rev = process.argv[2] || 'HEAD';
  const a = checkout(rev);
  log(`[ab] A = ${rev} (${a.sha.slice(0, 12)}), B = this checkout (${root}${git('status', '--porcelain').length ? ', with uncommitted changes' : ''})`);
  if (!fs.existsSync(path.join(root, 'services', 'gateway', 'dist', 'main.js'))) throw new Error('this checkout is not built: run `pnpm build` first');
  // Ctrl-C ends the run through process.exit, so the exit hooks stop what was started.
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  const medians = new Map();
  const callMedians = new Map();
  for (let run = 1; run <= RUNS; run++) {
    if (RUNS > 1) log(`[ab] run ${run} of ${RUNS}: both stacks started anew`);
    await oneRun(a, medians, callMedians);
  }
  if (RUNS > 1) {
    for (const [key, ms] of medians) {
      log(`[ab] ${key}: B/A ${median(ms).toFixed(3)}, the median of the ${ms.length} runs' medians (${ms.map((m) => m.toFixed(3)).join(', ')})`);
      const cs = callMedians.get(key);
      if (cs) log(`[ab] ${key}: system calls a request B/A ${median(cs).toFixed(3)}, the median of the runs' medians (${cs.map((m) => m.toFixed(3)).join(', ')})`);
    }
  }
}

/** The processes whose per-request figure moved most from A (`per[0]`) to B (`per[1]`), at least `min`: [group, B-A]. */
function movedGroups(per, min) {
  return Object.keys({ ...per[0], ...per[1] })
    .filter((g) => !['total', 'postgres_server', 'bench', 'ceiling'].includes(g))
    .map((g) => [g, round2((per[1][g] ?? 0) - (per[0][g] ?? 0))])
    .filter(([, dlt]) => Math.abs(dlt) >= min)
    .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
    .slice(0, 6);
}

/**
 * Both stacks started, every scenario measured on them, both stopped; each scenario's median B/A
 * added to `medians`, and that of its system calls a request (proc-cpu's `calls`) to `callMedians`.
 */
async function oneRun(a, medians, callMedians) {
  const sides = [];
  try {
    sides.push(await side('A', a.dir, 2700));
    sides.push(await side('B', root, 2800));
    const keys = [...sides[0].scenarios.keys()].filter((k) => sides[1].scenarios.has(k));
    for (const key of keys) {
      const write = sides[0].scenarios.get(key).kind === 'write';
      const both = (seconds) => loadBoth(sides.map((s) => s.scenarios.get(key).job), seconds);
      const drained = async () => {
        if (!write) return;
        const ok = await Promise.all(sides.map((s) => s.drain(120_000)));
        ok.forEach((x, k) => x || log(`  ${sides[k].label}: its events did not drain in 2 minutes (the backlog goes into the next round)`));
      };
      await both(WARM_SECONDS);
      await drained();
      const rows = [];
      for (let i = 0; i < ROUNDS; i++) {
        const before = snapshots(sides);
        const counts = await both(SECONDS);
        await drained();
        const after = snapshots(sides);
        const dead = sides.filter((s) => !s.alive());
        if (dead.length) throw new Error(`the stack of ${dead.map((s) => s.label).join(' and ')} is down`);
        const failed = counts.map((c, k) => (c.non2xx + c.errors + c.timeouts > 0 ? `${sides[k].label}: ${c.non2xx} non-2xx, ${c.errors} errors, ${c.timeouts} timeouts` : null)).filter(Boolean);
        if (failed.length) {
          log(`  ${key.padEnd(16)} round ${i + 1}: refused (${failed.join('; ')})`);
          continue;
        }
        // The stacks' processes only: the load generators are counted for neither side, and this process (bench) for neither.
        const totals = sides.map((s, k) => {
          const ms = cpu.diff(before[k], after[k]);
          const calls = cpu.calls(before[k], after[k]);
          return {
            ms: { ...ms, total: ms.total - (ms.bench ?? 0) - (ms.ceiling ?? 0), bench: 0 },
            calls: { ...calls, total: calls.total - (calls.bench ?? 0) - (calls.ceiling ?? 0), bench: 0 },
            served: counts[k].ok,
          };
        });
        const [ca, cb] = totals.map((t) => t.ms.total / t.served);
        const [sa, sb] = totals.map((t) => t.calls.total / t.served);
        const per = totals.map((t) => cpu.perRequest(t.ms, t.served));
        const perCalls = totals.map((t) => cpu.perRequest(t.calls, t.served));
        rows.push({ ratio: cb / ca, per, callsRatio: sa > 0 ? sb / sa : null, perCalls });
        log(
          `  ${key.padEnd(16)} round ${i + 1}: A ${ca.toFixed(2)}  B ${cb.toFixed(2)} CPU ms/request (${counts[0].ok} / ${counts[1].ok} requests)  B/A ${(cb / ca).toFixed(3)}; system calls/request A ${sa.toFixed(1)}  B ${sb.toFixed(1)}`,
        );
      }
      if (rows.length === 0) {
        log(`[ab] ${key}: no round without failed requests`);
        continue;
      }
      const m = median(rows.map((r) => r.ratio));
      const mid = rows.reduce((best, r) => (Math.abs(r.ratio - m) < Math.abs(best.ratio - m) ? r : best));
      const moved = movedGroups(mid.per, 0.02);
      medians.set(key, [...(medians.get(key) ?? []), m]);
      log(`[ab] ${key}: median B/A ${m.toFixed(3)} over ${rows.length} rounds (range ${Math.min(...rows.map((r) => r.ratio)).toFixed(3)}-${Math.max(...rows.map((r) => r.ratio)).toFixed(3)}); the round nearest it, B-A: ${moved.map(([g, dlt]) => `${g} ${dlt > 0 ? '+' : ''}${dlt}`).join(', ') || 'no process moved 0.02'}`);
      const callRows = rows.filter((r) => r.callsRatio !== null);
      if (callRows.length) {
        const mc = median(callRows.map((r) => r.callsRatio));
        const midC = callRows.reduce((best, r) => (Math.abs(r.callsRatio - mc) < Math.abs(best.callsRatio - mc) ? r : best));
        const movedC = movedGroups(midC.perCalls, 0.1);
        callMedians.set(key, [...(callMedians.get(key) ?? []), mc]);
        log(`[ab] ${key}: system calls a request, median B/A ${mc.toFixed(3)} (A ${round1(median(callRows.map((r) => r.perCalls[0].total)))}, B ${round1(median(callRows.map((r) => r.perCalls[1].total)))}); the round nearest it, B-A: ${movedC.map(([g, dlt]) => `${g} ${dlt > 0 ? '+' : ''}${dlt}`).join(', ') || 'no process moved 0.1'}`);
      }
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
