#!/usr/bin/env node
/* Self and inclusive time per function of a V8 .cpuprofile (node --cpu-prof), for profiling a stack
 * under the benchmark's load (docs/benchmarks.md, "Profiling"):
 *
 *   node scripts/bench/profile-summary.js <file.cpuprofile> [--top 40] [--skip 10] [--busiest 5 | --window 5]
 *                                         [--by function|file] [--tree <frame> [--depth 4] [--min 0.5]] [--timeline]
 *
 * --skip S leaves out the first S seconds (the start-up); --busiest S keeps the S seconds with the fewest
 * idle samples after that (the load, not the data set's generation); --window S the S seconds from
 * --skip on. Times are ms and % of the non-idle samples of the window; a function is counted once per sample in the inclusive column however often it
 * recurs on the stack. --by file adds up everything of one file (node_modules packages by name).
 * --tree prints the callees below the outermost frame whose name contains <frame>, merged by name, to
 * --depth levels, those of at least --min %. --timeline prints the busy ms of each second instead, to
 * pick the window: under the benchmark the busiest seconds are the warm-up's (first calls compile),
 * not the measured run's, which --skip <its first second> --window <its length> then takes. */
const fs = require('node:fs');
const path = require('node:path');

function parseArgs(argv) {
  const o = { file: null, top: 40, busiest: 0, by: 'function', tree: null, depth: 4, min: 0.5, skip: 0, window: 0, timeline: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--top') o.top = Number(argv[++i]);
    else if (a === '--busiest') o.busiest = Number(argv[++i]);
    else if (a === '--by') o.by = argv[++i];
    else if (a === '--tree') o.tree = argv[++i];
    else if (a === '--skip') o.skip = Number(argv[++i]);
    else if (a === '--depth') o.depth = Number(argv[++i]);
    else if (a === '--min') o.min = Number(argv[++i]);
    else if (a === '--timeline') o.timeline = true;
    else if (a === '--window') o.window = Number(argv[++i]);
    else o.file = a;
  }
  if (!o.file) throw new Error('usage: profile-summary.js <file.cpuprofile> [--top N] [--skip S] [--busiest S | --window S] [--by function|file] [--tree <frame>] [--timeline]');
  return o;
}

function shortUrl(url) {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    return `${pkg}:${rest.slice(rest[0].startsWith('@') ? 2 : 1).join('/')}`;
  }
  const m = /\/(packages|services)\/(.*)$/.exec(u);
  return m ? `${m[1]}/${m[2]}` : path.basename(u);
}

function keyOf(node, by) {
  const f = node.callFrame;
  const url = shortUrl(f.url);
  if (by === 'file') {
    if (!url) return f.functionName || '(native)';
    const colon = url.indexOf(':');
    return url.includes('node_modules') || colon < 0 ? url : url.slice(0, colon);
  }
  return `${f.functionName || '(anonymous)'} ${url}${url ? `:${f.lineNumber + 1}` : ''}`;
}

/** A profile's samples: each one's time (µs since start), its duration (the next delta) and whether it was idle. */
function sampling(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const samples = profile.samples;
  const deltas = profile.timeDeltas;
  const times = new Array(samples.length);
  let t = 0;
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i] ?? 0;
    times[i] = t;
  }
  const dur = (i) => Math.max(0, deltas[i + 1] ?? 0);
  const isIdle = (id) => nodes.get(id).callFrame.functionName === '(idle)';
  return { nodes, samples, times, dur, isIdle };
}

