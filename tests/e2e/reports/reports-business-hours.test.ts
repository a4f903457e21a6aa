import { Client } from 'pg';
import type { Pool } from 'pg';
import { replayReports } from '@parley/reports';
import { createBus, waitFor, type TestBus } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { History } from './history';
import { DAY, T0, waitForReports } from './scripted';
import { expectRowsAgree } from './rows-oracle';

const H = 3600;

/**
 * `business_hours=true`: averages of `value_in_business_hours`, the seconds of each interval inside
 * the inbox's working hours in its time zone, from inboxes made through the API (the conversations
 * service) and a history at known times (T0 is Sunday 2025-03-02 00:00 UTC).
 *
 * Inbox A: working hours on, Asia/Kolkata (UTC+05:30), Monday to Friday 09:00-17:00 but Tuesday
 * open all day. Inbox B: working hours off (Chatwoot's default).
 * 1 (A): created and incoming Monday 08:30 IST, reply 09:30 IST, resolved 17:30 IST.
 *    first response and reply 1 h (0.5 h in hours), resolution 9 h (8 h).
 * 2 (A): created and incoming Sunday 07:30 IST, reply Monday 10:30 IST, resolved Tuesday 06:30 IST.
 *    first response and reply 27 h (1.5 h), resolution 47 h (Monday 8 h + Tuesday 6.5 h).
 * 3 (B): as 1: 1 h and 9 h, none in hours.
 */
