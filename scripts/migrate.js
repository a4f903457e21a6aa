#!/usr/bin/env node
/* Migrates every service's schema (services also migrate themselves at start-up). */
const { migrateService, createLogger } = require('@parley/shared');
const { services } = require('./services');

async function main() {
  const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/parley';
  const rolePassword = process.env.DB_ROLE_PASSWORD || 'parley-dev-role';
  const log = createLogger('migrate', process.env.LOG_LEVEL || 'info');
  for (const s of services) {
    await migrateService({ adminUrl, service: s.name, rolePassword, migrationsDir: s.migrations, log });
    log.info({ service: s.name }, 'migrated');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
