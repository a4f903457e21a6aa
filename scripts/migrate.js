#!/usr/bin/env node
/*
 * Migrates every service's schema, or the services named as arguments:
 *   node scripts/migrate.js [service...]
 * This is what a release's migration job runs (Kubernetes: the parley-migrate Job); services
 * also migrate at start-up unless MIGRATE_ON_START=false.
 *
 *   node scripts/migrate.js --wait <service>
 * migrates nothing: it waits until the service's schema has every migration this build
 * carries, then exits 0 (a pod's init container, while the release's job migrates).
 */
const { migrateService, pendingMigrations, createLogger, baseConfigSchema, loadConfig } = require('@parley/shared');
const { services } = require('./services');

// The services' own settings schema: the same keys, defaults and checks as the services.
const config = loadConfig(baseConfigSchema.pick({ DATABASE_URL: true, DB_ROLE_PASSWORD: true, LOG_LEVEL: true }));
const adminUrl = config.DATABASE_URL;
const rolePassword = config.DB_ROLE_PASSWORD;
const log = createLogger('migrate', config.LOG_LEVEL);

function pick(names) {
  const unknown = names.filter((n) => !services.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown service(s): ${unknown.join(', ')}; known: ${services.map((s) => s.name).join(', ')}`);
  return names.length ? services.filter((s) => names.includes(s.name)) : services;
}

async function migrate(names) {
  for (const s of pick(names)) {
    await migrateService({ adminUrl, service: s.name, rolePassword, migrationsDir: s.migrations, log });
    log.info({ schema: s.name }, 'migrated');
  }
}

async function wait(names) {
  const intervalMs = Number(process.env.MIGRATE_WAIT_INTERVAL_MS || 2000);
  for (const s of pick(names)) {
    let said = '';
    for (;;) {
      let pending;
      try {
        pending = await pendingMigrations({ adminUrl, service: s.name, rolePassword, migrationsDir: s.migrations });
      } catch (err) {
        pending = [`(database not reachable yet: ${err.message})`];
      }
      if (pending.length === 0) break;
      const now = pending.join(', ');
      if (now !== said) log.info({ schema: s.name, pending }, 'waiting for the migration job');
      said = now;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    log.info({ schema: s.name }, 'schema is up to date');
  }
}

const args = process.argv.slice(2);
const waitMode = args[0] === '--wait';
(waitMode ? wait(args.slice(1)) : migrate(args)).catch((err) => {
  console.error(err);
  process.exit(1);
});