describe('reports: business hours from the inbox\'s working hours', () => {
  let stack: Stack;
  let bus: TestBus;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inboxA: number;
  let inboxB: number;
  const window = `since=${T0}&until=${T0 + 3 * DAY}`;
  const get = async (path: string) => {
    const res = await call('GET', `/api/v2/accounts/${acc.accountId}${path}`, { token: acc.admin.token });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body;
  };

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'reports'] });
    bus = createBus(stack.env.namespace);
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    const a = await call('POST', `/api/v1/accounts/${acc.accountId}/inboxes`, {
      token: acc.admin.token,
      body: { name: 'India', channel: { type: 'api' }, working_hours_enabled: true, timezone: 'Asia/Kolkata', working_hours: [{ day_of_week: 2, open_all_day: true }] },
    });
    expect(a.status).toBe(200);
    inboxA = a.body.id;
    const b = await call('POST', `/api/v1/accounts/${acc.accountId}/inboxes`, { token: acc.admin.token, body: { name: 'Always', channel: { type: 'api' } } });
    inboxB = b.body.id;
    const x = acc.agent.userId;
    const h = new History(acc.accountId, T0, inboxA);
    h.create(1, DAY + 3 * H, { assignee_id: x }).incoming(1, DAY + 3 * H).reply(1, DAY + 4 * H, x).status(1, DAY + 12 * H, 'resolved');
    h.create(2, 2 * H, { assignee_id: x }).incoming(2, 2 * H).reply(2, DAY + 5 * H, x).status(2, 2 * DAY + 1 * H, 'resolved');
    const hb = new History(acc.accountId, T0, inboxB);
    hb.create(3, DAY + 3 * H, { assignee_id: x }).incoming(3, DAY + 3 * H).reply(3, DAY + 4 * H, x).status(3, DAY + 12 * H, 'resolved');
    await bus.publish(...h.events, ...hb.events);
    await waitForReports(stack, [...h.events, ...hb.events]);
  });
  afterAll(async () => {
    await bus?.close();
    await stack?.stop();
  });

  const expected = {
    a: { frt: (0.5 * H + 1.5 * H) / 2, reply: (0.5 * H + 1.5 * H) / 2, resolution: (8 * H + 14.5 * H) / 2 },
    aWall: { frt: (1 * H + 27 * H) / 2, resolution: (9 * H + 47 * H) / 2 },
  };

  it('when the summary is read with business_hours=true, then the averages are of the seconds inside the working hours', async () => {
    const inA = await get(`/reports/summary?${window}&type=inbox&id=${inboxA}&business_hours=true`);
    expect(inA).toMatchObject({ conversations_count: 2, resolutions_count: 2, avg_first_response_time: expected.a.frt, reply_time: expected.a.reply, avg_resolution_time: expected.a.resolution });
    const wall = await get(`/reports/summary?${window}&type=inbox&id=${inboxA}`);
    expect(wall).toMatchObject({ avg_first_response_time: expected.aWall.frt, avg_resolution_time: expected.aWall.resolution });
    // Working hours off: the measured values are 0, still counted.
    const inB = await get(`/reports/summary?${window}&type=inbox&id=${inboxB}&business_hours=true`);
    expect(inB).toMatchObject({ resolutions_count: 1, avg_first_response_time: 0, reply_time: 0, avg_resolution_time: 0 });
    const account = await get(`/reports/summary?${window}&business_hours=true`);
    expect(account.avg_first_response_time).toBeCloseTo((0.5 * H + 1.5 * H + 0) / 3, 6);
    expect(account.avg_resolution_time).toBeCloseTo((8 * H + 14.5 * H + 0) / 3, 6);
  });

  it('when the timeseries and the tables are read with business_hours=true, then they agree with the summary', async () => {
    expect(await get(`/reports?metric=avg_resolution_time&${window}&business_hours=true`)).toEqual([
      { value: 0, timestamp: T0, count: 0 },
      { value: (8 * H + 0) / 2, timestamp: T0 + DAY, count: 2 },
      { value: 14.5 * H, timestamp: T0 + 2 * DAY, count: 1 },
    ]);
    const rows = (await get(`/summary_reports/inbox?${window}&business_hours=true`)) as Array<Record<string, number>>;
    expect(rows.find((r) => r['id'] === inboxA)).toMatchObject({ avg_first_response_time: expected.a.frt, avg_resolution_time: expected.a.resolution, avg_reply_time: expected.a.reply });
    const agent = (await get(`/summary_reports/agent?${window}&business_hours=true`)) as Array<Record<string, number>>;
    expect(agent.find((r) => r['id'] === acc.agent.userId)!['avg_resolution_time']).toBeCloseTo((8 * H + 14.5 * H) / 3, 6);
  });

  it('when business_hours=true windows and buckets do not fall on the rollups\' hours and days, then they equal the rows summed', async () => {
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      const metrics = ['avg_first_response_time', 'avg_resolution_time', 'reply_time', 'resolutions_count'];
      for (const scope of [{ type: 'account' as const }, { type: 'inbox' as const, id: inboxA }, { type: 'agent' as const, id: acc.agent.userId }]) {
        for (const c of [
          { since: T0 + 2 * H + 17, until: T0 + 2 * DAY + 1 * H + 1, groupBy: 'day', offset: 5.5 },
          { since: T0 + DAY + 4 * H - 30, until: T0 + 3 * DAY, groupBy: 'hour', offset: -3.5 },
          { since: T0 - 3 * DAY + 5, until: T0 + 30 * DAY - 5, groupBy: 'week', offset: 5.75 },
        ]) {
          await expectRowsAgree(db, get, acc.accountId, { scope, ...c, businessHours: true, metrics });
        }
      }
    } finally {
      await db.end();
    }
  });

  it('when the inbox\'s working hours change later, then the numbers already measured stay, a rebuild included', async () => {
    const before = await get(`/reports/summary?${window}&type=inbox&id=${inboxA}&business_hours=true`);
    expect((await call('PATCH', `/api/v1/accounts/${acc.accountId}/inboxes/${inboxA}`, { token: acc.admin.token, body: { working_hours_enabled: false } })).status).toBe(200);
    const db = new Client({ connectionString: stack.env.db.url });
    await db.connect();
    try {
      await waitFor(
        async () => {
          const r = await db.query(`SELECT 1 FROM reports.projections WHERE account_id = $1 AND kind = 'inbox' AND id = $2 AND data->>'working_hours_enabled' = 'false'`, [acc.accountId, inboxA]);
          return r.rowCount === 1 ? true : null;
        },
        { what: 'the reports to have the inbox update', timeoutMs: 20_000 },
      );
    } finally {
      await db.end();
    }
    await replayReports(stack.services['reports']!.deps.pool as Pool, { accountId: acc.accountId });
    expect(await get(`/reports/summary?${window}&type=inbox&id=${inboxA}&business_hours=true`)).toEqual(before);
  });
});
