import { Client } from 'pg';
import { startStack, PLATFORM_TOKEN, type Stack } from '../../support/stack';
import { client } from '../../support/http';

// The benchmark's data generator (scripts/bench/generate.js, plain JS run by `pnpm bench`).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generate } = require('../../../scripts/bench/generate') as {
  generate(o: { base: string; databaseUrl: string; platformToken: string; label: string; sizes: Record<string, number>; log?: (l: string) => void }): Promise<any>;
};

// The rule effect's targets (scripts/bench/run.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureRuleProbe, ruleTargets, freeRuleTargets } = require('../../../scripts/bench/run') as {
  ensureRuleProbe(base: string, d: any): Promise<void>;
  ruleTargets(db: Client, d: any, n: number): Promise<number[]>;
  freeRuleTargets(ctx: { db: Client; base: string; drain: () => Promise<void> }, d: any, n: number): Promise<number>;
};

/**
 * The rows the benchmark's generator writes straight into the services' schemas are rows the
 * services could have produced: a small data set, read back through the gateway. (The benchmark
 * itself is never run or timed in tests.)
 */
describe('benchmark data generator, read back through the services', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let db: Client;
  let d: any;
  const sizes = { conversations: 40, messages: 200, contacts: 20, inboxes: 2, agents: 3, labels: 5, rules: 3, teams: 2, audit: 120 };
  const A = () => `/api/v1/accounts/${d.accountId}`;
  const get = (p: string) => call('GET', p, { token: d.token });

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts', 'automation', 'audit'] });
    call = client(stack.gatewayUrl);
    db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    d = await generate({ base: stack.gatewayUrl, databaseUrl: stack.env.db.url, platformToken: PLATFORM_TOKEN, label: 'test', sizes, log: () => undefined });
  });
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('when filled, then the account holds the sizes asked for', () => {
    expect(d.generatedNow).toBe(true);
    expect(d.counts).toMatchObject({ conversations: 40, messages: 200, contacts: 20, users: 3, rules: 3 });
    expect(d.inboxes).toHaveLength(2);
    expect(d.labels).toHaveLength(5);
    expect(d.teams).toHaveLength(2);
  });

  it('when the list is asked for, then counts, filters and pages match the generated rows', async () => {
    const all = await get(`${A()}/conversations?status=all`);
    expect(all.status).toBe(200);
    expect(all.body.data.meta.all_count).toBe(40);
    // g % 20 < 6 are open: 12 of 40.
    const open = await get(`${A()}/conversations`);
    expect(open.body.data.meta.all_count).toBe(12);
    expect(open.body.data.payload).toHaveLength(12);
    // Newest activity first, each with its contact (from the conversations service's copy) and last message.
    const acts = open.body.data.payload.map((c: any) => c.last_activity_at);
    expect([...acts].sort((a: number, b: number) => b - a)).toEqual(acts);
    const first = open.body.data.payload[0];
    expect(first.meta.sender.name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/);
    expect(first.meta.sender.email).toMatch(/@example\.com$/);
    expect(first.messages).toHaveLength(1);
    const { rows: lab } = await db.query(`SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1 AND status = 'open' AND labels && ARRAY[$2]`, [d.accountId, d.labels[0]]);
    const byLabel = await get(`${A()}/conversations?labels=${d.labels[0]}`);
    expect(byLabel.body.data.meta.all_count).toBe(lab[0].n);
    const page2 = await get(`${A()}/conversations?status=all&page=2`);
    expect(page2.body.data.payload).toHaveLength(15);
  });

  it('when a conversation is opened, then its messages come in order from its contact and agent', async () => {
    const { rows } = await db.query('SELECT display_id, contact_id FROM conversations.conversations WHERE account_id = $1 ORDER BY id LIMIT 1', [d.accountId]);
    const conv = rows[0];
    const res = await get(`${A()}/conversations/${conv.display_id}/messages`);
    expect(res.status).toBe(200);
    const msgs = res.body.payload;
    expect(msgs).toHaveLength(5);
    expect(msgs.map((m: any) => m.id)).toEqual([...msgs.map((m: any) => m.id)].sort((a: number, b: number) => a - b));
    expect(msgs[0]).toMatchObject({ message_type: 0, sender_type: 'Contact', sender_id: conv.contact_id });
    expect(msgs[0].sender.name).toMatch(/ /);
    expect(msgs[1]).toMatchObject({ message_type: 1, sender_type: 'User' });
  });

  it('when q names words of the messages, then search finds exactly the conversations holding them', async () => {
    const { rows } = await db.query(
      `SELECT c.display_id, m.content FROM conversations.messages m JOIN conversations.conversations c ON c.id = m.conversation_id
        WHERE m.account_id = $1 AND m.message_type = 0 ORDER BY m.id LIMIT 1`,
      [d.accountId],
    );
    const hit = await get(`${A()}/conversations?q=${encodeURIComponent(rows[0].content)}`);
    expect(hit.status).toBe(200);
    expect(hit.body.data.payload.map((c: any) => c.id)).toEqual([rows[0].display_id]);
    const { rows: n } = await db.query(
      `SELECT count(DISTINCT conversation_id)::int AS n FROM conversations.messages WHERE account_id = $1 AND message_type IN (0, 1) AND content ILIKE '%order%'`,
      [d.accountId],
    );
    expect(n[0].n).toBeGreaterThan(0);
    const word = await get(`${A()}/conversations?q=order`);
    expect(word.body.data.meta.all_count).toBe(n[0].n);
  });

  it('when contacts are listed, then every contact comes, sorted, with its contact inbox', async () => {
    const res = await get(`${A()}/contacts?sort=name`);
    expect(res.status).toBe(200);
    expect(res.body.meta.count).toBe(20);
    const names = res.body.payload.map((c: any) => c.name.toLowerCase());
    expect([...names].sort()).toEqual(names);
    const c = res.body.payload[0];
    const { rows } = await db.query('SELECT contact_inbox_source_id AS s FROM conversations.conversations WHERE account_id = $1 AND contact_id = $2', [d.accountId, c.id]);
    expect(rows.length).toBe(2);
    expect(c.contact_inboxes.map((ci: any) => ci.source_id)).toEqual([rows[0].s]);
    for (const sort of ['email', 'phone_number', '-last_activity_at', 'created_at']) expect((await get(`${A()}/contacts?sort=${sort}`)).status).toBe(200);
  });

  it('when the public API reads a generated conversation, then the contact inbox resolves it', async () => {
    const p = d.publicConversation;
    const res = await call('GET', `/public/api/v1/inboxes/${p.identifier}/contacts/${p.source_id}/conversations/${p.display_id}/messages`);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(5);
  });

  it('when the audit log is read, then the generated entries and the API-made ones are counted', async () => {
    const res = await get(`${A()}/audit_logs`);
    expect(res.status).toBe(200);
    expect(res.body.total_entries).toBeGreaterThanOrEqual(120);
    const generated = await get(`${A()}/audit_logs?auditable_type=Webhook`);
    expect(generated.status).toBe(200);
    expect(generated.body.audit_logs.length).toBeGreaterThan(0);
    expect(generated.body.audit_logs[0]).toMatchObject({ auditable_type: 'Webhook', associated_id: d.accountId });
  });

  it('when earlier rule runs labelled every open conversation, then the next takes the rule\'s label off some through the API, keeping their other labels', async () => {
    await ensureRuleProbe(stack.gatewayUrl, d);
    const open = (await db.query<{ display_id: number; labels: string[] }>(
      `SELECT display_id, labels FROM conversations.conversations WHERE account_id = $1 AND status = 'open' ORDER BY id`,
      [d.accountId],
    )).rows;
    expect(open.length).toBeGreaterThan(3);
    const kept = 'billing';
    for (const c of open) {
      const labels = [...new Set([...c.labels, kept, 'rule-hit'])];
      expect((await call('POST', `${A()}/conversations/${c.display_id}/labels`, { token: d.token, body: { labels } })).status).toBe(200);
    }
    expect(await ruleTargets(db, d, 3)).toEqual([]);

    expect(await freeRuleTargets({ db, base: stack.gatewayUrl, drain: async () => undefined }, d, 3)).toBe(3);
    const targets = await ruleTargets(db, d, 10);
    expect(targets).toHaveLength(3);
    for (const id of targets) {
      const labels = ((await get(`${A()}/conversations/${id}/labels`)).body as { payload: string[] }).payload;
      expect(labels).toContain(kept);
      expect(labels).not.toContain('rule-hit');
    }
  });

  it('when run again, then the filled account is reused', async () => {
    const again = await generate({ base: stack.gatewayUrl, databaseUrl: stack.env.db.url, platformToken: PLATFORM_TOKEN, label: 'test', sizes, log: () => undefined });
    expect(again.generatedNow).toBe(false);
    expect(again.accountId).toBe(d.accountId);
  });
});
