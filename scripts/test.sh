#!/usr/bin/env bash
# Fresh machine to a full test run against real PostgreSQL, RabbitMQ and Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-infra.sh
pnpm install --frozen-lockfile
exec pnpm test
