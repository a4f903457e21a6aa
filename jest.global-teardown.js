const { Client } = require('pg');

module.exports = async function globalTeardown() {
  const adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const template = process.env.PARLEY_TEMPLATE_DB;
  if (template) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
  for (const c of globalThis.__PARLEY_CONTAINERS__ ?? []) await c.stop().catch(() => undefined);
};
