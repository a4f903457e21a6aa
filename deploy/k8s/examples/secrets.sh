#!/usr/bin/env bash
# Example: the Secrets the production overlay references, created by hand (with an operator,
# see the other files here; with External Secrets or Sealed Secrets, the same names and keys).
# Fill in your servers; nothing here is stored in the repository.
set -euo pipefail
NS=${NS:-parley}
kubectl -n "$NS" create secret generic parley-db-admin --from-literal=DATABASE_URL="$PARLEY_DB_ADMIN_URL"
kubectl -n "$NS" create secret generic parley-db --from-literal=DATABASE_URL="$PARLEY_DB_URL" --from-literal=DB_ROLE_PASSWORD="$(openssl rand -hex 24)"
kubectl -n "$NS" create secret generic parley-amqp --from-literal=AMQP_URL="$PARLEY_AMQP_URL"
kubectl -n "$NS" create secret generic parley-redis --from-literal=REDIS_URL="$PARLEY_REDIS_URL"
kubectl -n "$NS" create secret generic parley-internal --from-literal=INTERNAL_SECRET="$(openssl rand -hex 32)"
kubectl -n "$NS" create secret generic parley-gateway \
  --from-literal=PLATFORM_API_TOKEN="$(openssl rand -hex 24)" --from-literal=USER_HMAC_KEY="$(openssl rand -hex 32)"
