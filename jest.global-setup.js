/* Prepares the real servers once per jest run: testcontainers where a Docker engine
 * answers, otherwise the servers named by TEST_* env (localhost by default). Then builds a
 * template database with every service's schema migrated, which each test file clones. */
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');

function dockerAvailable() {
  if (process.env.TESTCONTAINERS === '0') return false;
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

async function startContainers() {
  const { GenericContainer, Wait } = require('testcontainers');
  const pg = await new GenericContainer('postgres:15-alpine')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const mq = await new GenericContainer('rabbitmq:3.13-alpine').withExposedPorts(5672).withWaitStrategy(Wait.forLogMessage(/Server startup complete/)).start();
  const redis = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
  globalThis.__PARLEY_CONTAINERS__ = [pg, mq, redis];
  process.env.TEST_DATABASE_URL = `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`;
  process.env.TEST_AMQP_URL = `amqp://guest:guest@${mq.getHost()}:${mq.getMappedPort(5672)}`;
  process.env.TEST_REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
}

module.exports = async function globalSetup() {
  const explicit = process.env.TEST_DATABASE_URL || process.env.TEST_AMQP_URL || process.env.TEST_REDIS_URL;
  if (!explicit && dockerAvailable()) await startContainers();
  const adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const template = `parley_tpl_${randomBytes(4).toString('hex')}`;
  process.env.PARLEY_TEMPLATE_DB = template;

  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();

  const { migrateService } = require('@parley/shared');
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const servicesDir = path.join(__dirname, 'services');
  for (const name of fs.readdirSync(servicesDir).sort()) {
    if (!fs.existsSync(path.join(servicesDir, name, 'package.json'))) continue;
    await migrateService({
      adminUrl: templateUrl.toString(),
      service: name,
      rolePassword: 'parley-dev-role',
      migrationsDir: path.join(servicesDir, name, 'migrations'),
    });
  }
};