function summarize(profile, o) {
  const { nodes, samples, times, dur, isIdle } = sampling(profile);
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let lo = 0;
  while (lo < samples.length && times[lo] < o.skip * 1e6) lo++;
  let hi = samples.length;
  if (o.window > 0) {
    hi = lo;
    while (hi < samples.length && times[hi] < (o.skip + o.window) * 1e6) hi++;
  } else if (o.busiest > 0) {
    const w = o.busiest * 1e6;
    let best = -1;
    let busy = 0;
    let j = lo;
    for (let i = lo; i < samples.length; i++) {
      if (!isIdle(samples[i])) busy += dur(i);
      while (times[i] - times[j] > w) {
        if (!isIdle(samples[j])) busy -= dur(j);
        j++;
      }
      if (busy > best) {
        best = busy;
        lo = j;
        hi = i + 1;
      }
    }
  }
  const self = new Map();
  const incl = new Map();
  // --tree: the callees below the outermost frame matching the pattern, merged by key.
  const tree = { key: o.tree, t: 0, kids: new Map() };
  let total = 0;
  let idle = 0;
  for (let i = lo; i < hi; i++) {
    const id = samples[i];
    const d = dur(i);
    if (isIdle(id)) {
      idle += d;
      continue;
    }
    total += d;
    const k = keyOf(nodes.get(id), o.by);
    self.set(k, (self.get(k) ?? 0) + d);
    if (o.tree) {
      const stack = [];
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) stack.push(keyOf(nodes.get(cur), o.by));
      stack.reverse();
      const at = stack.findIndex((k) => k.includes(o.tree));
      if (at >= 0) {
        let n = tree;
        n.t += d;
        for (const k of stack.slice(at + 1)) {
          let c = n.kids.get(k);
          if (!c) n.kids.set(k, (c = { key: k, t: 0, kids: new Map() }));
          c.t += d;
          n = c;
        }
      }
    }
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const kk = keyOf(nodes.get(cur), o.by);
      if (seen.has(kk)) continue;
      seen.add(kk);
      incl.set(kk, (incl.get(kk) ?? 0) + d);
    }
  }
  return { self, incl, tree, total, idle, seconds: (times[hi - 1] - times[lo]) / 1e6 };
}

/** Busy (non-idle) ms in each whole second since the profile's start: [second, ms][]. */
function timeline(profile) {
  const { samples, times, dur, isIdle } = sampling(profile);
  const busy = [];
  for (let i = 0; i < samples.length; i++) {
    const s = Math.floor(times[i] / 1e6);
    while (busy.length <= s) busy.push(0);
    if (!isIdle(samples[i])) busy[s] += dur(i) / 1000;
  }
  return busy.map((ms, s) => [s, Math.round(ms)]);
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const profile = JSON.parse(fs.readFileSync(o.file, 'utf8'));
  if (o.timeline) {
    const rows = timeline(profile);
    console.log(`${o.file}: busy ms in each second`);
    for (let i = 0; i < rows.length; i += 10) console.log(rows.slice(i, i + 10).map(([s, ms]) => `${String(s).padStart(4)}s ${String(ms).padStart(4)}`).join('  '));
    return;
  }
  const { self, incl, tree, total, idle, seconds } = summarize(profile, o);
  const ms = (us) => (us / 1000).toFixed(1).padStart(9);
  const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  console.log(`${o.file}: ${seconds.toFixed(1)} s window, busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`);
  if (o.tree) {
    const print = (n, depth, indent) => {
      console.log(`${ms(n.t)} ${pct(n.t)}  ${indent}${n.key}`);
      if (depth >= o.depth) return;
      for (const c of [...n.kids.values()].sort((a, b) => b.t - a.t)) if ((100 * c.t) / total >= o.min) print(c, depth + 1, `${indent}  `);
    };
    console.log(`\ntree below the first frame matching ${o.tree} (depth ${o.depth}, >= ${o.min}%)`);
    print(tree, 0, '');
    return;
  }
  console.log(`\nself (top ${o.top})`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, o.top)) console.log(`${ms(v)} ${pct(v)}  ${k}`);
  console.log(`\ninclusive (top ${o.top})`);
  for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, o.top)) console.log(`${ms(v)} ${pct(v)}  ${k}`);
}

if (require.main === module) main();

module.exports = { timeline, summarize };
