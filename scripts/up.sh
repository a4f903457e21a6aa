#!/usr/bin/env bash
# Fresh machine to running stack: dependencies, local servers, packages, build, all six
# services (gateway on http://localhost:3000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-infra.sh
pnpm install --frozen-lockfile
exec pnpm start
