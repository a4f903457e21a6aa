import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copiesColumnSql, createLogger, createPeers, createPool, migrateService, prepared, ProjectionKit, serviceDatabaseUrl, type Pool } from '../src';
import {
  agentSnapshot,
  contactFixture,
  createTestEnv,
  inboxFixture,
  randomAccountId,
  startPeerStub,
  TEST_SECRET,
  teamFixture,
  userFixture,
  type PeerStub,
  type TestEnv,
} from '@parley/testkit';

const log = createLogger('kit-test', 'silent');
const SERVICE = 'kittest';
const t = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s)).toISOString();

describe('projection kit against real Postgres', () => {
  let env: TestEnv;
  let pool: Pool;
  let stub: PeerStub;
  let dir: string;

  beforeAll(async () => {
    env = await createTestEnv();
    // A service migration of its own, made from the kernel's one snippet.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-migrations-'));
    fs.writeFileSync(path.join(dir, '001_projections.sql'), '-- Up Migration\nSELECT create_projection_table();\n');
    await migrateService({ adminUrl: env.db.url, service: SERVICE, rolePassword: env.config.DB_ROLE_PASSWORD, migrationsDir: dir, log });
    pool = createPool(serviceDatabaseUrl(env.db.url, SERVICE, env.config.DB_ROLE_PASSWORD), SERVICE, 5);
    stub = await startPeerStub();
  });

  afterAll(async () => {
    await stub?.close();
    await pool?.end();
    await env?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const peers = () => createPeers(SERVICE, { INTERNAL_SECRET: TEST_SECRET, GATEWAY_INTERNAL_URL: stub.url, CONVERSATIONS_URL: stub.url, CONTACTS_URL: stub.url, PEER_LOOKUP_TIMEOUT_MS: 2000 });

  it('when events arrive out of order, then the copy is the newest version and an older event never overwrites it', async () => {
    const kit = new ProjectionKit({ log });
    const a = randomAccountId();
    expect(await kit.upsert(pool, 'team', a, 5, teamFixture(a, 5, { name: 'v2' }), t(2))).toBe(true);
    expect(await kit.upsert(pool, 'team', a, 5, teamFixture(a, 5, { name: 'v1' }), t(1))).toBe(false);
    expect((await kit.read(pool, 'team', a, 5))?.name).toBe('v2');
    expect(await kit.upsert(pool, 'team', a, 5, teamFixture(a, 5, { name: 'v3' }), t(3))).toBe(true);
    // The same kind and id in another account is another record.
    await kit.upsert(pool, 'team', a + 1, 5, teamFixture(a + 1, 5, { name: 'other' }), t(0));
    expect((await kit.readMany(pool, 'team', a, [5, 6, null])).get(5)?.name).toBe('v3');
    expect((await kit.read(pool, 'team', a + 1, 5))?.name).toBe('other');
  });

  it('when a record is removed, then it reads as absent, is not asked of its owner, and no later update brings it back', async () => {
    const kit = new ProjectionKit({ log, peers: peers() });
    const a = randomAccountId();
    const contact = stub.addContact(a);
    await kit.upsert(pool, 'contact', a, contact.id, contact, t(1));
    await kit.remove(pool, 'contact', a, contact.id, t(5));
    await kit.upsert(pool, 'contact', a, contact.id, { ...contact, name: 'late' }, t(3));
    await kit.upsert(pool, 'contact', a, contact.id, { ...contact, name: 'zombie' }, t(9));
    const before = stub.lookups.contacts;
    expect(await kit.readThrough(pool, 'contact', a, [contact.id])).toEqual(new Map());
    expect(stub.lookups.contacts).toBe(before);
    const { rows } = await pool.query('SELECT data FROM projections WHERE account_id = $1 AND id = $2', [a, contact.id]);
    expect(rows).toEqual([{ data: null }]); // the removed record's data is not kept
  });

  it('when a record is not copied yet, then it is read through to its owner once and any later event replaces that answer', async () => {
    const kit = new ProjectionKit({ log, peers: peers() });
    const a = randomAccountId();
    const inbox = stub.addInbox(inboxFixture(a, randomAccountId(), { name: 'From the owner' }));
    const before = stub.lookups.inboxes;
    expect((await kit.readOne(pool, 'inbox', a, inbox.id))?.name).toBe('From the owner');
    expect((await kit.readOne(pool, 'inbox', a, inbox.id))?.name).toBe('From the owner');
    expect(stub.lookups.inboxes).toBe(before + 1);
    expect(await kit.findBy(pool, 'inbox', 'identifier', inbox.identifier)).toEqual(inbox);
    // Even an event older than the moment of the read-through wins over it.
    await kit.upsert(pool, 'inbox', a, inbox.id, { ...inbox, name: 'From an event' }, t(0));
    expect((await kit.read(pool, 'inbox', a, inbox.id))?.name).toBe('From an event');
    expect((await kit.list(pool, 'inbox', a)).map((i) => i.name)).toEqual(['From an event']);
  });

  it('when several kinds are read at once, then the copies come from one read and only the misses are asked of their owners', async () => {
    const kit = new ProjectionKit({ log, peers: peers() });
    const a = randomAccountId();
    await kit.upsert(pool, 'team', a, 7, teamFixture(a, 7, { name: 'Copied' }), t(1));
    await kit.upsert(pool, 'contact', a, 8, contactFixture(a, 8, { name: 'Copied contact' }), t(1));
    await kit.remove(pool, 'contact', a, 9, t(1));
    const fresh = stub.addContact(a, { id: 900_001, name: 'From the owner' });
    const team = stub.addTeam(teamFixture(a, 10, { name: 'Team from the owner' }));
    const before = { ...stub.lookups };
    const got = await kit.readThroughKinds(pool, a, { contact: [8, 9, fresh.id, null], team: [7, team.id, 7], agent: [] });
    expect([...got.contact.values()].map((c) => c.name).sort()).toEqual(['Copied contact', 'From the owner']);
    expect([...got.team.values()].map((x) => x.name).sort()).toEqual(['Copied', 'Team from the owner']);
    expect(got.agent.size).toBe(0);
    // The removed contact (9) is not asked for; each miss is asked once.
    expect([stub.lookups.contacts - before.contacts, stub.lookups.teams - before.teams]).toEqual([1, 1]);
    const again = await kit.readThroughKinds(pool, a, { contact: [fresh.id], team: [team.id] });
    expect([again.contact.get(fresh.id)?.name, again.team.get(team.id)?.name]).toEqual(['From the owner', 'Team from the owner']);
    expect([stub.lookups.contacts - before.contacts, stub.lookups.teams - before.teams]).toEqual([1, 1]);
  });

  it('when the owner does not know a record, then it is absent; remembered misses are not asked again until an event brings the record', async () => {
    const kit = new ProjectionKit({ log, peers: peers() });
    const a = randomAccountId();
    const before = stub.lookups.inboxes;
    expect(await kit.readOne(pool, 'inbox', a, 404)).toBeNull();
    expect(await kit.readOne(pool, 'inbox', a, 404)).toBeNull();
    expect(stub.lookups.inboxes).toBe(before + 2);
    expect(await kit.readOne(pool, 'inbox', a, 405, { rememberMisses: true })).toBeNull();
    expect(await kit.readOne(pool, 'inbox', a, 405, { rememberMisses: true })).toBeNull();
    expect(stub.lookups.inboxes).toBe(before + 3);
    await kit.upsert(pool, 'inbox', a, 405, inboxFixture(a, 405), t(1));
    expect((await kit.readOne(pool, 'inbox', a, 405))?.id).toBe(405);
  });

  it('when the owner fails, then lenient reads leave the record out and stop asking for the back-off; strict reads still ask and fail', async () => {
    let clock = 1_000_000;
    const kit = new ProjectionKit({ log, peers: peers(), backoffMs: 10_000, now: () => clock });
    const a = randomAccountId();
    stub.addAgent(a, 31, { name: 'Grace' });
    stub.failing.add('agents');
    try {
      const before = stub.lookups.agents;
      expect(await kit.readThrough(pool, 'agent', a, [31])).toEqual(new Map());
      expect(stub.lookups.agents).toBe(before + 1);
      clock += 5_000;
      expect(await kit.readThrough(pool, 'agent', a, [31])).toEqual(new Map());
      expect(stub.lookups.agents).toBe(before + 1); // backing off: not even asked
      await expect(kit.readThrough(pool, 'agent', a, [31], { strict: true })).rejects.toMatchObject({ status: 503 });
      expect(stub.lookups.agents).toBe(before + 2);
      stub.failing.delete('agents');
      clock += 10_001;
      expect((await kit.readOne(pool, 'agent', a, 31))?.name).toBe('Grace');
    } finally {
      stub.failing.delete('agents');
    }
  });

  it('when an owner answers something its contract does not describe, then the read-through fails as unavailable', async () => {
    const kit = new ProjectionKit({ log, peers: peers() });
    const a = randomAccountId();
    stub.teams.set(`${a}:8`, { id: 8, name: 'No account' } as never);
    await expect(kit.readOne(pool, 'team', a, 8, { strict: true })).rejects.toMatchObject({ status: 503, message: expect.stringContaining('account_id') });
  });

  it("when user.updated arrives, then the user's agent copies in every account take the names, e-mail and picture, unless newer", async () => {
    const kit = new ProjectionKit({ log });
    const [a, b, c] = [randomAccountId(), randomAccountId(), randomAccountId()];
    const userId = 700_000 + Math.floor(Math.random() * 100_000);
    await kit.upsert(pool, 'agent', a, userId, agentSnapshot(a, userId, { role: 'administrator' }), t(1));
    await kit.upsert(pool, 'agent', b, userId, agentSnapshot(b, userId), t(1));
    await kit.upsert(pool, 'agent', c, userId, agentSnapshot(c, userId, { name: 'Newer' }), t(9));
    await kit.upsert(pool, 'contact', a, userId, contactFixture(a, userId), t(1));
    const n = await kit.patchUser(pool, userFixture(userId, { name: 'Grace Hopper', display_name: 'Amazing Grace', email: 'grace@example.com', thumbnail: 'https://x/g.png' }), t(5));
    expect(n).toBe(2);
    expect(await kit.read(pool, 'agent', a, userId)).toMatchObject({ name: 'Grace Hopper', display_name: 'Amazing Grace', available_name: 'Amazing Grace', email: 'grace@example.com', thumbnail: 'https://x/g.png', role: 'administrator' });
    expect((await kit.read(pool, 'agent', b, userId))?.available_name).toBe('Amazing Grace');
    expect((await kit.read(pool, 'agent', c, userId))?.name).toBe('Newer');
    expect((await kit.read(pool, 'contact', a, userId))?.name).toBe(`Contact ${userId}`);
    await kit.patchUser(pool, userFixture(userId, { name: 'Grace', display_name: null }), t(6));
    expect((await kit.read(pool, 'agent', a, userId))?.available_name).toBe('Grace');
  });

  it('when an account is removed, then every copy of it goes and other accounts keep theirs', async () => {
    const kit = new ProjectionKit({ log });
    const [a, b] = [randomAccountId(), randomAccountId()];
    await kit.upsert(pool, 'team', a, 1, teamFixture(a, 1), t(1));
    await kit.remove(pool, 'contact', a, 2, t(1));
    await kit.upsert(pool, 'team', b, 1, teamFixture(b, 1), t(1));
    await kit.removeAccount(pool, a);
    expect((await pool.query('SELECT count(*)::int AS n FROM projections WHERE account_id = $1', [a])).rows[0].n).toBe(0);
    expect(await kit.read(pool, 'team', b, 1)).not.toBeNull();
  });
  it('when copies are read on a large table (the kit\'s reads, copiesColumnSql), then Postgres keeps each statement\'s generic plan instead of planning every run', async () => {
    // As on the benchmark's large account: an unnest of the ids was taken for ten rows, the generic
    // plan looked ten times dearer than the custom ones, and every run was planned again (fewRows).
    const a = randomAccountId();
    await pool.query(
      `INSERT INTO projections (account_id, kind, id, data, version_at)
       SELECT $1, 'contact', g, jsonb_build_object('id', g, 'name', 'c' || g), now() FROM generate_series(1, 50000) g`,
      [a],
    );
    await pool.query('ANALYZE projections');
    const kit = new ProjectionKit({ log });
    const read = prepared(`SELECT ${copiesColumnSql(1, 2)} AS copies`);
    // A connection of its own: the counts are per connection, and the pool's have run these statements before.
    const own = createPool(serviceDatabaseUrl(env.db.url, SERVICE, env.config.DB_ROLE_PASSWORD), SERVICE, 1);
    const client = await own.connect();
    try {
      // The choice these counts show is the server's default (`auto`), whatever it was set to.
      await client.query('SET plan_cache_mode = auto');
      for (let i = 1; i <= 10; i++) {
        const { rows } = await client.query<{ copies: Array<{ kind: string; id: number; data: { name: string } }> }>(read([a, ['contact'], [i * 7]]));
        expect(rows[0]!.copies).toEqual([{ kind: 'contact', id: i * 7, data: { id: i * 7, name: `c${i * 7}` } }]);
        expect((await kit.readMany(client, 'contact', a, [i * 11, i * 11 + 1])).get(i * 11)?.name).toBe(`c${i * 11}`);
        const kinds = await kit.readThroughKinds(client, a, { contact: [i * 13] }, { strict: false });
        expect(kinds.contact.get(i * 13)?.name).toBe(`c${i * 13}`);
      }
      const both = await client.query<{ copies: Array<{ id: number }> }>(read([a, ['contact', 'contact', 'team'], [3, 4, 3]]));
      expect(both.rows[0]!.copies.map((c) => c.id).sort()).toEqual([3, 4]);
      const plans = async (where: string, values: unknown[]) =>
        (await client.query<{ generic_plans: string; custom_plans: string }>(`SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE ${where}`, values)).rows.map(
          (r) => [Number(r.custom_plans), Number(r.generic_plans)],
        );
      // Five custom plans while Postgres compares, then the generic one for good.
      expect(await plans('name = $1', [read([]).name])).toEqual([[5, 6]]);
      expect(await plans(`statement LIKE $1`, ['SELECT p.id, p.data FROM projections p JOIN unnest(%'])).toEqual([[5, 5]]);
      expect(await plans(`statement LIKE $1`, ['SELECT p.kind, p.id, p.data FROM projections p JOIN unnest(%'])).toEqual([[5, 5]]);
    } finally {
      client.release();
      await own.end();
      await pool.query('DELETE FROM projections WHERE account_id = $1', [a]);
    }
  });
});
