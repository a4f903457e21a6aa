import { expectErrorBody } from '../../support/http';
import { PLATFORM_TOKEN } from '../../support/stack';
import { DAY, T0, scriptedHistory, type Scripted } from './scripted';

/**
 * The tables and live counts over the scripted history (./scripted.ts): every row of
 * summary_reports equals reports/summary for that agent, team, inbox or label.
 */
describe('reports: summary tables, bot summary and live counts through the gateway', () => {
  let s: Scripted;
  const window = `since=${T0}&until=${T0 + 2 * DAY}`;

  beforeAll(async () => {
    s = await scriptedHistory();
  });
  afterAll(() => s?.stop());

  const get = (path: string, token = s.acc.admin.token) => s.call('GET', `/api/v2/accounts/${s.acc.accountId}${path}`, { token });

  it.each([
    ['agent', 'agent'],
    ['team', 'team'],
    ['inbox', 'inbox'],
    ['label', 'label'],
  ])('when summary_reports/%s is read, then each row equals the summary of that %s', async (dim) => {
    const res = await get(`/summary_reports/${dim}?${window}`);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const row of res.body) {
      const sum = (await get(`/reports/summary?${window}&type=${dim}&id=${row.id}`)).body;
      const zero = dim === 'label' ? 0 : null;
      expect({ dim, id: row.id, conversations: row.conversations_count, resolved: row.resolved_conversations_count }).toEqual({ dim, id: row.id, conversations: sum.conversations_count, resolved: sum.resolutions_count });
      for (const [col, key] of [['avg_resolution_time', 'avg_resolution_time'], ['avg_first_response_time', 'avg_first_response_time'], ['avg_reply_time', 'reply_time']] as const) {
        if (sum[key] === null) expect({ dim, id: row.id, col, v: row[col] }).toEqual({ dim, id: row.id, col, v: zero });
        else expect(row[col]).toBeCloseTo(sum[key], 6);
      }
    }
  });

  it('when the agent table is read, then every member is listed with the hand-computed numbers', async () => {
    const rows = (await get(`/summary_reports/agent?${window}`)).body as Array<Record<string, number | null>>;
    expect(rows.map((r) => r['id']).sort()).toEqual([s.acc.admin.userId, s.x.userId, s.y.userId].sort());
    const x = rows.find((r) => r['id'] === s.x.userId)!;
    expect(x).toMatchObject({ conversations_count: 2, resolved_conversations_count: 1, avg_resolution_time: 600 });
    expect(x['avg_first_response_time']).toBeCloseTo(110, 6);
    expect(x['avg_reply_time']).toBeCloseTo(200, 6);
    expect(rows.find((r) => r['id'] === s.acc.admin.userId)).toEqual({ id: s.acc.admin.userId, conversations_count: 0, resolved_conversations_count: 0, avg_resolution_time: null, avg_first_response_time: null, avg_reply_time: null });
    const labels = (await get(`/summary_reports/label?${window}`)).body;
    expect(labels).toEqual([{ id: 11, name: 'billing', conversations_count: 1, resolved_conversations_count: 1, avg_resolution_time: 600, avg_first_response_time: 160, avg_reply_time: 200 }]);
    const teams = (await get(`/summary_reports/team?${window}`)).body as Array<{ id: number }>;
    expect(teams.map((t) => t.id)).toEqual([s.teamA, s.teamB]);
  });

  it('when the bot summary is read, then one hand-off and no bot resolution, and an empty previous window', async () => {
    expect((await get(`/reports/bot_summary?${window}`)).body).toEqual({ bot_resolutions_count: 0, bot_handoffs_count: 1, previous: { bot_resolutions_count: 0, bot_handoffs_count: 0 } });
  });

  it('when the live counts are read, then they describe the conversations now', async () => {
    // 3 is open, X's, replied; 4 is open, unassigned, never replied; 1 and 2 are resolved.
    const counts = { open: 2, unattended: 1, unassigned: 1, pending: 0 };
    expect((await get('/reports/conversations?type=account')).body).toEqual(counts);
    expect((await get('/live_reports/conversation_metrics')).body).toEqual(counts);
    const grouped = (await get('/live_reports/grouped_conversation_metrics?group_by=assignee_id')).body;
    expect(grouped).toEqual([
      { open: 1, unattended: 0, unassigned: 0, assignee_id: s.x.userId },
      { open: 1, unattended: 1, unassigned: 1, assignee_id: null },
    ]);
    const agents = (await get('/reports/conversations?type=agent')).body as Array<{ id: number; metric: { open: number } }>;
    expect(agents[0]).toMatchObject({ id: s.x.userId, metric: { open: 1, unattended: 0 } });
    expect(agents).toHaveLength(3);
  });

  it('when parameters are bad, then 422; an unknown team 404; agents 403', async () => {
    for (const path of ['/reports/conversations', '/reports/conversations?type=team', '/live_reports/grouped_conversation_metrics?group_by=inbox_id', `/summary_reports/agent?since=${T0}`, '/reports/bot_summary']) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 422 });
      expectErrorBody(res.body);
    }
    const team = await get('/live_reports/conversation_metrics?team_id=987654');
    expect(team.status).toBe(404);
    expectErrorBody(team.body);
    for (const path of [`/summary_reports/agent?${window}`, '/live_reports/conversation_metrics', '/reports/conversations?type=account', `/reports/bot_summary?${window}`]) {
      const res = await get(path, s.x.token);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
    }
  });

  // Last: it changes the account's members, which the tests above count.
  it('when members join or leave after the table was first read, then the table follows them, in the gateway\'s order', async () => {
    const ids = async () => ((await get(`/summary_reports/agent?${window}`)).body as Array<{ id: number }>).map((r) => r.id);
    const gatewayOrder = async () => ((await s.call('GET', `/api/v1/accounts/${s.acc.accountId}/agents`, { token: s.acc.admin.token })).body as Array<{ id: number }>).map((a) => a.id);
    expect(await ids()).toEqual(await gatewayOrder());
    const added = await s.acc.addUser('agent');
    const until = async (want: (list: number[]) => boolean): Promise<number[]> => {
      for (let i = 0; i < 100; i++) {
        const list = await ids();
        if (want(list)) return list;
        await new Promise((r) => setTimeout(r, 100));
      }
      return ids();
    };
    const withNew = await until((l) => l.includes(added.userId));
    expect(withNew).toEqual(await gatewayOrder());
    expect((await get(`/summary_reports/agent?${window}`)).body.find((r: { id: number }) => r.id === added.userId)).toEqual({ id: added.userId, conversations_count: 0, resolved_conversations_count: 0, avg_resolution_time: null, avg_first_response_time: null, avg_reply_time: null });
    const removed = await s.call('DELETE', `/platform/api/v1/accounts/${s.acc.accountId}/account_users`, { token: PLATFORM_TOKEN, body: { user_id: added.userId } });
    expect(removed.status).toBe(200);
    const without = await until((l) => !l.includes(added.userId));
    expect(without).not.toContain(added.userId);
    expect(without).toEqual(await gatewayOrder());
  });
});
