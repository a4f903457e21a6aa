#!/usr/bin/env bash
# Makes sure a fresh Debian machine can run the stack and its tests: Node's pnpm, local
# PostgreSQL, RabbitMQ and Redis (installed from Debian's packages if missing, started if
# stopped), Chromium for the docs browser test, kubectl and docker-compose for the deploy tests. Idempotent; prints what it does.
set -euo pipefail

# pnpm 10 (10.26 or later), 11 and 12 all install this workspace from the same lockfile (package.json
# `engines.pnpm`; no `packageManager` pin, which pnpm 11+ would try to download). A machine without
# pnpm, or with one outside that range, gets the newest pnpm 10.
PNPM_FALLBACK=10
log() { echo "[ensure-infra] $*"; }

pnpm_supported() {
  local v
  v=$(pnpm --version 2>/dev/null) || return 1
  node -e 'const [a,b]=process.argv[1].split(".").map(Number);process.exit((a===10&&b>=26)||a===11||a===12?0:1)' "$v"
}
if ! pnpm_supported; then
  log "installing pnpm@$PNPM_FALLBACK (found: $(pnpm --version 2>/dev/null || echo none))"
  npm install -g "pnpm@$PNPM_FALLBACK" >/dev/null
fi

need_pkgs=()
command -v pg_ctlcluster >/dev/null 2>&1 || need_pkgs+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need_pkgs+=(redis-server)
command -v rabbitmq-server >/dev/null 2>&1 || need_pkgs+=(rabbitmq-server)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "installing ${need_pkgs[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

# Headless Chromium for the browser test of /docs (tests/browser); no recommends: fonts and
# desktop helpers are not needed to render and screenshot a page.
if [ ! -x /usr/bin/chromium ]; then
  log "installing chromium"
  [ ${#need_pkgs[@]} -gt 0 ] || apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

# Tools the deploy tests run (tests/deploy): kubectl renders deploy/k8s with `kubectl kustomize`,
# docker-compose resolves docker-compose.yml without a Docker engine. Debian's `kubectl` package
# where the machine's sources have it, else Debian's own kubernetes-client.
deploy_pkgs=()
if ! command -v kubectl >/dev/null 2>&1; then
  apt-get update -qq >/dev/null
  if apt-cache show kubectl >/dev/null 2>&1; then deploy_pkgs+=(kubectl); else deploy_pkgs+=(kubernetes-client); fi
fi
command -v docker-compose >/dev/null 2>&1 || deploy_pkgs+=(docker-compose)
if [ ${#deploy_pkgs[@]} -gt 0 ]; then
  log "installing ${deploy_pkgs[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${deploy_pkgs[@]}" >/dev/null
fi

wait_for() { # name, command, seconds
  local name=$1 cmd=$2 secs=${3:-60}
  for _ in $(seq 1 "$secs"); do
    if eval "$cmd" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  log "$name did not come up"; return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  log "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  wait_for postgres "pg_isready -h 127.0.0.1 -p 5432 -q" 60
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for redis "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG" 30
fi

if ! (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; then
  log "starting RabbitMQ"
  rabbitmq-server -detached || true
  wait_for rabbitmq "(exec 3<>/dev/tcp/127.0.0.1/5672)" 90
  wait_for rabbitmq "rabbitmq-diagnostics -q check_running" 60 || true
fi
log "PostgreSQL, RabbitMQ and Redis are up"
