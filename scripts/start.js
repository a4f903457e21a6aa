#!/usr/bin/env node
/* Starts every service in the registry as child processes (after migrating once), waits for the
 * gateway to be ready, prints how to use it, and stops everything on Ctrl-C / SIGTERM.
 * A service that exits on its own is restarted with back-off (scripts/supervise.js), as a
 * supervisor would; the rest of the stack goes on. PORT_OFFSET shifts every port (a second
 * stack on one machine, tests). */
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { services, root } = require('./services');
const { supervise } = require('./supervise');

const offset = Number(process.env.PORT_OFFSET || 0);
const gatewayPort = Number(process.env.PORT || 3000 + offset);
const platformToken = process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';

const migrated = spawnSync(process.execPath, [path.join(__dirname, 'migrate.js')], { stdio: 'inherit', env: process.env });
if (migrated.status !== 0) process.exit(migrated.status || 1);

// Prometheus endpoints: METRICS_PORT_BASE (9464) + the service's place in scripts/services.js.
const metricsBase = Number(process.env.METRICS_PORT_BASE || 9464 + offset);
const portOf = (s) => (s.name === 'gateway' ? gatewayPort : s.port + offset);
// Where the services find each other (unless told otherwise).
const peers = {};
for (const s of services) peers[s.urlKey] = process.env[s.urlKey] || `http://127.0.0.1:${portOf(s)}`;
// SERVICE_NODE_ARGS: node flags for every service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile
// a stack under load; NODE_OPTIONS refuses --cpu-prof).
// The young generation capped at 8 MB a semi-space (V8 grows it to 16 under load, ~50 MB of
// mostly garbage per process; the image sets the same in NODE_OPTIONS), or at the service's own
// `semiSpaceMb` (the registry; compose and Kubernetes put it on the command line): later flags win.
const extraArgs = (process.env.SERVICE_NODE_ARGS || '').split(/\s+/).filter(Boolean);
// SEMI_SPACE_MB_<SERVICE> (e.g. SEMI_SPACE_MB_CONVERSATIONS=16) sets one service's own.
const nodeArgsOf = (s) => [`--max-semi-space-size=${process.env[`SEMI_SPACE_MB_${s.name.toUpperCase()}`] || s.semiSpaceMb || 8}`, ...extraArgs];
const supervised = services.map((s, i) => {
  // Migrated once above; the services need not look again.
  // MALLOC_MMAP_THRESHOLD_: as the image sets it (Dockerfile, docs/deploy.md), unless told otherwise;
  // never empty (glibc reads an empty value as 0: every allocation a mapping of its own).
  const env = { MALLOC_MMAP_THRESHOLD_: '4194304', ...process.env, ...peers, PORT: String(portOf(s)), MIGRATE_ON_START: 'false', METRICS_PORT: String(metricsBase + i) };
  if (!env.MALLOC_MMAP_THRESHOLD_) delete env.MALLOC_MMAP_THRESHOLD_;
  // ENV_<SERVICE>_<KEY>=value: KEY=value for that service alone (a setting of one service measured
  // with bench:ab's BENCH_AB_ENV_B, say), as compose and Kubernetes give each service its own.
  const own = `ENV_${s.name.toUpperCase()}_`;
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith(own)) env[k.slice(own.length)] = v;
  return supervise({
    name: s.name,
    start: () => {
      const child = spawn(process.execPath, [...nodeArgsOf(s), s.main], { stdio: 'inherit', env, cwd: root });
      console.error(`[start] ${s.name} started (pid ${child.pid})`);
      return child;
    },
  });
});

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const t = setTimeout(() => process.exit(code), 15_000);
  Promise.all(supervised.map((s) => s.stop())).then(() => {
    clearTimeout(t);
    process.exit(code);
  });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

(async () => {
  const url = `http://localhost:${gatewayPort}`;
  for (let i = 0; i < 120 && !stopping; i++) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`
==============================================================
 Parley is up: ${url}
 Bootstrap a demo account, admin and inbox:   pnpm seed
 Or by hand with the Platform API (token from PLATFORM_API_TOKEN):
   curl -X POST ${url}/platform/api/v1/accounts -H 'api_access_token: ${platformToken}' \\
        -H 'content-type: application/json' -d '{"name":"Acme"}'
 Docs: README.md and docs/architecture.md
==============================================================
`);
})();
