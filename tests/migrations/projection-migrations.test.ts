import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import { migrateService, ProjectionKit, serviceDatabaseUrl } from '@parley/shared';
import { dbUrl, infra } from '@parley/testkit';

/**
 * The migrations that moved each service's copies of other services' records onto the projection
 * kit, run on a schema holding rows of the old tables: every row arrives as the kit's row with its
 * owner version kept (so an older event still loses), read-through rows at '-infinity' (so any
 * event wins), and tombstones stay tombstones (a deleted record does not come back).
 */
const ROOT = path.resolve(__dirname, '../..');
const ROLE_PASSWORD = 'parley-dev-role';
const T1 = '2026-11-01T10:00:00.000Z';
const T2 = '2026-11-02T10:00:00.000Z';

describe('projection migrations on schemas with rows in the old tables', () => {
  const { adminUrl } = infra();
  let url = '';
  let dbName = '';
  const dirs: string[] = [];

  beforeAll(async () => {
    dbName = `parley_pm_${randomBytes(5).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    url = dbUrl(adminUrl, dbName);
  });
  afterAll(async () => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });

  /** Migrates `service` up to (not including) `before`, runs `fill` as the service, then migrates the rest; answers a pool of the service's role. */
  async function migrateAround(service: string, before: string, fill: (db: Pool) => Promise<void>): Promise<Pool> {
    const full = path.join(ROOT, 'services', service, 'migrations');
    const partial = fs.mkdtempSync(path.join(os.tmpdir(), `pm-${service}-`));
    dirs.push(partial);
    const files = fs.readdirSync(full).filter((f) => f.endsWith('.sql')).sort();
    expect(files).toContain(before);
    for (const f of files.filter((x) => x < before)) fs.copyFileSync(path.join(full, f), path.join(partial, f));
    await migrateService({ adminUrl: url, service, rolePassword: ROLE_PASSWORD, migrationsDir: partial });
    const db = new Pool({ connectionString: serviceDatabaseUrl(url, service, ROLE_PASSWORD), options: `-c search_path=${service},public`, max: 1 });
    await fill(db);
    await migrateService({ adminUrl: url, service, rolePassword: ROLE_PASSWORD, migrationsDir: full });
    return db;
  }

  const rowsOf = async (db: Pool) =>
    (await db.query(`SELECT account_id, kind, id, data, CASE WHEN version_at = '-infinity' THEN '-infinity' ELSE to_char(version_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END AS v FROM projections ORDER BY kind, account_id, id`)).rows;
  const kit = new ProjectionKit({ log: undefined as never });

  it('when conversations had contact, agent, team and bot projections, then each is a kit row at its version, and an older event still loses', async () => {
    const db = await migrateAround('conversations', '006_projections.sql', async (c) => {
      await c.query(`INSERT INTO contact_projections VALUES (1, 10, '{"id":10,"name":"Ada"}', $1)`, [T2]);
      await c.query(`INSERT INTO agent_projections VALUES (1, 20, '{"id":20,"name":"Nina"}', '-infinity')`);
      await c.query(`INSERT INTO team_projections VALUES (1, 30, '{"id":30,"name":"Billing"}', $1)`, [T1]);
      await c.query(`INSERT INTO agent_bot_projections VALUES (1, 40, '{"id":40,"name":"Bot"}', $1)`, [T1]);
    });
    try {
      expect(await rowsOf(db)).toEqual([
        { account_id: 1, kind: 'agent', id: 20, data: { id: 20, name: 'Nina' }, v: '-infinity' },
        { account_id: 1, kind: 'agent_bot', id: 40, data: { id: 40, name: 'Bot' }, v: T1 },
        { account_id: 1, kind: 'contact', id: 10, data: { id: 10, name: 'Ada' }, v: T2 },
        { account_id: 1, kind: 'team', id: 30, data: { id: 30, name: 'Billing' }, v: T1 },
      ]);
      expect(await db.query('SELECT to_regclass($1) AS t', ['contact_projections'])).toMatchObject({ rows: [{ t: null }] });
      // An event older than the migrated copy does not overwrite it; a read-through copy takes any event.
      expect(await kit.upsert(db, 'contact', 1, 10, { id: 10, name: 'Old' } as never, T1)).toBe(false);
      expect(await kit.upsert(db, 'agent', 1, 20, { id: 20, name: 'Nina B' } as never, T1)).toBe(true);
    } finally {
      await db.end();
    }
  });

  it('when contacts had inbox copies (one deleted), then they are kit rows, the deleted one a tombstone an older event cannot revive', async () => {
    const db = await migrateAround('contacts', '002_inbox_projection.sql', async (c) => {
      await c.query(`INSERT INTO inboxes (id, account_id, name, identifier, hmac_token, version_at) VALUES (5, 1, 'Web', 'abc', 'h1', $1)`, [T2]);
      await c.query(`INSERT INTO inboxes (id, account_id, name, identifier, deleted, version_at) VALUES (6, 1, 'Gone', 'def', true, $1)`, [T2]);
    });
    try {
      const rows = await rowsOf(db);
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({ kind: 'inbox', id: 5, v: T2, data: { id: 5, account_id: 1, name: 'Web', identifier: 'abc', hmac_token: 'h1', channel_type: 'Channel::Api', hmac_mandatory: false } });
      expect(rows[1]).toMatchObject({ kind: 'inbox', id: 6, v: T2, data: null });
      expect(await kit.upsert(db, 'inbox', 1, 6, { id: 6, name: 'Gone' } as never, T1)).toBe(false);
      expect((await db.query(`SELECT id FROM projections WHERE kind = 'inbox' AND data->>'identifier' = 'abc'`)).rows).toEqual([{ id: 5 }]);
    } finally {
      await db.end();
    }
  });

  it('when automation had records and inboxes (a remembered miss among them), then they are kit rows; epoch read-throughs become -infinity', async () => {
    const db = await migrateAround('automation', '005_projections.sql', async (c) => {
      await c.query(`INSERT INTO records (account_id, kind, id, data, occurred_at) VALUES (1, 'contact', 10, '{"id":10,"name":"Ada"}', $1), (1, 'agent', 20, '{"id":20}', 'epoch')`, [T2]);
      await c.query(`INSERT INTO inboxes (account_id, id, name, channel_type, webhook_url, secret, occurred_at) VALUES (1, 5, 'Web', 'Channel::Api', 'https://hook.example/x', 's3', $1), (1, 7, NULL, NULL, NULL, NULL, 'epoch')`, [T1]);
    });
    try {
      expect(await rowsOf(db)).toEqual([
        { account_id: 1, kind: 'agent', id: 20, data: { id: 20 }, v: '-infinity' },
        { account_id: 1, kind: 'contact', id: 10, data: { id: 10, name: 'Ada' }, v: T2 },
        { account_id: 1, kind: 'inbox', id: 5, data: { id: 5, account_id: 1, name: 'Web', channel_type: 'Channel::Api', webhook_url: 'https://hook.example/x', hmac_token: 's3' }, v: T1 },
        { account_id: 1, kind: 'inbox', id: 7, data: null, v: '-infinity' },
      ]);
      // The remembered miss is replaced by the first inbox event.
      expect(await kit.upsert(db, 'inbox', 1, 7, { id: 7, name: 'Late' } as never, T1)).toBe(true);
    } finally {
      await db.end();
    }
  });

  it('when helpcenter had authors, then they are agent rows at -infinity (the next agent event replaces them)', async () => {
    const db = await migrateAround('helpcenter', '003_author_projection.sql', async (c) => {
      await c.query(`INSERT INTO authors (account_id, user_id, data) VALUES (1, 20, '{"id":20,"name":"Nina"}')`);
    });
    try {
      expect(await rowsOf(db)).toEqual([{ account_id: 1, kind: 'agent', id: 20, data: { id: 20, name: 'Nina' }, v: '-infinity' }]);
      expect(await kit.upsert(db, 'agent', 1, 20, { id: 20, name: 'Nina B' } as never, T1)).toBe(true);
    } finally {
      await db.end();
    }
  });
});
