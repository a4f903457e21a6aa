#!/usr/bin/env node
/* The benchmark of issue 12: fills (or reuses) a small and a large account, measures every scenario
 * through the gateway (req/s, p50/p95/p99, CPU ms per request per process), the ceilings (bare HTTP,
 * the list's SQL on Postgres, RabbitMQ) and the rule-effect and audit-ingest rates, then rewrites
 * docs/benchmarks.md, docs/benchmarks.svg and docs/benchmarks.json. It measures and prints; it never
 * fails a build (a scenario that errors is reported, the run goes on).
 *
 *   pnpm bench                  # pnpm build, then this: its own stack on database parley_bench
 *   pnpm bench --compare        # ... and the change against the committed docs/benchmarks.json
 *   pnpm bench --small-only     # the 300-conversation account only (CPU targets), no large data set
 *   pnpm bench --no-write       # measure and print, leave docs/ alone
 *   node scripts/bench.js --rewrite-docs   # docs/benchmarks.{md,svg} from docs/benchmarks.json, no measuring
 *   BENCH_ONLY='^(list|q)$' pnpm bench   # only the scenarios whose key matches (never writes docs/)
 *
 * Settings and method: docs/benchmarks.md. Code: scripts/bench/ (generate.js can run alone). */
require('./bench/run')
  .main(process.argv.slice(2))
  .catch((err) => {
    console.error(`[bench] ${err.stack || err.message}`);
    process.exitCode = 1;
  });
